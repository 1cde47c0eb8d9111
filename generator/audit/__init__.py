"""Audit: recompute what is derived and compare it byte for byte, check git history, keep the forecast manifest."""
