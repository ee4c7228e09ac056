"""A streamed text body cut into lines and CSV records as chunks arrive, so neither the sync
nor the async reader holds the whole body (see :mod:`._binary_response`)."""

from __future__ import annotations

import csv
from collections import deque
from collections.abc import Iterator

__all__ = ["BOM", "LineSplitter", "RecordParser", "split_lines", "strip_bom"]

BOM = "\ufeff"


def strip_bom(chunks: Iterator[str]) -> Iterator[str]:
    for text in chunks:
        if text:
            yield text.removeprefix(BOM)
            break
    yield from chunks


class LineSplitter:
    """Cuts text chunks at ``\\n`` (kept, so ``csv`` sees real line ends); linear in the input."""

    def __init__(self) -> None:
        self._tail = ""

    def feed(self, text: str) -> list[str]:
        parts = (self._tail + text).split("\n")
        self._tail = parts.pop()
        return [part + "\n" for part in parts]

    def finish(self) -> list[str]:
        tail, self._tail = self._tail, ""
        return [tail] if tail else []


def split_lines(chunks: Iterator[str]) -> Iterator[str]:
    splitter = LineSplitter()
    for text in chunks:
        yield from splitter.feed(text)
    yield from splitter.finish()


class RecordParser:
    """Feeds ``csv.reader`` whole records only, so it can be driven from an async loop."""

    def __init__(self) -> None:
        self._queue: deque[str] = deque()
        self._pending: list[str] = []
        self._quotes = 0
        self._reader = csv.reader(self)

    def __iter__(self) -> RecordParser:
        return self

    def __next__(self) -> str:
        if not self._queue:
            raise StopIteration
        return self._queue.popleft()

    def feed(self, lines: list[str]) -> list[list[str]]:
        """Rows of every record completed by ``lines``; an open quoted field waits for more."""
        quotes, complete = self._quotes, -1
        for index, line in enumerate(lines):
            quotes += line.count('"')
            if not quotes % 2:
                complete = index
        if complete < 0:
            self._pending.extend(lines)
            self._quotes = quotes
            return []
        self._queue.extend(self._pending)
        self._queue.extend(lines[: complete + 1])
        self._pending = lines[complete + 1 :]
        self._quotes = sum(line.count('"') for line in self._pending)
        return [row for row in self._reader if row]

    def finish(self) -> list[list[str]]:
        self._queue.extend(self._pending)
        self._pending, self._quotes = [], 0
        return [row for row in self._reader if row]
