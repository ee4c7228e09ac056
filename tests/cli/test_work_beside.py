"""Work in a forked child (generator/beside.py) makes a run faster, never different: the value
comes back, a failed child is replaced by the work done here, the child dies with its parent,
and a generation gives the same files, warnings and errors with and without it.

Each case runs in a fresh interpreter: a pytest worker runs more than one thread, and then no
child is ever forked (by design)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_cli

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="children are forked on Linux only")


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


WHO = """
import os, json
from generator.beside import Beside
parent = os.getpid()
with Beside(lambda: ("child", os.getpid(), os.getppid())) as b:
    forked = b.forked
    value = b.result()
    again = b.result()
print(json.dumps({"parent": parent, "forked": forked, "value": value, "same": value == again}))
"""


def test_the_value_comes_from_a_child_process() -> None:
    out = json.loads(_python(WHO).stdout)
    assert out["forked"] is True
    kind, pid, its_parent = out["value"]
    assert kind == "child" and pid != out["parent"] and its_parent == out["parent"]
    assert out["same"]


def test_no_child_when_told_so_or_when_threads_run() -> None:
    out = json.loads(_python(WHO, CUBE_CODEGEN_NO_FORK="1").stdout)
    assert out["forked"] is False and out["value"][1] == out["parent"]
    threaded = "import threading, time\nthreading.Thread(target=time.sleep, args=(2,)).start()\n"
    out = json.loads(_python(threaded + WHO).stdout)
    assert out["forked"] is False and out["value"][1] == out["parent"]


def test_a_failed_child_is_replaced_by_the_work_done_here() -> None:
    code = """
import os, json, signal
from generator.beside import Beside
parent = os.getpid()
def work():
    if os.getpid() != parent:
        raise RuntimeError("the child fails")
    return "here"
def killed():
    if os.getpid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
    return "here too"
with Beside(work) as a, Beside(killed) as b, Beside(work, here=lambda: "stand-in") as c:
    print(json.dumps([a.forked, a.result(), b.result(), c.result()]))
"""
    proc = _python(code)
    assert json.loads(proc.stdout) == [True, "here", "here too", "stand-in"], proc.stderr


def test_a_stopped_child_is_killed_at_its_deadline_and_the_work_done_here() -> None:
    """A child that never answers (SIGSTOP) costs the run its deadline, never a hang."""
    code = """
import os, json, signal, time
from generator.beside import Beside
parent = os.getpid()
def work():
    if os.getpid() != parent:
        os.kill(os.getpid(), signal.SIGSTOP)
    return os.getpid()
started = time.monotonic()
with Beside(work) as b:
    child, forked = b._pid, b.forked
    value = b.result()
waited = time.monotonic() - started
try:
    os.kill(child, 0)
    gone = False
except ProcessLookupError:
    gone = True
print(json.dumps([forked, value == parent, gone, waited]))
"""
    proc = _python(code, CUBE_CODEGEN_CHILD_DEADLINE="0.5")
    forked, here, gone, waited = json.loads(proc.stdout)
    assert [forked, here, gone] == [True, True, True], proc.stderr
    assert 0.5 <= waited < 10


LARGE = """
import fcntl, hashlib, json, os, signal
from generator.beside import PIPE_BYTES, Beside
parent = os.getpid()
how = os.environ["ENDING"]  # whole, killed or stopped


class Ending:
    \"\"\"Pickled last, after megabytes were sent: in the child, ends it (how) part-way.\"\"\"

    def __reduce__(self):
        if os.getpid() != parent and how != "whole":
            os.kill(os.getpid(), signal.SIGKILL if how == "killed" else signal.SIGSTOP)
        return (str, ("end",))


def work():
    who = "child" if os.getpid() != parent else "here"
    return [who, *(f"{i:07d}" * 100_000 for i in range(8)), Ending()]  # 5.6 MB, then the end


with Beside(work) as b:
    forked, size = b.forked, fcntl.fcntl(b._fd, fcntl.F_GETPIPE_SZ)
    value = b.result()
limit = int(open("/proc/sys/fs/pipe-max-size").read())
body = "".join(value[1:-1]).encode()
print(json.dumps([forked, size >= min(PIPE_BYTES, limit), value[0], len(body),
                  hashlib.sha256(body).hexdigest(), type(value[-1]).__name__]))
"""


@pytest.mark.parametrize(
    ("how", "who", "last", "deadline"),
    [
        ("whole", "child", "str", "60"),
        ("killed", "here", "Ending", "60"),
        ("stopped", "here", "Ending", "1"),
    ],
)
def test_a_value_larger_than_the_pipe_arrives_whole_or_not_at_all(
    how: str, who: str, last: str, deadline: str
) -> None:
    """Unpickled as it arrives: a child that dies, or stops, after sending megabytes of its
    value gives way to the work done here (the stopped one at its deadline), never to part of
    a value."""
    proc = _python(LARGE, ENDING=how, CUBE_CODEGEN_CHILD_DEADLINE=deadline)
    assert proc.returncode == 0, proc.stderr
    forked, enlarged, source, length, digest, end = json.loads(proc.stdout)
    body = "".join(f"{i:07d}" * 100_000 for i in range(8)).encode()
    assert [forked, enlarged, source, end] == [True, True, who, last], proc.stderr
    assert (length, digest) == (len(body), hashlib.sha256(body).hexdigest())


def test_the_deadline_knob(monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.beside import DEADLINE, DEADLINE_ENV, deadline

    assert DEADLINE <= 60
    for value, expected in (("2.5", 2.5), ("", DEADLINE), ("0", DEADLINE), ("x", DEADLINE)):
        monkeypatch.setenv(DEADLINE_ENV, value)
        assert deadline() == expected


def test_the_child_dies_with_its_parent(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    code = f"""
import os, time
from generator.beside import Beside
def work():
    open({str(pid_file)!r}, "w").write(str(os.getpid()))
    time.sleep(60)
