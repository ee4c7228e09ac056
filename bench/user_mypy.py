"""A user's first type check: cold ``mypy --strict`` of a small program that lists a deployment's
environments through the generated client, against the same program written on ``httpx2`` and
pydantic alone, measured in the same run (alternating fresh processes, mypy's cache cleared).

The package is installed the way ``pip`` installs it (into a virtual environment's
site-packages, which mypy reads as a third-party package: errors silenced, function bodies
skipped), so the row measures what a user's editor or CI pays, not a check of the package."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from harness import Cmd, Report, compare, fresh_dir, log, ratio_table, secs

T_USER_MYPY = 1.5  # cold mypy --strict of the program ≤ this x the httpx2 + pydantic program

SDK_PROGRAM = '''"""List a deployment's environments with the generated client."""

from cube_client import PlatformClient
from cube_client.platform.models import DeploymentEnvironment


def environment_ids(client: PlatformClient, deployment: int) -> list[str]:
    ids: list[str] = []
    for env in client.environments.get_deployment_environments(deployment):
        assert isinstance(env, DeploymentEnvironment)
        ids.append(env.id)
    return ids


if __name__ == "__main__":
    print(environment_ids(PlatformClient(), 1))
'''

BASE_PROGRAM = '''"""The same program on httpx2 and pydantic alone."""

import httpx2
import pydantic


class DeploymentEnvironment(pydantic.BaseModel):
    id: str
    type: str


class Page(pydantic.BaseModel):
    items: list[DeploymentEnvironment]


def environment_ids(client: httpx2.Client, deployment: int) -> list[str]:
    response = client.get(f"/api/v1/deployments/{deployment}/environments")
    response.raise_for_status()
    ids: list[str] = []
    for env in Page.model_validate_json(response.content).items:
        assert isinstance(env, DeploymentEnvironment)
        ids.append(env.id)
    return ids


if __name__ == "__main__":
    print(environment_ids(httpx2.Client(base_url="https://api.example"), 1))
'''


def user_environment(package_root: Path, tmp: Path) -> Path:
    """A virtual environment with the package installed (copied into its site-packages) and
    this interpreter's packages (httpx2, pydantic) reachable; its python's path."""
    venv = tmp / "user-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    shutil.copytree(
        package_root / "cube_client",
        site / "cube_client",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return python


def user_mypy(report: Report, package_root: Path, tmp: Path, rounds: int) -> None:
    log(f"a user's cold mypy --strict: {rounds} alternated fresh processes each")
    name = "a user program's cold `mypy --strict` vs httpx2 + pydantic alone"
    python = user_environment(package_root, tmp)
    here = tmp / "user-mypy"
    here.mkdir()
    (here / "sdk_program.py").write_text(SDK_PROGRAM, encoding="utf-8")
    (here / "base_program.py").write_text(BASE_PROGRAM, encoding="utf-8")
    mypy = str(Path(sys.executable).with_name("mypy"))

    def check(label: str, program: str) -> Cmd:
        cache = here / f".cache-{program}"
        argv = [mypy, "--strict", "--python-executable", str(python), "--cache-dir", str(cache)]
        return Cmd(label, [*argv, f"{program}.py"], here, before=fresh_dir(cache))

    ours = check("`mypy --strict` of the program on the generated client", "sdk_program")
    base = check("the same program on `httpx2` + pydantic", "base_program")
    compare([ours, base], rounds)
    report.sections.append(
        f"### A user's first type check (median of {rounds} alternated fresh processes, "
        "mypy's cache cleared every run; the package installed in a virtual environment)\n\n"
        + ratio_table([ours, base], base, "÷ httpx2 + pydantic")
    )
    if ours.failure or base.failure:
        report.target(name, "—", f"≤ {T_USER_MYPY}x", None, ours.failure or base.failure)
        return
    r = ours.median / base.median
    measured = f"{secs(ours.median)} vs {secs(base.median)} = {r:.2f}x"
    report.target(name, measured, f"≤ {T_USER_MYPY}x", r <= T_USER_MYPY)


def main() -> int:
    """This row alone: ``python bench/user_mypy.py [ROUNDS]`` on the checkout's package."""
    import tempfile

    from harness import ROOT

    report = Report()
    with tempfile.TemporaryDirectory(prefix="cube-bench-mypy-") as tmp:
        rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
        user_mypy(report, ROOT / "generated" / "cube_client", Path(tmp), rounds)
    print("\n\n".join(report.sections))
    for row in report.targets:
        print(" | ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
