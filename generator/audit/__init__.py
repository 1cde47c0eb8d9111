"""Audit: recompute what is derived and compare it byte for byte, and check the git history.

- ``verify``: ``prescient verify``: scores, history and pages recomputed from the ledgers and compared
- ``git``: what the git history says: ledgers only appended, frozen files kept, files on time
- ``changes``: that history read: one ``FileChange`` per path a first-parent commit changed under ``data/``
- ``ledgers``: the append-only rule of a ledger's two versions: every old record still there, unchanged
- ``digests``: each night's ``ledger_digest`` against the ledgers of the commit that recorded it
- ``night_state``: those ledgers as they stood at an earlier night of the same commit (a catch-up committed at once)
- ``maintainers``: the maintainers' ledger's commits: by maintainers, never into a past night
- ``bot``: who the hub's bot is (as the hub was set up), and that only its own commits change what the hub writes
- ``seals``: the seals against their rule, the receipts and the files in place
- ``checkpoint``: where a pull request's ``verify --git`` may start: the nightly's checkpoints, trusted only when they check
- ``scope``: what that ``verify --git`` must recompute: only what the changes since the checkpoint can affect
- ``anchor``: ``verify --git --anchor``: a commit a reader kept is an ancestor, and every row published as of it is unchanged
- ``report``: the report led by causes: an edited file first, the pages that follow from it counted
"""
