"""Fetch (network, through ``http``) and parse (pure), one module per platform.

- ``base``: the ``Source`` interface, ``FetchContext`` and ``FetchResult``
- ``shell``: the two shells adapters are built on, ``MarketSource`` and ``SeriesSource``
- ``http``: the one place httpx is configured: retries, budgets, limits, bounded concurrency
- ``registry``: which source names exist and how to build each one
- ``_util``: helpers shared by the adapters: field access, time parsing, hashing
- ``manifold``, ``polymarket``, ``kalshi``, ``metaculus``: the market platforms
- ``fred``, ``dbnomics``: the series platforms
- ``sim``: a deterministic offline world, the hub's embedded default
- ``github``: the GitHub REST API, for the times GitHub itself attests (receipts)
- ``github_submit``: the GitHub REST API as a team's submission uses it: fork, pull request, validation run
- ``hubsite``: a hub's published site: its open rounds from ``/api/rounds.json``, each file checked against its sha256
- ``feeds``: news feeds (RSS, Atom) and articles' pages, for the Daily Oracle
- ``addresses``: the news intake's address rule: public addresses only, checked at every connection
- ``robots``: each host's robots.txt, which the news intake honours
- ``sim_news``: the sim world's news wire, the offline default's feed
"""
