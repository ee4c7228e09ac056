"""The data frame row: 100,000 rows x 10 members, from response bytes (the whole public call,
an in-memory transport answering) to a pandas frame, against
``pandas.DataFrame(json.loads(body)["results"][0]["data"])`` with the same conversions, in the
venv the heavy frame test keeps under .cache/ (skipped with the reason when it is absent)."""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
from pathlib import Path

from harness import Report

ROOT = Path(__file__).resolve().parents[1]
FRAMES_PYTHON = ROOT / ".cache" / "frames-venv" / "bin" / "python"
LIMIT = 1.5

SCRIPT = """
import json, statistics, time
import httpx2, pandas as pd
from cube_client import DataClient
members = [f"m.n{i}" for i in range(6)] + ["m.s0", "m.s1", "m.t0", "m.t1"]
ann = {"measures": {m: {"type": "number"} for m in members[:6]},
       "dimensions": {m: {"type": "string"} for m in members[6:8]},
       "timeDimensions": {m: {"type": "time"} for m in members[8:]}, "segments": {}}
rows = [{**{m: str(i * 7 + k) for k, m in enumerate(members[:6])}, "m.s0": f"s{i % 50}",
         "m.s1": "x", "m.t0": "2024-01-01T00:00:00.000", "m.t1": "2024-02-03T04:05:06.000"}
        for i in range(100_000)]
body = json.dumps({"results": [{"annotation": ann, "data": rows}]}).encode()
def baseline():
    f = pd.DataFrame(json.loads(body)["results"][0]["data"])
    for m in members[:6]: f[m] = pd.to_numeric(f[m])
    for m in members[8:]: f[m] = pd.to_datetime(f[m], format="ISO8601")
    return f
answer = lambda request: httpx2.Response(200, content=body)
client = DataClient(token="t", base_url="https://cube.example",
                    http_client=httpx2.Client(transport=httpx2.MockTransport(answer)))
def ours():
    return client.data.load_v1(query={"measures": members[:6]}).to_pandas()
def median(fn):
    times = []
    for _ in range(5):
        t = time.perf_counter(); fn(); times.append(time.perf_counter() - t)
    return statistics.median(times)
pd.testing.assert_frame_equal(baseline(), ours(), check_dtype=False)
print(json.dumps({"baseline": median(baseline), "ours": median(ours)}))
"""


def frame_timing(report: Report, package_root: Path) -> None:
    name = "data frame: 100k rows x 10 members, bytes -> pandas, vs DataFrame(json.loads)"
    if not FRAMES_PYTHON.exists():
        report.target(
            name, "skipped", f"<= {LIMIT}x", None, "no pandas venv: make test-heavy makes it"
        )
        return
    site = sysconfig.get_paths()["purelib"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(package_root), site])}
    done = subprocess.run(
        [str(FRAMES_PYTHON), "-c", SCRIPT],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        report.target(name, "failed", f"<= {LIMIT}x", False, done.stderr.strip()[-200:])
        return
    t = json.loads(done.stdout)
    ratio = t["ours"] / t["baseline"]
    measured = f"{ratio:.2f}x ({t['ours'] * 1000:.0f} ms vs {t['baseline'] * 1000:.0f} ms)"
    report.target(name, measured, f"<= {LIMIT}x", ratio <= LIMIT)
