"""Which addresses the news intake may reach: public ones only.

A feed is written by someone else, and so is every link and redirect in it: a feed item pointing at
``http://127.0.0.1:8080/admin`` (or a host name that resolves to one, or a public page that
redirects to one) would have the nightly read a service of the machine or network it runs in, and
record that page's address and title in the public news ledger. So every connection the intake
opens is checked where it is opened, after DNS resolution: the host's addresses are resolved once,
every one of them must be public (not loopback, private, link-local, shared, multicast, reserved or
unspecified; an IPv4 address mapped into IPv6 is judged as IPv4), and the connection goes to the
address that was checked, so a name cannot resolve to another one between the check and the
connection. A redirect opens a new connection and is checked the same way. A refused connection
raises ``AddressBlocked`` (never retried); the intake reports it as ``fetch-blocked``.

``allow`` names exact ``ADDRESS:PORT`` pairs that are reachable anyway: the tests serve feeds on
127.0.0.1 and name their server's port in ``PRESCIENT_FETCH_ALLOW`` (``ALLOW_ENV``). The nightly
workflow never sets it, and nothing else can widen the rule.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpcore
import httpx

from .http import DEFAULT_TIMEOUT, USER_AGENT

ALLOW_ENV = "PRESCIENT_FETCH_ALLOW"  # comma-separated ADDRESS:PORT pairs reachable despite the rule (tests only)
Resolver = Callable[[str, int], list[str]]


class AddressBlocked(Exception):
    """A connection to an address that is not public (or a host that resolves to one)."""


def parse_allow(value: str | None) -> frozenset[tuple[str, int]]:
    """``PRESCIENT_FETCH_ALLOW``'s pairs; an entry that is not ``ADDRESS:PORT`` (an IP address and a port) is ignored."""
    pairs = set()
    for entry in (value or "").split(","):
        address, _, port = entry.strip().rpartition(":")
        try:
            pairs.add((str(ipaddress.ip_address(address.strip("[]"))), int(port)))
        except ValueError:
            continue
    return frozenset(pairs)


def allowed_from(env: Mapping[str, str]) -> frozenset[tuple[str, int]]:
    return parse_allow(env.get(ALLOW_ENV))


def is_public(address: str) -> bool:
    """True for a globally routable unicast address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_loopback or ip.is_link_local or ip.is_private or ip.is_unspecified)


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (an IP literal: itself), in the resolver's order."""
    try:
        return [str(ipaddress.ip_address(host.strip("[]")))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise httpcore.ConnectError(f"{host}: {exc}") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def checked_addresses(host: str, port: int, allow: Iterable[tuple[str, int]] = (), resolver: Resolver = resolve) -> list[str]:
    """The addresses of ``host`` a connection may go to; AddressBlocked when any of them is not public
    (and not allowed with this port): a name with one private address among public ones is refused."""
    addresses = resolver(host, port)
    allowed = set(allow)
    refused = [a for a in addresses if not is_public(a) and (str(ipaddress.ip_address(a.split("%", 1)[0])), port) not in allowed]
    if refused or not addresses:
        shown = f"{host}:{port}" + ("" if refused == [host.strip("[]")] else f" (resolves to {', '.join(refused) or 'no address'})")
        raise AddressBlocked(f"{shown} is not a public address: the news intake reaches public addresses only")
    return addresses


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore's network backend with every TCP connection checked (``checked_addresses``) and made to
    the address checked; TLS still verifies the host name (httpcore passes it to ``start_tls``)."""

    def __init__(self, allow: Iterable[tuple[str, int]] = (), resolver: Resolver = resolve, inner: httpcore.NetworkBackend | None = None):
        self.allow, self.resolver = frozenset(allow), resolver
        self.inner = inner or httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None, socket_options=None):
        error: Exception | None = None
        for address in checked_addresses(host, port, self.allow, self.resolver):
            try:
                return self.inner.connect_tcp(address, port, timeout=timeout, local_address=local_address, socket_options=socket_options)
            except httpcore.ConnectError as exc:
                error = exc
        raise error or httpcore.ConnectError(f"{host}:{port}: no address")

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options=None):
        raise AddressBlocked(f"{path}: the news intake opens no local socket")

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


def guarded_client(options: Mapping[str, Any], allow: Iterable[tuple[str, int]] = (), resolver: Resolver = resolve) -> httpx.Client:
    """An httpx client like ``sources.http.open_client``'s (timeout, User-Agent, pool, redirects
    followed) whose every connection, a redirect's included, goes through ``GuardedBackend``. It
    ignores the environment's proxies (a proxy would make every address look like the proxy's)."""
    pool = max(10, int(options.get("concurrency", 4)))
    limits = httpx.Limits(max_connections=pool, max_keepalive_connections=pool)
    transport = httpx.HTTPTransport(limits=limits, trust_env=False)
    inner = getattr(transport, "_pool", None)
    if not isinstance(inner, httpcore.ConnectionPool) or not hasattr(inner, "_network_backend"):
        raise RuntimeError("httpx's transport has no connection pool to guard: the news intake will not run unguarded")
    inner._network_backend = GuardedBackend(allow, resolver)
    return httpx.Client(
        transport=transport,
        timeout=float(options.get("timeout", DEFAULT_TIMEOUT)),
        headers={"User-Agent": str(options.get("user_agent", USER_AGENT))},
        follow_redirects=True,
        trust_env=False,
    )
