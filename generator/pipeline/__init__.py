"""The shell around the pure stages; the CLI calls one function of it per command.

- ``nightly``: fetch every source, open due rounds, run the hub's forecasters, score, append history
- ``rounds``: ``prescient round open``, one round outside the schedule
- ``sampling``: the round schedule and the stratified question-set sampling (pure)
- ``recompute``: scores and history recomputed from the ledgers (the nightly and ``verify`` share it)
- ``demo``: a simulated season end to end
- ``forecaster``: ``prescient rounds`` (status, time left) and ``prescient round template``
"""
