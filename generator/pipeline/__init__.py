"""The shell around the pure stages; the CLI calls one function of it per command.

- ``nightly``: fetch every source, open due rounds, run the hub's forecasters, score, append history
- ``fetch``: the nightly's first phase: every source asked, what is new appended to the ledgers
- ``headline``: the night's leaderboard history rows and what the first board leaves off
- ``incremental``: the nightly's derive: only the rounds that what changed can affect are scored
  again (``rescore_changed_rounds``), the bytes of the full recompute
- ``memo_store``: the derive's memo and the night's headline, kept between commands in the disk cache
- ``recompute``: scores and history recomputed from the ledgers (``score_one_round`` composes a
  round's scores for the nightly, ``verify`` and the ForecastBench import alike)
- ``rounds``: ``prescient round open``, one round outside the schedule
- ``sampling``: the round schedule and the stratified question-set sampling (pure)
- ``forecaster``: ``prescient rounds`` (status, time left) and ``prescient round template``
- ``receipts``: ``prescient receipts``: when GitHub attests a pull request's files
- ``submit``: ``prescient submit``: a team's files checked, pushed to its fork and sent by pull request; the verdict
- ``round_fetch``: ``prescient round fetch``: a hub's open rounds from its site into a team's folder
- ``seal``: the seal of each round past its due time: the version of each file that counts, held every night
- ``commitments``: ``prescient commit`` and ``reveal``, a commit–reveal round's two steps
- ``maintainer``: ``prescient void``, ``correct``, ``exclude``: a maintainer's decision, one row of the
  maintainers' ledger, checked as its pull request will be
- ``demo``: a simulated season end to end
- ``demo_git``: the demo as a git repository, a commit a night by the hub's bot (one ``git fast-import``)
- ``fetch_lane``: the demo's fetch of each night made in a forked process while the night before is scored
- ``hubinit``: ``prescient init``: a new hub's files (the workflows for a pinned version, the site
  skeleton, CODEOWNERS), ``init --upgrade``, and the check of CODEOWNERS against hub.toml
- ``hubtoml``: a new hub's commented ``data/hub.toml``, written from the schema
- ``hubpin``: the Prescient a hub installs, pinned by a commit id or a wheel's sha256 (``.github/prescient.txt``)
"""
