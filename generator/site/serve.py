"""Preview a built site over HTTP, as GitHub Pages serves it: files as they are, and the site's own
``404.html`` (with status 404) for a path that names no file.

The standard library's handler answers a missing path with its own bare error page; a reader of
the preview would never see the page the hub deploys. Only 404 is replaced: other errors keep
the standard handler's answer.
"""

from __future__ import annotations

import functools
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

NOT_FOUND_PAGE = "404.html"


class SiteHandler(SimpleHTTPRequestHandler):
    """``SimpleHTTPRequestHandler`` on one folder, with that folder's ``404.html`` for a missing path;
    a line per request on stderr only when ``verbose``."""

    verbose = False

    def log_message(self, format: str, *args) -> None:
        if self.verbose:
            super().log_message(format, *args)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / NOT_FOUND_PAGE
        if code != HTTPStatus.NOT_FOUND or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(code, message)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def site_server(site: Path, bind: str, port: int, verbose: bool = False) -> ThreadingHTTPServer:
    """A server (not yet serving) for the built site in ``site`` on ``bind``:``port`` (0: any free port),
    logging each request when ``verbose``. Raises ``OSError``/``OverflowError`` where the address cannot be used."""
    handler = type("SiteHandler", (SiteHandler,), {"verbose": verbose})
    return ThreadingHTTPServer((bind, port), functools.partial(handler, directory=str(site)))
