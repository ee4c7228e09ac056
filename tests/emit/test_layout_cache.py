"""Long statements broken once and answered from the run state after: the same text as breaking
them again, a statement the cache does not hold broken afresh, an entry this installation did not
sign (or one that is damaged) never used, and a run that broke nothing new writes nothing."""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any

import pytest

from generator.document import parsed_cache
from generator.emit import layout, layout_cache
from tests.helpers import own_project, refuse_calls

CALL = "result = client.payments.create(" + ", ".join(f"arg{i}=value{i}" for i in range(12)) + ")"
FIELD = 'name: Annotated[str | None, Field(description="' + "word " * 20 + '")] = None'
ITEM = "items: list[" + " | ".join(f"Choice{i}" for i in range(12)) + "] | None = None"


@pytest.fixture(autouse=True)
def run_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project of its own: its run state is ``.cache/cube-codegen`` under ``tmp_path``."""
    state = own_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    return state / layout_cache.FOLDER


def one_run(package: str = "pkg") -> list[str]:
    layout_cache.begin(package)
    out = [
        layout_cache.fit(CALL, 4),
        layout_cache.fit(FIELD, 4),
        layout_cache.fit_item(ITEM, 8, kind="param"),
        layout_cache.fit("x = 1", 4),  # fits: never kept
    ]
    layout_cache.finish(package)
    return out


def refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    refuse_calls(monkeypatch, "broken again", (layout, "fit"), (layout, "fit_item"))


def test_statements_are_broken_once_and_read_back_the_same(
    run_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = one_run()
    assert first == [
        layout.fit(CALL, 4),
        layout.fit(FIELD, 4),
        layout.fit_item(ITEM, 8, kind="param"),
        "x = 1",
    ]
    assert "\n" in first[0] and "\n" in first[1]  # long enough to be broken
    assert len(list(run_state.glob("*" + layout_cache.SUFFIX))) == 1
    refuse(monkeypatch)

    def no_store(*args: Any) -> None:
        raise AssertionError("nothing new, yet written")

    monkeypatch.setattr(parsed_cache, "store_payload", no_store)
    assert one_run() == first  # every statement answered from the run state


def test_another_package_or_a_new_statement_is_broken_afresh(run_state: Path) -> None:
    one_run("pkg")
    layout_cache.begin("other")  # another package's run knows nothing of pkg's
    calls: list[str] = []
    real = layout.fit

    def counted(statement: str, indent: int = 0, *, width: int = layout.LINE_LENGTH) -> str:
        calls.append(statement)
        return real(statement, indent, width=width)

    layout.fit = counted  # type: ignore[assignment]
    try:
        assert layout_cache.fit(CALL, 4) == real(CALL, 4)
        assert layout_cache.fit(CALL, 8) == real(CALL, 8)  # another indent: another entry
    finally:
        layout.fit = real  # type: ignore[assignment]
        layout_cache.finish("other")
    assert calls == [CALL, CALL]
    assert len(list(run_state.glob("*" + layout_cache.SUFFIX))) == 2


@pytest.mark.parametrize("damage", ["unsigned", "torn"])
def test_an_entry_not_signed_here_is_never_used(
    run_state: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    one_run()
    [entry] = run_state.glob("*" + layout_cache.SUFFIX)
    data = entry.read_bytes()
    mac, payload = data[:32], data[32:]
    form, entries = marshal.loads(payload)
    injected = [(*e[:4], "import os; os.system('echo injected')") for e in entries]
    forged = marshal.dumps((form, injected))
    entry.write_bytes(mac + forged if damage == "unsigned" else data[: len(data) // 2])
    assert one_run() == [
        layout.fit(CALL, 4),
        layout.fit(FIELD, 4),
        layout.fit_item(ITEM, 8, kind="param"),
        "x = 1",
    ]


def test_a_signed_entry_of_the_wrong_shape_is_passed_over(run_state: Path) -> None:
    """Entries are checked one by one, exact types: only a well-formed one is used."""
    good = ("statement", CALL, 4, layout.LINE_LENGTH, "kept = 1")
    wrong = [
        ("statement", CALL, 4, layout.LINE_LENGTH),  # too short
        ("statement", CALL, 4, layout.LINE_LENGTH, "x", "y"),  # too long
        ["statement", FIELD, 4, layout.LINE_LENGTH, "a list, not a tuple"],
        ("statement", FIELD, "4", layout.LINE_LENGTH, "bad indent"),
        ("statement", FIELD, 4, True, "a boolean width"),
        ("statement", FIELD, 4.0, layout.LINE_LENGTH, "a float indent"),
        (7, FIELD, 4, layout.LINE_LENGTH, "a number kind"),
        ("param", ITEM, 8, layout.LINE_LENGTH, 5),  # a number for the broken text
        {"statement": CALL},
        "statement",
    ]
    layout_cache.begin("pkg")
    key = layout_cache._name("pkg")

    def kept(payload: bytes) -> None:
        parsed_cache.store_payload(key, payload, layout_cache.FOLDER, layout_cache.SUFFIX)
        layout_cache.begin("pkg")

    kept(marshal.dumps((layout_cache._FORMAT, [*wrong, good])))
    assert layout_cache.fit(CALL, 4) == "kept = 1"  # the good entry, from the cache
    assert layout_cache.fit(FIELD, 4) == layout.fit(FIELD, 4)  # broken afresh
    assert layout_cache.fit_item(ITEM, 8, kind="param") == layout.fit_item(ITEM, 8, kind="param")
    for payload in (  # signed, but not entries of this format: none used
        marshal.dumps(("cube-codegen layout 1", [good])),
        marshal.dumps([good]),
        b"\xff\x00 not marshal data",
    ):
        kept(payload)
        assert layout_cache._known == {}
    layout_cache.finish("pkg")


def test_a_forked_child_hands_back_numbers_and_its_new_statements(
    run_state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child forked after begin() names the entries it read by number and sends only what it
    broke itself; the parent keeps both with its own, so the next run breaks nothing."""
    import os
    import pickle

    one_run()  # CALL, FIELD and ITEM kept
    fresh = "other = client.things.update(" + ", ".join(f"k{i}=v{i}" for i in range(12)) + ")"
    layout_cache.begin("pkg")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: one statement read, one broken afresh
        os.close(read)
        layout_cache.fit(CALL, 4)
        layout_cache.fit(fresh, 4)
        with os.fdopen(write, "wb") as out:
            pickle.dump(layout_cache.used(), out)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as incoming:
        child = pickle.load(incoming)
    os.waitpid(pid, 0)
    numbers, made, new = child
    assert new and len(numbers) == 1 and [e[1] for e in made] == [fresh]
    layout_cache.fit_item(ITEM, 8, kind="param")  # the parent's own, read
    layout_cache.finish("pkg", child)
    refuse(monkeypatch)
    layout_cache.begin("pkg")
    kept = [
        layout_cache.fit(CALL, 4),
        layout_cache.fit_item(ITEM, 8, kind="param"),
        layout_cache.fit(fresh, 4),
    ]
    assert all("\n" in text for text in kept)  # every one answered from the run state
    assert len(layout_cache._known) == 3  # FIELD, used by no one, was not kept
    layout_cache.finish("pkg")
