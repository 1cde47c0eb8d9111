"""Prescient: a forecasting benchmark that lives in a git repository."""

__version__ = "0.14.0"