with Beside(work) as b:
    time.sleep(60)
"""
    proc = subprocess.Popen(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline, "the child never started"
        time.sleep(0.05)
    child = int(pid_file.read_text())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while Path(f"/proc/{child}").exists() and "Z" not in _state(child):
        assert time.monotonic() < deadline, "the child outlived its parent"
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def _document(items: object, title: object) -> dict[str, object]:
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": "1"},
        "paths": {
            "/pairs/{id}": {
                "get": {
                    "operationId": "getPair",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Pair"}
                                }
                            },
                        }
                    },
                }
            }
        },
        "components": {"schemas": {"Pair": {"type": "array", "items": items}}},
    }


@pytest.mark.parametrize(
    ("items", "title"),
    [
        ({"type": "string"}, "Pairs"),  # valid: the child's verdict lets the build stand
        ([{"type": "string"}, {"type": "integer"}], "Pairs"),  # worked around: validated first
        ({"type": "string"}, 5),  # invalid: the same error either way
    ],
    ids=["valid", "repaired", "invalid"],
)
def test_generation_is_the_same_with_and_without_a_child(
    tmp_path: Path, items: object, title: object
) -> None:
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(_document(items, title)), encoding="utf-8")
    results = []
    for name, env in (("forked", {}), ("serial", {"CUBE_CODEGEN_NO_FORK": "1"})):
        args = ["generate", "--spec", str(spec), "--package", "pairs", "--out", name]
        args += ["--report", f"{name}.json"]
        proc = run_cli(*args, cwd=tmp_path, env=env)  # a process of its own: one thread
        out = tmp_path / name
        files = {
            p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*"))
            if p.is_file()
        }
        report = tmp_path / f"{name}.json"
        diagnostics = json.loads(report.read_text())["diagnostics"] if report.exists() else None
        results.append((proc.returncode, proc.stderr, files, diagnostics))
    assert results[0] == results[1]
    code, stderr, files, diagnostics = results[0]
    if title == 5:
        assert code == 2 and "#/info/title: error: must be a string" in stderr and not files
    else:
        assert code == 0 and "pairs/models.py" in files and diagnostics is not None
        repaired = [d for d in diagnostics if d["id"] == "openapi-repaired"]
        assert len(repaired) == (1 if isinstance(items, list) else 0)


def test_tickets_go_once_each_to_whichever_process_asks() -> None:
    """A parent and its child take numbers from one dispenser at once: every number is taken,
    none twice; the limit is refused, and an empty dispenser hands out nothing."""
    code = """
import json
from generator.beside import Beside, Tickets
def take_all(tickets):
    got = []
    while (n := tickets.take()) is not None:
        got.append(n)
    return got
with Tickets(255) as tickets, Beside(lambda: take_all(tickets)) as child:
    forked = child.forked
    mine = take_all(tickets)
    theirs = child.result()
try:
    Tickets(256)
    refused = False
except ValueError:
    refused = True
with Tickets(0) as none:
    empty = none.take()
print(json.dumps([forked, mine, theirs, refused, empty]))
"""
    proc = _python(code)
    forked, mine, theirs, refused, empty = json.loads(proc.stdout)
    assert forked and refused and empty is None, proc.stderr
    assert sorted(mine + theirs) == list(range(255))


RENDER_CHILD_DIES = """
import hashlib, os, signal, sys, time
from pathlib import Path
from generator import pipeline
import generator.emit.package as package
parent, marker = os.getpid(), Path(sys.argv[2])
render_module, render_family = package._render_module, package._render_family
def module(*args):
    if os.getpid() != parent:  # the child dies on the first chunk it took
        marker.write_text("taken")
        os.kill(os.getpid(), signal.SIGKILL)
    return render_module(*args)
def family(*args):
    deadline = time.monotonic() + 60
    while os.environ.get("CUBE_CODEGEN_NO_FORK") is None and not marker.exists():
        assert time.monotonic() < deadline, "the child took no chunk"
        time.sleep(0.01)
    return render_family(*args)
package._render_module, package._render_family = module, family
config = pipeline.single_document_config(Path(sys.argv[1]), (), "things", Path("unused"))
files = pipeline.generate(config).files
print(len(files), hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest())
"""


def test_chunks_a_dead_render_child_took_are_rendered_here(tmp_path: Path) -> None:
    """The render child dies holding a chunk of classes (its own files are then made here, by
    the stand-in): the chunk is rendered here, and the files are those of a run without a child."""
    schemas = {
        f"Thing{i}": {"type": "object", "properties": {"n": {"type": "integer"}}} for i in range(40)
    }
    doc = _document({"type": "string"}, "Things")
    doc["components"]["schemas"].update(schemas)  # type: ignore[index]
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(doc), encoding="utf-8")
    args = ["-c", RENDER_CHILD_DIES, str(spec), str(tmp_path / "taken")]
    runs = []
    for env in ({}, {"CUBE_CODEGEN_NO_FORK": "1"}):
        proc = subprocess.run(
            [sys.executable, *args],
            env={**os.environ, "PYTHONPATH": str(ROOT), **env},
            capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-2000:]
        runs.append(proc.stdout.split())
    assert (tmp_path / "taken").read_text() == "taken"
    assert runs[0] == runs[1] and int(runs[0][0]) > 40
