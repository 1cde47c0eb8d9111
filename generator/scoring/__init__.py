"""Scores of forecasts from what the ledgers say. Pure: frames in, frames out; no I/O stage is
imported (``tests/repo/test_architecture.py``).

- ``resolve``: what the ledgers say at a time: market states, series values, round outcomes
- ``market_proxy``: the legacy ForecastBench policy for markets that have not resolved
- ``brier``: per-forecast scores of one round (``score_round``)
- ``corrections``: resolution provenance: the corrections in the observation ledger and what they changed
"""
