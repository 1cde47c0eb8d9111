"""UTC timestamps: one parser and one formatter, so every file spells time the same way."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta


def parse_ts(text: str) -> datetime:
    """Parse an ISO-8601 timestamp or date into an aware UTC datetime.

    A naive value is rejected: a deadline must never depend on the reader's time zone.
    """
    raw = text.strip()
    if len(raw) == 10:
        return datetime.combine(date.fromisoformat(raw), time(), tzinfo=UTC)
    value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    if value.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone; write it in UTC with a trailing Z")
    return value.astimezone(UTC)


def is_iso_date(text: str) -> bool:
    """True for a real calendar date written exactly as YYYY-MM-DD."""
    if len(text) != 10 or not text[:4].isdigit() or text[4] != "-" or text[7] != "-":
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def format_ts(value: datetime) -> str:
    """``2026-11-22T00:00:00Z``: second precision, always UTC."""
    return value.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_date(value: datetime | date) -> str:
    return value.strftime("%Y-%m-%d")


def day_start(value: datetime) -> datetime:
    return datetime.combine(value.astimezone(UTC).date(), time(), tzinfo=UTC)


def days(n: float) -> timedelta:
    return timedelta(days=n)
