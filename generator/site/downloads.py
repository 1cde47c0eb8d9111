"""CSV files offered for download, made safe to open in a spreadsheet. Pure: bytes in, bytes out.

``store.spreadsheet.spreadsheet_safe_bytes`` prefixes a single quote to a cell that starts like a formula
(``=``, ``+``, ``-``, ``@``, tab, CR). That is enough where a spreadsheet splits the file on commas.
Where the list separator is ``;`` (most of continental Europe), a spreadsheet opening a ``.csv``
splits each line on ``;`` instead, and the comma file's quoting is only honoured at the start of a
``;`` field: a cell ``x;=HYPERLINK(...)`` becomes a field ``=HYPERLINK(...)``, and a line feed inside
a quoted cell may start a new row. Tab-separated imports do the same with tabs. So a piece of a
cell after ``;``, tab, CR or LF that would run as a formula gets the single quote too, after the
separator (``x;'=HYPERLINK(...)``), as OWASP's CSV injection guidance asks for every field.

The ledgers keep the raw text; only the site's downloads go through here.
"""

from __future__ import annotations

import csv
import io
import re
from urllib.parse import quote

from ..store.spreadsheet import formula_like, spreadsheet_safe_bytes

# A separator inside a cell, and the piece after it up to the next separator.
_PIECE = re.compile(r"([;\t\r\n])([^;\t\r\n]*)")
# Where such a piece may start like a formula (a quote may open the field first): files with no
# match are returned without being parsed.
_PIECE_START = re.compile(rb'[;\t\r\n]"*[=+\-@\t\r]')
_NEEDS_QUOTES = re.compile(r'[,";\t\r\n]|\A\s|\s\Z')


def split_safe(cell: str) -> str:
    """``cell`` with a single quote after each ``;``, tab, CR or LF whose piece would run as a formula."""
    return _PIECE.sub(lambda m: m[1] + "'" + m[2] if formula_like(m[2].lstrip('"')) else m[0], cell)


def for_spreadsheets(data: bytes) -> bytes:
    """A CSV download's bytes with every formula-like cell and cell piece neutralised (see the
    module docstring). A file with nothing to change, or that is not UTF-8 CSV, comes back as it is;
    a rewritten one has ``\\n`` line ends and quotes every cell holding a separator of either kind."""
    data = spreadsheet_safe_bytes(data)
    if not _PIECE_START.search(data):
        return data
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        return data
    safe = rows[:1] + [[split_safe(cell) for cell in row] for row in rows[1:]]
    if safe == rows:
        return data
    return "".join(",".join(map(_quoted, row)) + "\n" for row in safe).encode("utf-8")


def _quoted(cell: str) -> str:
    return f'"{cell.replace(chr(34), chr(34) * 2)}"' if _NEEDS_QUOTES.search(cell) else cell


def raw_url(repo_url: str, path: str) -> str:
    """The URL of the repository's own copy of ``path`` (relative to the repository root) on its
    default branch: ``raw.githubusercontent.com/<owner>/<repo>/HEAD/<path>`` for a GitHub
    repository, ``<repo_url>/raw/HEAD/<path>`` elsewhere (GitLab redirects that to its raw file)."""
    base = repo_url.strip().removesuffix("/").removesuffix(".git")
    quoted = quote(path.lstrip("/"))
    host, _, rest = base.partition("://")[2].partition("/")
    if host.lower() in ("github.com", "www.github.com") and rest.count("/") == 1:
        return f"https://raw.githubusercontent.com/{rest}/HEAD/{quoted}"
    return f"{base}/raw/HEAD/{quoted}"
