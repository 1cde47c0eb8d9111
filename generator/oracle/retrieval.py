"""Retrieval for the constrained open-book setting (Daily Oracle §4.1): for each question, the ``k``
articles of the hub's own news ledger most similar to it, among those published before both the
question's resolution date and the chosen cutoff. Pure.

Similarity is TF-IDF cosine (scikit-learn, English stop words, sublinear term frequency), not BM25:
the same vectors as the article selection, and no further dependency. The vocabulary and the
inverse document frequencies are fitted on the articles a question may see, never on later ones,
so nothing published after its bound shapes its ranking. Each article is its title and text (the
text from ``store.newstexts``; its summary when the text is lost), cut to its first ``words`` words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import tfidf

K, WORDS = 5, 512  # articles per question, words per article (the paper's setting)


@dataclass(frozen=True)
class Retrieved:
    title: str
    source: str
    published: str  # YYYY-MM-DD
    text: str


def first_words(text: str, n: int = WORDS) -> str:
    return " ".join(text.split()[:n])


def retrieve(
    questions: pd.DataFrame, news: pd.DataFrame, text_of: Callable[[pd.Series], str], cutoff: str, k: int = K, words: int = WORDS
) -> dict[str, list[Retrieved]]:
    """Per question id (``questions``: id, text, resolution_date), its ``k`` best articles of ``news``
    (one row per article: url, title, source, published_at, ...) published before
    min(resolution date, ``cutoff``); ``text_of(row)`` gives an article's text."""
    published = news["published_at"].fillna("").astype(str).str[:10]
    docs = news.assign(day=published)[published != ""].sort_values(["day", "url"], kind="mergesort").reset_index(drop=True)
    bodies = [first_words(f"{row.title or ''}\n{text_of(row)}", words) for row in docs.itertuples(index=False)]
    out: dict[str, list[Retrieved]] = {}
    bound = questions["resolution_date"].astype(str).where(questions["resolution_date"].astype(str) < cutoff, cutoff)
    for limit, group in questions.groupby(bound, sort=True):
        seen = np.flatnonzero(docs["day"].to_numpy() < limit)
        if not len(seen):
            out.update({qid: [] for qid in group["id"]})
            continue
        similarity = tfidf.call(similarities, [bodies[i] for i in seen], group["text"].astype(str).tolist())
        if similarity is None:  # no word in any article
            out.update({qid: [] for qid in group["id"]})
            continue
        for qid, row in zip(group["id"], similarity, strict=True):
            best = np.argsort(-row, kind="stable")[:k]
            out[qid] = [_retrieved(docs.iloc[seen[i]], bodies[seen[i]]) for i in best if row[i] > 0]
    return out


def similarities(articles: list[str], queries: list[str]) -> np.ndarray | None:
    """The cosine similarity of each query to each article (a row per query), in the TF-IDF space fitted
    on ``articles``; None when no article has a word (``tfidf.call`` runs it)."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # here: ``tfidf``

    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
    try:
        x = vectorizer.fit_transform(articles)
    except ValueError:  # an empty vocabulary
        return None
    return (vectorizer.transform(queries) @ x.T).toarray()


def _retrieved(row: pd.Series, body: str) -> Retrieved:
    return Retrieved(str(row["title"] or ""), str(row["source"]), str(row["day"]), body)
