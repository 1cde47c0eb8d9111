"""An OpenAI-compatible chat-completions endpoint: where it is (``PRESCIENT_LLM_*``), what its
tokens cost, one call through ``sources.http`` (retries, 429 and ``Retry-After``, the request
deadline and size cap), and a reading of its answer that never raises on odd shapes."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from ..errors import ConfigError
from ..sources.http import RateLimiter, client_for, post_json

DEFAULT_BASE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class Endpoint:
    """Where to send the calls, and what a million input/output tokens cost (USD), if known."""

    api_key: str
    base_url: str = DEFAULT_BASE_URL
    price_in: float | None = None
    price_out: float | None = None

    @property
    def priced(self) -> bool:
        return self.price_in is not None and self.price_out is not None


def endpoint_from_env(env: Mapping[str, str], what: str = "the LLM forecaster") -> Endpoint:
    """Read the PRESCIENT_LLM_* variables; without an API key ``what`` is off (ConfigError)."""
    key = env.get("PRESCIENT_LLM_API_KEY", "").strip()
    if not key:
        raise ConfigError(
            f"{what} is off: set PRESCIENT_LLM_API_KEY (and PRESCIENT_LLM_BASE_URL for an endpoint other than {DEFAULT_BASE_URL}) to run it"
        )
    return Endpoint(
        key,
        env.get("PRESCIENT_LLM_BASE_URL", "").strip().rstrip("/") or DEFAULT_BASE_URL,
        price(env, "PRESCIENT_LLM_PRICE_IN"),
        price(env, "PRESCIENT_LLM_PRICE_OUT"),
    )


def price(env: Mapping[str, str], name: str) -> float | None:
    raw = env.get(name, "").strip()
    try:
        return float(raw) if raw else None
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number (USD per million tokens)") from None


def cost_usd(tokens_in: int | None, tokens_out: int | None, endpoint: Endpoint) -> float | None:
    """What one call cost at the endpoint's prices; None when a count or a price is unknown."""
    if tokens_in is None or tokens_out is None or endpoint.price_in is None or endpoint.price_out is None:
        return None
    return round((tokens_in * endpoint.price_in + tokens_out * endpoint.price_out) / 1e6, 8)


def request_body(model: str, prompt: str) -> dict:
    return {"model": model, "messages": [{"role": "user", "content": prompt}]}


@dataclass(frozen=True)
class Completion:
    """A chat-completions answer as read: its text, whether the endpoint flagged a refusal, the token
    counts, and ``malformed`` with a ``detail`` when the payload has no ``choices[0].message``."""

    content: str = ""
    refused: bool = False
    tokens_in: int | None = None
    tokens_out: int | None = None
    malformed: bool = False
    detail: str = ""


def read_completion(payload: Any) -> Completion:
    """Turn a chat-completions response into a Completion; never raises on odd shapes."""
    try:
        choice = payload["choices"][0]
        message = choice.get("message") or {}
    except (KeyError, IndexError, TypeError, AttributeError):
        return Completion(malformed=True, detail="the response has no choices[0].message")
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    tokens_in, tokens_out = _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
    content = message.get("content") if isinstance(message, dict) else None
    content = content if isinstance(content, str) else ""
    if isinstance(message, dict) and (message.get("refusal") or choice.get("finish_reason") == "content_filter"):
        return Completion(str(message.get("refusal") or content).strip(), True, tokens_in, tokens_out, detail="the endpoint flagged a refusal")
    return Completion(content, False, tokens_in, tokens_out)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


REFUSAL = re.compile(
    r"\b(?:I\s*(?:can(?:no|['’])t|cannot|won['’]t|will\s+not|am\s+(?:not\s+able|unable)|['’]m\s+(?:not\s+able|unable))"
    r"|unable\s+to\s+(?:provide|give|make|predict|forecast|assign)|as\s+an\s+AI)\b",
    re.I,
)


def looks_like_refusal(text: str) -> bool:
    """True when an answer reads as a refusal ("I can't predict...", "As an AI...")."""
    return REFUSAL.search(text) is not None


@dataclass(frozen=True)
class CallOptions:
    """How calls are made: in flight at once, retries with their backoff, one request's timeout."""

    concurrency: int = 4
    retries: int = 3
    backoff: float = 1.0
    timeout: float = 120.0


Post = Callable[[dict], Any]


@contextmanager
def chat(endpoint: Endpoint, options: CallOptions, client: httpx.Client | None = None, sleep: Callable[[float], None] = time.sleep) -> Iterator[Post]:
    """A ``post(body) -> payload`` for the endpoint's chat completions, over ``client`` (or one
    opened for ``options``); a call that fails for good raises ``sources.http.FetchError``."""
    headers = {"Authorization": f"Bearer {endpoint.api_key}"}
    limiter, url = RateLimiter(None), f"{endpoint.base_url}/chat/completions"
    with client_for(client, {"concurrency": options.concurrency, "timeout": options.timeout}) as http_client:

        def post(body: dict) -> Any:
            payload, _ = post_json(
                http_client, url, body, headers=headers, retries=options.retries, backoff=options.backoff, sleep=sleep, throttle=limiter.wait
            )
            return payload

        yield post
