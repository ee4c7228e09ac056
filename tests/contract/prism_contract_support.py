"""Support for the contract tests: the families under test, Prism's life cycle, coverage.

Prism is the pinned one (``tools/package.json``, installed into ``.tools/`` by ``make``); one node
process serves every document of one mode, each on its own port (``prism_hub.cjs``). It runs in
its own process group, which is always killed as a whole; a Prism that exits or does not accept
connections within :data:`START_TIMEOUT` per document fails with the tail of its output.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import datetime
import importlib
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from generator.document.config import load_config
from generator.emit.testcases import CaseBuilder, TestCase
from generator.ir.build import FamilyBuilder
from generator.pipeline import load_family
from tests.contract.contract_coverage import FAMILIES
from tests.helpers import ROOT, ensure_generated_importable

ensure_generated_importable()

PRISM = ROOT / ".tools" / "node_modules" / ".bin" / "prism"
PRISM_DIST = ROOT / ".tools" / "node_modules" / "@stoplight" / "prism-cli" / "dist"
# the documents of one mode served by one node process (see the file)
HUB = Path(__file__).with_name("prism_hub.cjs")
HOST = "127.0.0.1"
START_TIMEOUT = 60.0
# Dynamic responses come from json-schema-faker; a fixed seed makes a failure reproducible.
SEED = os.environ.get("CUBE_PRISM_SEED", "cube-codegen")
CREDENTIAL = "contract-test-credential"

_LIVE: dict[int, subprocess.Popen[bytes]] = {}


@dataclass
class ContractFamily:
    """One API family: its final document, generated client classes and per-operation cases."""

    name: str
    document: dict[str, Any]
    models: ModuleType
    client_class: type[Any]
    async_client_class: type[Any]
    auth_param: str | None
    cases: list[TestCase]

    def namespace(self) -> dict[str, Any]:
        """Where the case builder's argument sources are evaluated (our own expressions)."""
        return {"_models": self.models, "datetime": datetime}

    def client_kwargs(self, base_url: str) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            # Prism serves the document's paths at its root: a base URL with a path ("/") is used
            # as given, where a bare origin would get the server's own base path appended.
            "base_url": base_url.rstrip("/") + "/",
            "allow_http_loopback": True,
            "max_retries": 0,
        }
        if self.auth_param:
            kwargs[self.auth_param] = CREDENTIAL
        return kwargs


