"""Which of a news day's articles the questions are made from, as Daily Oracle selects them (pure).

Each day: ``random_n`` articles drawn at random, and one drawn from each of the day's ``hot_n``
largest *hot topics*. A hot topic is a cluster of the day's articles: their texts as TF-IDF
vectors (scikit-learn, English stop words, sublinear term frequency, L2-normalised), grouped by
DBSCAN on cosine distance (``EPS``, ``MIN_SAMPLES``); a cluster whose mean pairwise cosine
similarity is below ``MIN_COHERENCE`` is chaotic (a catch-all of loosely related texts) and
removed. Clusters are ranked by size (ties: the one holding the smallest address first), and a
hot topic's pick is drawn among its articles not already chosen.

Every draw comes from one generator seeded with the day (the sha256 of ``YYYY-MM-DD``), and the
articles are put in the order of their addresses first, so the same day's articles always give
the same selection, whatever order the ledger lists them in.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import tfidf

EPS = 0.5  # DBSCAN: the largest cosine distance between neighbours
MIN_SAMPLES = 3  # DBSCAN: the neighbours (itself included) that make an article a cluster's core
MIN_COHERENCE = 0.3  # a cluster's mean pairwise cosine similarity, below which it is chaotic
RANDOM, HOT = "random", "hot-topic"


@dataclass(frozen=True)
class Pick:
    url: str
    reason: str  # "random" or "hot-topic-<k>"
    cluster_size: int | None = None


@dataclass(frozen=True)
class Topic:
    members: tuple[int, ...]  # positions in the day's articles (sorted by address)
    coherence: float  # mean pairwise cosine similarity


def day_rng(day: str) -> np.random.Generator:
    """The day's random generator: seeded from the sha256 of its date, so a rerun draws the same."""
    return np.random.default_rng(int.from_bytes(hashlib.sha256(day.encode()).digest()[:8], "big"))


def vectors(texts: list[str]) -> sp.csr_matrix:
    """TF-IDF rows, L2-normalised (an article with no word left is a zero row)."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # here: ``tfidf``

    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=1, dtype=np.float64)
    try:
        return vectorizer.fit_transform(texts).tocsr()
    except ValueError:  # no word at all in any text (empty vocabulary)
        return sp.csr_matrix((len(texts), 1))


def coherence(rows: sp.csr_matrix) -> float:
    """Mean pairwise cosine similarity of unit rows: (|Σ r|² − Σ |r|²) / (m(m − 1))."""
    m = rows.shape[0]
    if m < 2:
        return 1.0
    total = np.asarray(rows.sum(axis=0)).ravel()
    norms = float(rows.multiply(rows).sum())
    return float((total @ total - norms) / (m * (m - 1)))


def hot_topics(x: sp.csr_matrix) -> list[Topic]:
    """The coherent clusters of the rows of ``x``, largest first (ties: lowest first member)."""
    if x.shape[0] < MIN_SAMPLES:
        return []
    from sklearn.cluster import DBSCAN  # here: ``tfidf``

    labels = DBSCAN(eps=EPS, min_samples=MIN_SAMPLES, metric="cosine", algorithm="brute").fit(x).labels_
    topics = []
    for label in sorted(set(labels.tolist()) - {-1}):
        members = tuple(int(i) for i in np.flatnonzero(labels == label))
        score = coherence(x[list(members)])
        if score >= MIN_COHERENCE:
            topics.append(Topic(members, score))
    return sorted(topics, key=lambda t: (-len(t.members), t.members[0]))


def day_topics(texts: list[str]) -> list[Topic]:
    """The hot topics of the day's article ``texts`` (``tfidf.call`` runs it)."""
    return hot_topics(vectors(texts))


def select_day(day: str, urls: list[str], texts: list[str], random_n: int = 3, hot_n: int = 3) -> list[Pick]:
    """The day's selection: ``random_n`` random picks, then one pick per hot topic (up to ``hot_n``)."""
    order = sorted(range(len(urls)), key=lambda i: urls[i])
    urls, texts = [urls[i] for i in order], [texts[i] for i in order]
    if not urls:
        return []
    rng = day_rng(day)
    chosen = [int(i) for i in rng.choice(len(urls), size=min(random_n, len(urls)), replace=False)]
    picks = [Pick(urls[i], RANDOM) for i in chosen]
    for k, topic in enumerate(tfidf.call(day_topics, texts)[:hot_n], start=1):
        free = [i for i in topic.members if i not in chosen]
        if free:
            pick = free[int(rng.integers(len(free)))]
            chosen.append(pick)
            picks.append(Pick(urls[pick], f"{HOT}-{k}", len(topic.members)))
    return picks
