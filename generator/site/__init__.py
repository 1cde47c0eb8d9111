"""The site: gather → render → write, then MkDocs (``build.build_site``).

- ``build``: gather everything the pages show from the hub (the rounds' own boards and the Arena in forked
  workers meanwhile, at ForecastBench's scale), render, write, run MkDocs
- ``boards``: the bootstrapped boards, made in the background (``parallel.in_background``) and kept
  in the disk cache
- ``render``: the generated pages from a ``SiteData`` bundle (pure: data in, {path: bytes} out);
  ``sitedata``: that bundle; ``listings``: the Changes, Questions, Models and methodology-versions lists
- ``round_pages``: a round's page and its question table's rows, and the "Open now" box
- ``charts``: Plotly figures as plain dicts; ``breakdowns``: the model pages' tables by source, category, horizon
- ``questions``, ``summaries``, ``payloads``: question pages, what they say of their units, and
  their forecasts as compact columns
- ``rounds``: where each round stands at ``as_of`` and how its questions resolved, and whether the hub is a replay
- ``seal_rows``: the seals as the round and model pages list them (attested time, evidence, run, blob, versions)
- ``downloads``: CSV files offered for download, safe to open in a spreadsheet
- ``shell``: question pages filled from one themed shell page
- ``write``: write only the pages whose bytes changed
- ``serve``: preview a built site over HTTP, as GitHub Pages serves it
- ``oracle_sets``: what the site shows of each oracle set (its news, questions, makers and board)
- ``hub_settings``: the Methodology page's "This hub's settings", from the hub's ``data/hub.toml``
- ``arena_page``: the Arena page, every cohort apart, the hub's agents marked
- ``human_groups``: the human comparison groups of a board and ForecastBench's two tests against them
- ``explore_page``: the Explore page, each board's score against release date and the projected parity dates
- ``speak``: the boards in words: a sentence under each board; the Changes page's nights, reshuffles
  inside the rank intervals set apart
- ``api``: the static JSON API (``/api/``) and the boards as CSV, each file with a JSON Schema
  (``api_schemas/``); ``api_paths``: where each board's files are; ``api_page``: the index page /api/ shows
"""
