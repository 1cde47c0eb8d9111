"""Boards from scores: ForecastBench's difficulty-adjusted Brier with bootstrap CIs, and the hub's
boards built on it. Pure: frames in, frames out; no I/O stage is imported (``tests/repo/test_architecture.py``).

- ``fb_board``: ForecastBench's board from the SCORES frame: rows, estimation sample, fit, bootstrap,
  stability rule (``fb_board``, ``selection_board``)
- ``hub_boards``: the hub's published boards (``plain_pair_boards``, the method; ``pair_boards``, the
  same boards made fast; ``hub_board``, one of them) and tonight's history rows
- ``views``: which SCORES rows a board is computed on
- ``panel``, ``fixed_effects``, ``bootstrap``, ``stats``: the scored panel, the two-way fixed
  effects fit, the stratified cluster bootstrap, and the CIs, p-values and ranks from it
- ``secondary``: log score, Peer score, BSS and accuracy columns
- ``crowd``: the crowd's value and Brier of each market (the tournament board's market difficulty)
- ``fb_rules``: ForecastBench's rules on what a board holds: orphan units, the 365-day and
  missing-crowd rules, the stability rule, the public's p-value
- ``imputation``: FB's imputation rule: a model's round with too many imputed forecasts is left off
- ``fb_layout``: a board as ForecastBench publishes it (its CSV columns and rounding)
- ``rows``: how a board's rows are named (each display name once) and ordered
- ``board_frame``: a board's ``COLUMNS`` laid out in one frame, best first, and its secondary columns
- ``question_effects``: a board's question fixed effects (each unit's difficulty ``b``), as its
  ``attrs["difficulty"]`` carries them to the site's API
- ``calibration``: reliability tables and the Murphy decomposition
- ``explore``: a board's score against release date, the state of the art, its trend and the
  projected date it reaches each human group (ForecastBench's bootstrap interval)
- ``diff``: the nightly leaderboard diff in plain words
- ``row_codes``, ``frame_times``, ``digest``: speed only: rows coded once for every board, a
  frame's times, and the digest of all a board reads (a board is kept while it is the same)
"""
