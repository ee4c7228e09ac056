"""``cube-codegen learn``: shape records in, what the document lacks out, and with ``write``
a learned overlay in ``spec/`` and a regenerated package, as one transaction.

Each family's document is loaded with its overlays as the configuration lists them (learned ones
included), so an observation already accepted is dropped. With ``write``, the remaining ones
become actions in ``spec/overlays/<family>/learned.overlay.yaml`` (appended to the file when it
exists), the file is added to the family's ``overlays:`` in the configuration (a text edit, so
comments stay), and the package is regenerated from the staged ``spec/``; ``spec/`` and
``generated/`` are swapped in together (:class:`~generator.transaction.Transaction`).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.diagnostics import CodegenError, Diagnostic
from generator.document.config import load_config
from generator.document.loader import dump_yaml, load_document
from generator.emit.writer import stage_tree
from generator.observed.check import Finding, judge
from generator.observed.learned import FILE_NAME, actions, overlay_document
from generator.observed.project import families
from generator.observed.records import read_observations
from generator.pipeline import generate
from generator.transaction import Transaction, recover


@dataclass
class LearnResult:
    findings: list[Finding]
    written: dict[str, str] = field(default_factory=dict)  # family → overlay path (in spec/)
    actions: int = 0

    @property
    def to_learn(self) -> list[Finding]:
        return [f for f in self.findings if f.status != "accepted"]


def learn(
    config_path: Path,
    inputs: Sequence[str],
    *,
    family: str | None = None,
    write: bool = False,
    out_dir: Path | None = None,
) -> LearnResult:
    """Judge the records in ``inputs``; with ``write``, learn what remains (see the module)."""
    observations = read_observations(inputs)
    config = load_config(config_path, out_dir=out_dir)
    result = LearnResult(judge(families(config, family), observations))
    if not write or not any(f.status == "learn" for f in result.findings):
        return result
    spec_dir = config_path.resolve().parent
    recover()
    with Transaction("learn") as txn:
        staged = txn.stage(spec_dir)
        shutil.copytree(spec_dir, staged, symlinks=True, dirs_exist_ok=True)
        for name in dict.fromkeys(f.family for f in result.findings if f.status == "learn"):
            new = actions(f for f in result.findings if f.family == name)
            if not new:
                continue
            rel = _write_overlay(staged, name, new)
            _list_overlay(staged / config_path.name, str(config_path), name, rel)
            result.written[name] = str(spec_dir / rel)
            result.actions += len(new)
        files = generate(load_config(staged / config_path.name, out_dir=config.out_dir)).files
        stage_tree(txn, config.out_dir, files)
        txn.commit()
    from generator.release.update import _save_stamp

    _save_stamp(config_path, out_dir)
    return result


def _write_overlay(spec: Path, family: str, new: list[dict[str, Any]]) -> str:
    rel = f"overlays/{family}/{FILE_NAME}"
    path = spec / rel
    existing = load_document(path) if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    header = (
        "# Learned by `cube-codegen learn --write` from shape records; review before release.\n"
    )
    path.write_text(header + dump_yaml(overlay_document(existing, new)), encoding="utf-8")
    return rel


def _list_overlay(config: Path, shown: str, family: str, rel: str) -> None:
    """Add ``rel`` to the family's ``overlays:`` list in the configuration text."""
    text = config.read_text(encoding="utf-8")
    updated = add_overlay_line(text, family, rel)
    if updated is None:
        raise CodegenError(
            Diagnostic(
                "learn-failed",
                "error",
                shown,
                "/families",
                f"no family {family!r} to list {rel} under",
            )
        )
    config.write_text(updated, encoding="utf-8")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def add_overlay_line(text: str, family: str, rel: str) -> str | None:
    """``text`` with ``rel`` listed under ``family``'s overlays (unchanged when listed already);
    None when the text has no such family."""
    lines = text.splitlines(keepends=True)
    head = re.compile(rf"\s*- name: ['\"]?{re.escape(family)}['\"]?\s*")
    start = next((i for i, line in enumerate(lines) if head.fullmatch(line)), None)
    if start is None:
        return None
    indent = _indent(lines[start]) + 2
    end = next(
        (
            i
            for i in range(start + 1, len(lines))
            if lines[i].strip() and _indent(lines[i]) < indent
        ),
        len(lines),
    )
    block = lines[start:end]
    if any(line.strip() == f"- {rel}" for line in block):
        return text
    pad = " " * indent
    at = next((i for i, line in enumerate(block) if line.startswith(pad + "overlays:")), None)
    if at is None:
        at = next((i for i, line in enumerate(block) if line.startswith(pad + "document:")), 0)
        insert = [f"{pad}overlays:\n", f"{pad}  - {rel}\n"]
    else:
        while at + 1 < len(block) and _is_item(block[at + 1], indent):
            at += 1
        insert = [f"{pad}  - {rel}\n"]
    block[at + 1 : at + 1] = insert
    return "".join(lines[:start] + block + lines[end:])


def _is_item(line: str, indent: int) -> bool:
    return line.lstrip().startswith("- ") and _indent(line) > indent
