"""The Arena view (issue #6): bets in round cohorts, and simulated portfolios for probability forecasts.

A secondary view, never the rank: P/L and bet-implied confidence are not proper scores.

- ``bets``: the arithmetic of one bet (pure scalars);
- ``checks``: validation of a bet file (used by ``submissions.validate``);
- ``portfolio``: cohort replay, mark-to-market, settlement, ``arena_table`` and ``pnl_curves``;
- ``simulate``: probability forecasts → the simulated bets of the "averaged return" view;
- ``gather``: the one I/O edge, ``load_cohorts`` (reads a hub through ``store.readers``).

Nothing is imported here, so ``submissions.validate`` can import ``arena.checks`` without a cycle.
"""
