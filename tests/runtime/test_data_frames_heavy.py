"""Frames with each extra installed (heavy: installs pinned pandas, Polars and pyarrow into a venv
of its own under the ignored .cache/, never into the main .venv): the three result shapes give
the same frame, with dtypes from the annotation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from cube_data_server import ANNOTATION, data_in

from tests.helpers import PACKAGE_ROOT

pytestmark = pytest.mark.heavy

PINS = ["pandas==3.1.1", "polars==2.1.0", "pyarrow==26.0.1"]
VENV = Path(__file__).resolve().parents[2] / ".cache" / "frames-venv"

SCRIPT = """
import json, sys
from cube_client.data.models import V1LoadResponse
bodies = json.loads(sys.argv[1])
frames = [V1LoadResponse.model_validate(b) for b in bodies]
pd_frames = [r.to_pandas() for r in frames]
for f in pd_frames[1:]:
    __import__("pandas").testing.assert_frame_equal(pd_frames[0], f)
pl_frames = [r.to_polars() for r in frames]
assert all(pl_frames[0].equals(f) for f in pl_frames[1:])
tables = [r.to_arrow() for r in frames]
assert all(tables[0].equals(t) for t in tables[1:])
print(json.dumps({
    "pandas": {k: str(v) for k, v in pd_frames[0].dtypes.items()},
    "polars": {k: str(v) for k, v in pl_frames[0].schema.items()},
    "arrow": {f.name: str(f.type) for f in tables[0].schema},
    "count": pd_frames[0]["orders.count"].tolist(),
}))
"""


def _venv() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PINS], check=True, timeout=900)
    return python


def test_every_shape_gives_the_same_frame_in_each_library() -> None:
    python = _venv()
    bodies = [
        {"results": [{"annotation": ANNOTATION, "data": data_in(shape)}]}
        for shape in ("default", "compact", "columnar")
    ]
    site = sysconfig.get_paths()["purelib"]  # httpx2 and pydantic from the main environment
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE_ROOT), site])}
    done = subprocess.run(
        [str(python), "-c", SCRIPT, json.dumps(bodies)],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["count"] == [5, 7, 11]
    assert found["pandas"]["orders.count"] == "int64"
    assert found["pandas"]["orders.amount"] == "float64"
    assert found["pandas"]["orders.createdAt.day"].startswith("datetime64[")
    assert found["pandas"]["orders.isPaid"] == "boolean"
    assert found["polars"]["orders.count"] == "Int64"
    assert found["polars"]["orders.createdAt.day"].startswith("Datetime")
    assert found["arrow"]["orders.amount"] == "double"
    assert found["arrow"]["orders.createdAt.day"] == "timestamp[us]"
    assert found["arrow"]["orders.isPaid"] == "bool"
