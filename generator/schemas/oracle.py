"""The Daily Oracle's tables: its questions and answer files, and the news it makes questions from."""

from __future__ import annotations

from .table import Table
from .table import col as _c

ORACLE_KIND = ("tf", "mc")
ORACLE_ANSWER = ("A", "B", "C", "D")

ORACLE_QUESTIONS = Table(
    name="oracle_questions",
    path="data/oracle/<set>/questions.csv",
    description=(
        "A Daily Oracle–style question set (true/false and 4-option multiple-choice questions generated from news), "
        "loaded with `prescient import oracle`. Append-only: a re-import adds a row only for a new or changed "
        "question; the latest row per id is the question's current version."
    ),
    columns=(
        _c("id", "str", "Question id, unique within the set (given by the import file, else derived from the text and resolution date)."),
        _c("recorded_at", "ts", "When the hub recorded this version (the import's as_of)."),
        _c("kind", "enum", "`tf` (true/false: choices A = True, B = False) or `mc` (multiple choice, 4 options).", choices=ORACLE_KIND),
        _c("text", "str", "The question as asked."),
        _c("choice_a", "str", "Option A (`True` for a tf question)."),
        _c("choice_b", "str", "Option B (`False` for a tf question)."),
        _c("choice_c", "str", "Option C (empty for a tf question).", nullable=True),
        _c("choice_d", "str", "Option D (empty for a tf question).", nullable=True),
        _c("answer", "enum", "The correct option: `A`–`D` (`A` or `B` for a tf question).", choices=ORACLE_ANSWER),
        _c("resolution_date", "date", "When the answer became known (the source article's publication date)."),
        _c("category", "str", "Topic category."),
        _c("url", "str", "The source article the question was generated from.", nullable=True),
    ),
    key=("id", "recorded_at"),
    sort=("recorded_at", "id"),
    mutability="append-only",
)

ORACLE_FORECASTS = Table(
    name="oracle_forecasts",
    path="data/oracle/<set>/forecasts/<team>.<model>.csv",
    description=(
        "One forecaster's option probabilities for an oracle question set. Leaving every probability of a row "
        "empty is a refusal (scored as wrong); a question with no row is missing (also wrong)."
    ),
    columns=(
        _c("question_id", "str", "A question id from the set's questions.csv."),
        _c("prob_a", "prob", "Probability of option A.", nullable=True),
        _c("prob_b", "prob", "Probability of option B.", nullable=True),
        _c("prob_c", "prob", "Probability of option C (empty for a tf question).", nullable=True),
        _c("prob_d", "prob", "Probability of option D (empty for a tf question).", nullable=True),
        _c("reasoning", "str", "Optional free-text rationale.", nullable=True),
    ),
    key=("question_id",),
    sort=("question_id",),
    mutability="edited by pull request (no deadline)",
)

NEWS = Table(
    name="news",
    path="data/news/<YYYY-MM>.csv",
    description=(
        "The news ledger: every article the oracle's intake read from the `[oracle] feeds`, one row per article "
        "version, partitioned by the month it was recorded. The intake records an article once (a new address "
        "whose text is new too); when the question maker summarizes it, a later version adds the summary. "
        "Full texts are not republished: they stay in the cache outside the repository, named by `text_sha256`."
    ),
    columns=(
        _c("url", "str", "The article's address, as its feed item links it."),
        _c("recorded_at", "ts", "When the hub recorded this version (the run's as_of)."),
        _c("source", "str", "The feed's host (e.g. `www.example.org`), or `sim` for the offline world's feed."),
        _c("feed", "str", "The feed the article was listed in (`[oracle] feeds`)."),
        _c("title", "str", "The article's title, as its feed gives it.", nullable=True),
        _c(
            "published_at",
            "ts",
            "When the feed says the article was published; empty when it does not say (such an article is never selected for questions).",
            nullable=True,
        ),
        _c("fetched_at", "ts", "When the hub read the article's page."),
        _c("text_sha256", "str", "sha256 of the article's text as extracted (UTF-8): the full text is kept outside the repository under this name."),
        _c("text_chars", "int", "Length of the extracted text, in characters."),
        _c("summary", "str", "The question maker's summary of the article; empty until it summarized it.", nullable=True),
        _c("summarized_by", "str", "Who wrote the summary: the model's name, or `template` (the demo's template maker, not an LLM).", nullable=True),
        _c(
            "new_event",
            "int",
            "1 when the summary found a new event reported on the publication date; 0 when it found none, and no question was made from the article.",
            nullable=True,
        ),
    ),
    key=("url", "recorded_at", "summarized_by"),
    sort=("recorded_at", "summarized_by", "url"),  # a night's summaries follow its intake: both are appended
    mutability="append-only",
)

