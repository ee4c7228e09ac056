"""The base of every generated resource class: the client it sends through, and its own names.

The generator reads the public names of this module's classes (and of the clients in
``_base_client``) when it names resources and operations: an operation called like one of them is
renamed instead of shadowing it, so this file is the one list of names generated code may not take.
"""

from __future__ import annotations

from ._base_client import AsyncAPIClient, SyncAPIClient


class SyncAPIResource:
    """Operations of one tag, sent through a :class:`SyncAPIClient`."""

    def __init__(self, client: SyncAPIClient) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> object:
        """The same methods, returning the HTTP response; each resource narrows the type."""
        raise NotImplementedError

    @property
    def with_streaming_response(self) -> object:
        """The same methods, as context managers over the unread response."""
        raise NotImplementedError


class AsyncAPIResource:
    """Operations of one tag, sent through an :class:`AsyncAPIClient`."""

    def __init__(self, client: AsyncAPIClient) -> None:
        self._client = client

    @property
    def with_raw_response(self) -> object:
        """The same methods, returning the HTTP response; each resource narrows the type."""
        raise NotImplementedError

    @property
    def with_streaming_response(self) -> object:
        """The same methods, as context managers over the unread response."""
        raise NotImplementedError
