"""All that a board reads, as one digest (``inputs_digest``): a board may be kept from one night to
the next while its digest, the models, the options and the crowd values are the same
(``hub_boards.KeptBoards``, the night's headline in ``pipeline.nightly``, the site's boards in
``site.boards``). Speed only: a board made again is the same board.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np
import pandas as pd

from ..timeutil import format_date, format_ts
from .fb_board import FBOptions, timely_mask
from .frame_times import FrameTimes, times_marks


def inputs_digest(
    scores: pd.DataFrame | Sequence[pd.DataFrame],
    as_of: datetime,
    options: FBOptions,
    parts: Sequence[tuple[object, int]] | None = None,
    times: Sequence[FrameTimes | None] | None = None,
) -> str:
    """A digest of all that ``fb_board`` reads from ``scores`` and ``as_of`` under ``options``, on
    any board and any view (``views.view_rows`` is a filter of rows): the rows resolved by ``as_of``
    in rounds old enough (step 1's filters by time; every later step reads only these rows, their
    order included) and which of their rounds are old enough for the stability rule (step 5, the
    only other use of ``as_of``). Equal digests, models, options and crowd values give equal boards,
    so a board may be kept from one night to the next while its digest stays the same.

    ``scores`` may be the frames whose concatenation the board would read (a nightly's rounds: not
    concatenated unless the board is made). ``parts``, when given, knows each of those frames by a
    token of its bytes (a score file's size and sha256) and its number of rows: the rows are then
    known by their tokens and which of them step 1 keeps, without hashing 1.6 M rows again.
    ``times``, with ``parts``: each frame's ``frame_times.FrameTimes``, kept by the caller with its
    token; which rows step 1 keeps is then known from a bisection per round of a frame
    (``times_marks``), without comparing every row's times (a nightly's frames are its rounds, most
    of them unchanged from one night to the next)."""
    frames = [scores] if isinstance(scores, pd.DataFrame) else list(scores)
    described = parts if parts is not None and [n for _, n in parts] == [len(frame) for frame in frames] else None
    known = [t for t in times if t is not None] if times is not None else []
    if described is not None and len(known) == len(frames):
        return _digest_of_times(described, known, as_of, options)
    columns = {
        c: pd.concat([f[c] for f in frames], ignore_index=True) if frames else pd.Series([], dtype=object) for c in ("resolved_at", "round")
    }  # one comparison over all frames, not one per frame
    keep = timely_mask(columns, as_of, options)
    rounds = sorted({str(r)[:10] for r in pd.unique(columns["round"].to_numpy()[keep])})
    old_enough = [r for r in rounds if r <= format_date(as_of - timedelta(days=options.min_age_days))]
    digest = hashlib.sha256(repr(old_enough).encode())
    if described is not None:
        digest.update(repr(("parts", list(described))).encode())  # a token stands for its frame's rows and types
        digest.update(np.packbits(keep).tobytes())
    elif frames:
        rows = (frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True))[keep]
        digest.update(repr([(str(c), str(t)) for c, t in rows.dtypes.items()]).encode())
        digest.update(pd.util.hash_pandas_object(rows, index=False).to_numpy().tobytes())
    return digest.hexdigest()


def _digest_of_times(parts: Sequence[tuple[object, int]], times: Sequence[FrameTimes], as_of: datetime, options: FBOptions) -> str:
    """``inputs_digest`` of frames known by their ``parts`` and ``times``: the same rounds old enough,
    and per frame its token and which of its rows step 1 keeps (``times_marks``)."""
    cutoff = None if options.min_round_age_days is None else format_date(as_of - timedelta(days=options.min_round_age_days))
    marks = [times_marks(t, format_ts(as_of), cutoff) for t in times]
    rounds = sorted({r[:10] for mark in marks for r, _ in mark})
    old_enough = [r for r in rounds if r <= format_date(as_of - timedelta(days=options.min_age_days))]
    digest = hashlib.sha256(repr(old_enough).encode())
    digest.update(repr(("times", [(token, n, mark) for (token, n), mark in zip(parts, marks, strict=True)])).encode())
    return digest.hexdigest()