ORACLE_ARTICLES = Table(
    name="oracle_articles",
    path="data/oracle/<set>/articles.csv",
    description=(
        "The articles each news day's questions are made from, selected once per day as Daily Oracle does: "
        "`[oracle] random_articles` at random and one from each of the day's `hot_topics` largest coherent "
        "clusters, the randomness seeded from the date. Once recorded, a day's selection is never made again."
    ),
    columns=(
        _c("day", "date", "The news day: the articles' publication date (UTC)."),
        _c("url", "str", "The article (its rows in the news ledger)."),
        _c("recorded_at", "ts", "When the day's selection was made (the generate run's as_of)."),
        _c("reason", "str", "`random`, or `hot-topic-<k>`: drawn from the day's k-th largest cluster."),
        _c("cluster_size", "int", "Articles in that cluster (hot topics only).", nullable=True),
        _c("text_sha256", "str", "sha256 of the article's text the selection read."),
    ),
    key=("day", "url"),
    sort=("recorded_at", "day", "url"),
    mutability="append-only",
)

FILTER_PRINCIPLES = ("correctness", "answerable_on_date", "no_new_information", "objectiveness", "clear_time", "public_interest", "not_obvious")

ORACLE_GENERATED = Table(
    name="oracle_generated",
    path="data/oracle/<set>/generated.csv",
    description=(
        "Every question the maker wrote for an oracle set, kept or dropped, with the article it came from and "
        "its seven filter scores (0 to 2 each). A question is kept (and added to the set's questions.csv) when "
        "they sum to at least `[oracle] min_score` (13 of 14)."
    ),
    columns=(
        _c("question_id", "str", "The question's id (`<day>.<first 10 hex of text_sha256>.<tf1|tf2|mc1|mc2>`)."),
        _c("recorded_at", "ts", "When its scores were recorded (the generate run's as_of)."),
        _c("day", "date", "The news day; the question's resolution date."),
        _c("url", "str", "The article the question was made from."),
        _c("text_sha256", "str", "sha256 of that article's text."),
        _c("kind", "enum", "`tf` or `mc`.", choices=ORACLE_KIND),
        _c("maker", "str", "Who wrote it: the model's name, or `template` (the demo's template maker, not an LLM)."),
        _c("kept", "int", "1 when kept; 0 when the filter dropped it, or the set already asks a question of the same text."),
        *(
            _c(name, "int", f"Filter score, 0 to 2: {text}.")
            for name, text in (
                ("correctness", "the article shows the answer is right"),
                ("answerable_on_date", "answerable on the publication date, only guessable a week before"),
                ("no_new_information", "the question gives away nothing first reported that day"),
                ("objectiveness", "the answer rests on reported facts, not opinion"),
                ("clear_time", "the question names a precise time"),
                ("public_interest", "the topic matters to a broad public"),
                ("not_obvious", "the answer is not a restatement of the question"),
            )
        ),
        _c("total", "int", "The seven scores summed (0 to 14)."),
        _c("templates_sha256", "str", "sha256 of the prompt templates (or the template maker's rules) that made and scored it."),
    ),
    key=("question_id",),
    sort=("recorded_at", "question_id"),
    mutability="append-only",
)
