"""The two packages ``drift OLD NEW --type-check`` judges: each document generated as a
one-family package through the pipeline's public call, then handed to the verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.drift.verdicts import Verdicts, judge
from generator.pipeline import generate, single_document_config
from generator.transaction import scratch


def judge_documents(old_doc: Any, new_doc: Any) -> Verdicts:
    """Verdicts for two documents, each generated as a one-family package (as ``generate
    --spec`` makes it) in a scratch folder of the run state."""
    results = []
    with scratch("drift") as tmp:
        for side, doc in (("old", old_doc), ("new", new_doc)):
            path = Path(tmp) / f"{side}.json"
            path.write_text(json.dumps(doc), encoding="utf-8")
            config = single_document_config(path, (), "api_client", Path(tmp) / side)
            results.append(generate(config))
    return judge(results[0].package, results[1].package, results[1].files)