@dataclass
class PrismServer:
    family: ContractFamily
    mode: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def key(self) -> tuple[str, str]:
        return (self.family.name, self.mode)

    @property
    def base_url(self) -> str:
        # Prism routes on the document's paths alone and ignores the server URL's path (the data
        # API's `/cubejs-api` base path, the chat API's `/api/v1/public/{accountName}/...`):
        # `GET /cubejs-api/v1/meta` is NO_PATH_MATCHED, `GET /v1/meta` is served. So the client's
        # base URL is the bare origin.
        return f"http://{HOST}:{self.port}"

    def log_size(self) -> int:
        return self.log.stat().st_size

    def log_since(self, offset: int, limit: int = 4000) -> str:
        with self.log.open("rb") as f:
            f.seek(offset)
            text = f.read().decode("utf-8", "replace")
        return text if len(text) <= limit else "...\n" + text[-limit:]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _tail(path: Path, lines: int = 30) -> str:
    """The last lines of Prism's output, after any fatal or error line scrolled out of them."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "(no output)"
    tail = text[-lines:]
    earlier = [ln for ln in text[:-lines] if "fatal" in ln or "error" in ln.lower()][-10:]
    return "\n".join([*earlier, "...", *tail] if earlier else tail) or "(no output)"


def stop_prism(process: subprocess.Popen[bytes]) -> None:
    """Stop Prism and everything it started (its own process group); never raises."""
    _LIVE.pop(process.pid, None)
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=wait)
    # The leader has exited; make sure no member of its group outlived it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


@atexit.register
def _stop_all() -> None:  # a last resort when the session ends without running finalizers
    for process in list(_LIVE.values()):
        stop_prism(process)


def start_prism(
    documents: list[Path], mode: str, log: Path
) -> tuple[list[int], subprocess.Popen[bytes]]:
    """Start one Prism process serving each of ``documents`` on its own port (:data:`HUB`: the
    server ``prism mock DOCUMENT`` starts, for each, with the CLI's start-up paid once) and wait
    (bounded) until every port accepts; a failure names Prism's output."""
    if not PRISM.exists():
        pytest.fail(
            f"Prism is not installed at {PRISM}: run `make .tools/.installed` "
            "(npm ci of tools/package-lock.json into .tools/)",
            pytrace=False,
        )
    for _attempt in range(3):
        ports = [_free_port() for _ in documents]
        served = [str(part) for pair in zip(documents, ports, strict=True) for part in pair]
        command = ["node", str(HUB), str(PRISM_DIST), mode, SEED, HOST, *served]
        with log.open("wb") as out:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _LIVE[process.pid] = process
        deadline = time.monotonic() + START_TIMEOUT * len(documents)
        waiting = list(ports)
        while waiting and time.monotonic() < deadline:
            code = process.poll()
            if code is not None:
                stop_prism(process)
                if "EADDRINUSE" in _tail(log):  # lost the race for a free port: retry
                    break
                pytest.fail(
                    f"Prism ({' '.join(command[2:])}) exited with code {code} before listening;"
                    f" output tail:\n{_tail(log)}",
                    pytrace=False,
                )
            with contextlib.suppress(OSError), socket.create_connection((HOST, waiting[0]), 0.5):
                waiting.pop(0)
                continue
            time.sleep(0.2)
        else:
            if not waiting:
                return ports, process
            stop_prism(process)
            pytest.fail(
                f"Prism ({' '.join(command[2:])}) did not accept connections on port "
                f"{waiting[0]} within {START_TIMEOUT * len(documents):.0f} s; output tail:\n"
                f"{_tail(log)}",
                pytrace=False,
            )
    pytest.fail(f"Prism could not bind free ports; output tail:\n{_tail(log)}", pytrace=False)


def for_prism(document: dict[str, Any]) -> dict[str, Any]:
    """The document as Prism is given it: a JSON answer the document declares without a schema
    (any JSON value) gets the empty schema that says so, since Prism's dynamic mode refuses to
    answer a media type without one (500 "schema is not defined"). Nothing else changes."""
    out = copy.deepcopy(document)
    for item in (out.get("paths") or {}).values():
        for operation in item.values() if isinstance(item, dict) else ():
            responses = operation.get("responses") if isinstance(operation, dict) else None
            for response in (responses or {}).values():
                content = response.get("content") if isinstance(response, dict) else None
                for media_type, media in (content or {}).items():
                    if "json" in media_type and isinstance(media, dict) and "schema" not in media:
                        media["schema"] = {}
    _non_null_members(out)
    return out


def _non_null_members(node: Any) -> None:
    """``oneOf: [{}, {type: null}]`` means "any value but null" (null would match both members);
    Prism's faker crashes on the empty member, so it is spelt ``{not: {type: null}}``."""
    if isinstance(node, list):
        for value in node:
            _non_null_members(value)
    elif isinstance(node, dict):
        for key in ("oneOf", "anyOf"):
            members = node.get(key)
            if isinstance(members, list) and {"type": "null"} in members:
                node[key] = [{"not": {"type": "null"}} if m == {} else m for m in members]
        for value in node.values():
            _non_null_members(value)


def load_families() -> dict[str, ContractFamily]:
    """Every family: its document after overlays, its IR's test cases and generated classes."""
    config = load_config(ROOT / "spec" / "cube-codegen.yaml")
    out: dict[str, ContractFamily] = {}
    for fam in config.families:
        loaded = load_family(config, fam)
        ir = FamilyBuilder(loaded.document, loaded.file, loaded.config).build()
        package = importlib.import_module(f"cube_client.{fam.module}")
        out[fam.name] = ContractFamily(
            name=fam.name,
            document=loaded.document,
            models=importlib.import_module(f"cube_client.{fam.module}.models"),
            client_class=getattr(package, f"{fam.client}Client"),
            async_client_class=getattr(package, f"Async{fam.client}Client"),
            auth_param=fam.auth.param if fam.auth else None,
            cases=[c for cases in CaseBuilder(ir).cases().values() for c in cases],
        )
    assert set(out) == set(FAMILIES), f"families changed: {sorted(out)}; update FAMILIES"
    return out
