"""Which of an operation's media types a client uses, and what kind of body that is."""

from __future__ import annotations

from typing import TypeVar

from generator.ir.types import BodyKind, ResponseKind

_K = TypeVar("_K", bound=str)

FORM_MEDIA = "application/x-www-form-urlencoded"
BODY_KINDS: tuple[tuple[str, BodyKind], ...] = (
    ("json", "json"),
    (FORM_MEDIA, "form"),
    ("multipart/", "multipart"),
    ("text/", "text"),
    ("", "binary"),
)
RESPONSE_KINDS: tuple[tuple[str, ResponseKind], ...] = (
    ("json", "json"),
    ("text/event-stream", "event-stream"),
    ("text/csv", "binary"),
    ("text/", "text"),
    ("", "binary"),
)


def pick_media(media_types: list[str], kinds: tuple[tuple[str, _K], ...]) -> tuple[str, _K]:
    """Pick the media type a client should use: JSON first, then by the kind table's order."""
    for needle, kind in kinds:
        for media in media_types:
            m = media.lower().split(";")[0].strip()
            if needle == "json" and (m == "application/json" or m.endswith("+json") or m == "*/*"):
                return media, kind
            if needle != "json" and needle in m:
                return media, kind
    return media_types[0], kinds[-1][1]


def response_kind(media: str) -> ResponseKind:
    return pick_media([media], RESPONSE_KINDS)[1]
