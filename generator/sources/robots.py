"""``robots.txt``: whether a host lets the news intake read a page.

The intake reads a host's ``/robots.txt`` once a run, before the first article it would read there,
and asks it (Python's ``urllib.robotparser``) for the intake's User-Agent. As RFC 9309 says: a
robots.txt that is absent or refused (HTTP 4xx) allows everything; one that cannot be read (a 5xx,
a network failure, a blocked address) disallows the host for this run, which the next run asks again.
A feed itself is read regardless: a feed is published to be read by programs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

from .http import FetchError

Get = Callable[[str], bytes]  # GET a URL, its body; raises FetchError (with .status) or another exception


class Robots:
    """Each host's robots.txt, read once (``get``) and kept for the run."""

    def __init__(self, get: Get, agent: str):
        self.get, self.agent = get, agent
        self.rules: dict[str, RobotFileParser | Exception] = {}  # origin → its rules, or why they could not be read
        self.lock = threading.Lock()

    def refusal(self, url: str) -> tuple[str, str] | None:
        """None when ``url`` may be read; else (problem code, why not in a sentence): ``robots-disallowed``,
        or the code of the failure that kept robots.txt unread when it has one (``fetch-blocked``)."""
        parts = urlsplit(url)
        origin = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
        with self.lock:
            if origin not in self.rules:
                self.rules[origin] = self._read(origin)
        rules = self.rules[origin]
        if isinstance(rules, Exception):
            why = f"{origin}/robots.txt could not be read ({rules}), so the host is not read this run"
            code = "fetch-blocked" if getattr(rules, "code", "") == "fetch-blocked" else "robots-disallowed"
            return code, why
        if not rules.can_fetch(self.agent, url):
            code = "robots-disallowed"
            return code, f"{origin}/robots.txt disallows {parts.path or '/'} for {self.agent.split('/')[0]}"
        return None

    def _read(self, origin: str) -> RobotFileParser | Exception:
        parser = RobotFileParser(f"{origin}/robots.txt")
        try:
            body = self.get(f"{origin}/robots.txt")
        except FetchError as exc:
            if exc.status is not None and 400 <= exc.status < 500:
                parser.parse([])  # absent or refused: everything allowed
                return parser
            return exc
        except Exception as exc:  # a blocked address, a broken reply: the host is not read
            return exc
        parser.parse(body.decode("utf-8", "replace").splitlines())
        return parser
