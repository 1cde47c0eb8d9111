"""Calling an OpenAI-compatible chat endpoint, shared by every part of the hub that asks an LLM
(the LLM forecaster, the oracle's question maker and answerer).

- ``endpoint``: ``Endpoint`` from ``PRESCIENT_LLM_*`` (key, base URL, prices), ``chat`` (one POST
  through ``sources.http``: retries, deadline, size cap), ``read_completion`` (text, refusal,
  token counts; never raises) and ``cost_usd``;
- ``templates``: prompt templates (jinja2 files, plain text) and their sha256;
- ``session``: a run of calls with a ``Budget``, each recorded in an append-only JSONL log
  (``store.calllog``) that is the run's resume state (``settled``).
"""

from .endpoint import CallOptions, Completion, Endpoint, chat, cost_usd, endpoint_from_env, read_completion, request_body
from .session import ANSWERED, Budget, NightStage, Reply, RunReport, Session, session, settled
from .templates import Templates, prompt_sha256

__all__ = [
    "ANSWERED",
    "Budget",
    "NightStage",
    "RunReport",
    "CallOptions",
    "Completion",
    "Endpoint",
    "Reply",
    "Session",
    "Templates",
    "chat",
    "cost_usd",
    "endpoint_from_env",
    "prompt_sha256",
    "read_completion",
    "request_body",
    "session",
    "settled",
]
