"""The news articles' full texts, kept outside the repository (the hub may record and republish an
article's address, title and summary, not its text): ``<cache folder>/news-texts/<ab>/<sha256>.txt``,
the cache folder being the nightly's (``cache.default_dir``, or ``--cache-dir``).

Content-addressed: a text is filed under the sha256 of its UTF-8 bytes, which the news ledger
records, so a text read back is checked against its name (a damaged or foreign file is a miss) and
survives any change of the code, unlike the nightly's other cache entries. A lost folder loses
only the texts: the question maker and retrieval then fall back to the ledger's titles and
summaries. The nightly keeps the texts of the articles recorded in the last ``[oracle] text_days``
days and deletes the others (``prune``).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .cache import default_dir
from .csvio import write_bytes_atomic


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class NewsTexts:
    def __init__(self, folder: Path):
        self.folder = folder

    @classmethod
    def for_hub(cls, root: Path, cache_dir: Path | None = None) -> NewsTexts:
        """The texts of the hub at ``root``: in ``cache_dir`` (``--cache-dir``), else its default cache folder."""
        return cls((cache_dir if cache_dir is not None else default_dir(root)) / "news-texts")

    def _path(self, sha: str) -> Path:
        return self.folder / sha[:2] / f"{sha}.txt"

    def put(self, text: str) -> str:
        """Keep ``text``; return its sha256."""
        data, sha = text.encode("utf-8"), text_sha256(text)
        path = self._path(sha)
        if not path.is_file():
            write_bytes_atomic(path, data, durable=False, hub_file=False)
        return sha

    def prune(self, keep: set[str]) -> int:
        """Delete every text not in ``keep`` (sha256s); the number deleted. Only files named as texts
        are touched, and a file that cannot be deleted is left for the next run."""
        deleted = 0
        for path in self.folder.glob("??/*.txt") if self.folder.is_dir() else ():
            if re.fullmatch(r"[0-9a-f]{64}", path.stem) and path.stem not in keep:
                try:
                    path.unlink()
                    deleted += 1
                except OSError:
                    continue
        return deleted

    def get(self, sha: str) -> str | None:
        """The text filed under ``sha``; None when it is absent or does not match its name."""
        if not re.fullmatch(r"[0-9a-f]{64}", sha):
            return None
        try:
            data = self._path(sha).read_bytes()
        except OSError:
            return None
        return data.decode("utf-8") if hashlib.sha256(data).hexdigest() == sha else None
