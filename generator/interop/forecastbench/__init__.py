"""Importers: turn another benchmark's published files into this hub's ledgers."""
