"""Prescient: a forecasting benchmark that lives in a git repository."""

__version__ = "0.16.1"
