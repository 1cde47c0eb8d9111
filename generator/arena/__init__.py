"""The Arena view: bets in round cohorts, and simulated portfolios for probability forecasts.

A secondary view, never the rank: P/L and bet-implied confidence are not proper scores.

- ``bets``: the arithmetic of one bet (pure scalars);
- ``portfolio``: cohort replay, mark-to-market, settlement, ``arena_table`` and ``pnl_curves``;
- ``cohorts``: rounds grouped into cohorts, and the replay of one forecaster's rows over its cohort
  (books closed at each round's publication, sales of part of a position);
- ``simulate``: probability forecasts → the simulated bets of the "averaged return" view;
- ``decisions``: every bet-file row with its reasoning, beside what became of it;
- ``gather``: the one I/O edge, ``load_cohorts`` and ``books_for`` (read a hub through ``store.readers``).

A bet file is validated by ``submissions.bets``. Nothing is imported here.
"""
