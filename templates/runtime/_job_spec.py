"""Where a job keeps its id, status, error and expiry, and how they are read off a parsed
response (a model's attribute or a mapping's key): shared by the job handles of ``_jobs``."""

from __future__ import annotations

import datetime
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["JobSpec", "field_text", "read_field", "to_datetime"]


@dataclass(frozen=True)
class JobSpec:
    """Where a job keeps its id, status, error and expiry (from the document's ``x-cube-job``).

    Names are model attribute names (``job_id``) for responses with a model, else JSON keys.
    """

    id_field: str = "jobId"
    status_field: str = "status"
    success_values: tuple[str, ...] = ("completed",)
    failure_values: tuple[str, ...] = ("failed",)
    error_field: str | None = "error"
    expires_field: str | None = "expiresAt"


def read_field(obj: object, name: str | None) -> Any:
    """A field of a parsed response: an attribute of a model (the generator resolved the name),
    or a key of a mapping when the response has no model."""
    if obj is None or not name:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def field_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, enum.Enum):
        value = value.value
    return str(value)


def to_datetime(value: object) -> datetime.datetime | None:
    """An aware datetime from a datetime, an ISO 8601 string or epoch seconds/milliseconds."""
    when: datetime.datetime | None = None
    if isinstance(value, datetime.datetime):
        when = value
    elif isinstance(value, str) and value:
        try:
            when = datetime.datetime.fromisoformat(value)
        except ValueError:
            return None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else value
        when = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    if when is not None and when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when
