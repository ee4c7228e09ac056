"""Observed shapes judged on a new snapshot, as ``drift --observed`` and ``update --observed`` say
it: documented by the snapshot (its learned action can retire), accepted through the overlays,
or rejected; the update summary and the changelog name what the service now documents. In
process, on the small test project (no generation, no type-check verdicts)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from generator.document.config import load_config
from generator.drift.observed import observed_text, retired_changelog
from generator.release.learn import learn
from generator.release.update import UpdateResult, _observed, summary_markdown
from tests.observed.test_records import record
from tests.release.project import document, write_project


def _project(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    doc = document()
    doc["components"]["schemas"]["Gadget"]["required"] = ["id", "label"]
    config = write_project(tmp_path, doc)
    records = tmp_path / "observed"
    records.mkdir()
    lines = [
        record(pointer="/colour"),  # GET /widgets/{widgetId}: a field Widget does not list
        record(
            operation={"method": "GET", "path": "/gadgets"},
            kind="null-not-allowed",
            pointer="/-/label",
            documented="string",
            seen={"type": "null"},
        ),
    ]
    (records / "team.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return config, records, doc


def test_documented_learned_and_rejected(tmp_path: Path) -> None:
    config_path, records, doc = _project(tmp_path)
    learned = learn(config_path, [str(records)], write=True, out_dir=tmp_path / "generated")
    assert learned.actions == 2
    config = load_config(config_path)
    newer = copy.deepcopy(doc)
    newer["components"]["schemas"]["Widget"]["properties"]["colour"] = {"type": "string"}
    report = _observed(config, config.families[0], newer, "newer.yaml", [records])
    verdicts = {s.finding.names.field: s.verdict for s in report.shapes}
    assert verdicts == {"Widget.colour": "documented", "Gadget.label": "learned"}
    assert [r.split("#")[0] for r in report.retirable] == [
        str(config.path("overlays/api/learned.overlay.yaml"))
    ]
    assert retired_changelog(report) == (
        "- The service now documents what was learned from its responses: Widget.colour.\n"
    )

    moved = copy.deepcopy(doc)  # the label is gone: the learned null no longer lands
    del moved["components"]["schemas"]["Gadget"]["properties"]["label"]
    moved["components"]["schemas"]["Gadget"]["required"] = ["id"]
    rejected = _observed(config, config.families[0], moved, "moved.yaml", [records])
    verdicts = {s.finding.names.field: s.verdict for s in rejected.shapes}
    assert verdicts["Gadget.label"] == "rejected"
    assert "1 rejected" in observed_text(rejected)


def test_the_update_summary_carries_the_observed_section(tmp_path: Path) -> None:
    config_path, records, doc = _project(tmp_path)
    config = load_config(config_path)
    report = _observed(config, config.families[0], doc, "same.yaml", [records])
    from generator.drift.engine import compare
    from generator.drift.overlay_health import OverlayHealth

    result = UpdateResult("api", "same.yaml", compare(doc, doc), OverlayHealth(True, ""))
    result.observed = report
    text = summary_markdown(result)
    assert "### Observed shapes (2 from" in text
    assert "0 documented by the new snapshot, 0 accepted through overlays, 2 rejected" in text
