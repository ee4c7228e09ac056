"""Documents known valid: the OpenAPI object model's verdict kept between runs.

Validating a document against the OpenAPI object model costs a run about a tenth of a second
of processor time, most of it importing the model (done in a forked child beside the IR build,
but on a busy machine every core is shared). A run whose documents were all found valid with
nothing to work around records that verdict in the private run state (``valid/``), keyed by
the run's spec hash (a sha256 of the configuration and every final document, see
:func:`generator.pipeline.spec_hash`) and by the validator (the versions of the model and
pydantic, and our validation code); a later run of the same documents builds without
validating. An entry is signed like the parsed documents (:mod:`.parsed_cache`): one this
installation did not sign is not believed. Only a verdict of "valid, nothing worked around" is
kept: a document with a workaround is validated on every run, as it always was.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from pathlib import Path

from generator.document import parsed_cache

FOLDER = "valid"  # in the run state
_FORMAT = b"cube-codegen valid documents 1\0"
_VALIDATORS = ("openapi_pydantic", "pydantic", "pydantic_core")


def known(digest: str) -> bool:
    """Whether the documents of spec hash ``digest`` were found valid, nothing worked around."""
    return parsed_cache.load(_name(digest), FOLDER) is True


def remember(digest: str) -> None:
    """Record that the documents of spec hash ``digest`` are valid with nothing worked around."""
    parsed_cache.store(_name(digest), True, FOLDER)


def _name(digest: str) -> str:
    return hashlib.sha256(_FORMAT + _settings() + b"\0" + digest.encode()).hexdigest()


@functools.cache
def _settings() -> bytes:
    """The validator: its distributions' versions (from the ``*.dist-info`` names on
    ``sys.path``, without importing them) and our validation code."""
    versions = []
    for entry in sys.path:
        versions += parsed_cache.dist_infos(entry, lambda n: n.split("-")[0] in _VALIDATORS)
    here = Path(__file__).parent
    code = b"".join((here / n).read_bytes() for n in ("validate.py", "openapi_paths.py"))
    return ("\n".join(versions) + "\n" + hashlib.sha256(code).hexdigest()).encode()
