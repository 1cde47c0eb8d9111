"""Every read and write of a hub's ``data/``: the CSV format, how files are written, and the caches
beside them, each in its own module.

- ``layout``: every path under ``data/`` (paths only)
- ``hub``: ``Hub``, the hub a command works on: its layout, its settings and its cache
- ``files``: a hub file read whole; data/hub.toml and the model files read and parsed
- ``csvio``: the CSV format, the plain reference: the checked read, the canonical write, the read-back
- ``atomic``: how a file is replaced (atomically, or staged and committed) or grown (journalled);
  the crash tests' fault hook
- ``splice``: a canonical file rewritten from its old bytes when only some rows changed (the nightly's
  score files)
- ``filewriter``: forecast files written in order, their fsyncs overlapped (the FB import's)
- ``fast_forecasts``: forecast files, fast: the plain writer's bytes and the plain reader's frame,
  for the writers that ask for it by name
- ``spreadsheet``: CSV for people (downloads, ``--format csv``): formula-like cells neutralised
- ``cache``: every cache behind one door: the command's (``cache.reads``) and the one kept between
  commands (``cache.disk``)
- ``readers``: a hub's ledgers and files as typed frames, read through the hub's cache
- ``ledger``: the append-only ledger: new rows merged, a ledger grown in place
- ``ingest``: a source's fetch → the ledger rows that are new (pure)
- ``forecast_file``: a forecast file's bytes → rows of text cells (the validator's reader)
- ``manifest``: the sha256 of every forecast file, recorded the first time a run saw it
- ``receipts``: when GitHub attests a submitted file's bytes
- ``seals``: which exact bytes count for each model in each round
- ``model_log``: the models' scoring-relevant metadata, versioned in time
- ``checkpoints``: the audit's checkpoints, where a pull request's ``verify --git`` may start
- ``maintainer``: the maintainers' ledger (void, correct, exclude) and what it means for scoring
- ``calllog``: the LLM calls' JSONL logs (what was asked, what came back, the resume state)
- ``newstexts``: the news articles' full texts, kept in the cache folder, never in the repository
- ``tarball``: ForecastBench's bundles (``.tar.gz``), every member checked before it is unpacked
- ``lock``: one writer at a time
- ``git``: git plumbing, the one place the hub talks to git
- ``gitpush``: a team's submission committed and pushed to its fork without a clone (``prescient submit``),
  the token passed to git through the environment only
"""
