"""Daily Oracle–style questions: a separate track from the ForecastBench-style rounds.

True/false and 4-option multiple-choice questions generated from news, each with a resolution
date, a correct answer and a category (``data/oracle/<set>/questions.csv``), and forecasters'
option probabilities (``data/oracle/<set>/forecasts/<team>.<model>.csv``).

- ``formats`` / ``importer``: the documented CSV/JSONL import format → the append-only question ledger;
- ``scoring``: argmax accuracy and multi-class Brier per question (refusal/missing = wrong);
- ``temporal``: ``temporal_view`` (by resolution month, 5-month moving average, months from the
  knowledge cutoff) and ``yoy_summary`` (mean year-on-year change before/after the cutoff);
- ``board``: ``oracle_scores`` (reads a hub) and ``oracle_board`` (hub runs apart from self-reported).

The ``[oracle]`` stage (Daily Oracle, living), each module imported where it is used (the feed
parser and scikit-learn load only then):
- ``news``: the news intake (``prescient oracle fetch-news``) into ``data/news/``;
- ``selection``: each news day's articles, random and from hot topics, seeded by the date;
- ``candidates``: the four steps' answers, parsed, and the filter; ``llm_maker`` asks the LLM for
  them (logged, resumable, budgeted), ``template_maker`` writes them for the offline demo;
- ``generate``: select, make, write (``prescient oracle generate``);
- ``retrieval`` and ``answer``: the hub's own answers, closed-book or open-book (``prescient oracle answer``);
- ``tfidf``: where the scikit-learn arithmetic of ``selection`` and ``retrieval`` runs (here, or in
  the demo's companion process, which imports scikit-learn on the other core);
- ``stage``: the nightly's part; ``describe``: what the commands print; ``sets``: what the site
  shows of each set; ``ledgers``: small helpers over the stage's ledgers.
"""

from .board import oracle_board, oracle_scores
from .importer import import_oracle
from .temporal import temporal_view, yoy_summary

__all__ = ["import_oracle", "oracle_board", "oracle_scores", "temporal_view", "yoy_summary"]
