"""Make this checkout's ``generator`` importable from the project's venv, with a
``cube-codegen`` command beside its Python, the way an editable install would.

An editable ``pip install -e .`` goes through the build backend, which prints a multi-line
warning on every bootstrap (each of setuptools' editable modes has one); a path file and a
three-line launcher do the same job quietly and always point at the working tree.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    (site / "cube_codegen_checkout.pth").write_text(f"{ROOT}\n", encoding="utf-8")
    launcher = Path(sys.executable).parent / "cube-codegen"
    launcher.write_text(
        f"#!{sys.executable}\nfrom generator.cli import run\n\nrun()\n",
        encoding="utf-8",
    )
    os.chmod(launcher, 0o755)


if __name__ == "__main__":
    main()
