"""ForecastBench's files: imported into the hub's ledgers, and a round's question set exported.

- ``importer``: ``prescient import forecastbench``: every input checked, then the ledgers, rounds and
  forecast files written
- ``forecast_files``: the forecast files an import writes (the hub's baselines, FB's forecast sets)
- ``parse``: FB JSON files → plain row dicts, every problem collected
- ``frames``: parsed rows → the hub's ledger frames (pure)
- ``workers``: the import's parsing worker processes (``parallel.worker_pool``) and the files they make
- ``sealed``: the seals of the imported rounds (evidence ``import``)
- ``export``: ``prescient export forecastbench``: a round's question set as FB JSON
"""
