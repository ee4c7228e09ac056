"""cube-codegen: OpenAPI documents plus overlays in, a typed Python client package out."""

from pathlib import Path

__version__ = "0.1.0"

# The command line's defaults, here so that its no-op path needs no configuration library.
DEFAULT_CONFIG = Path("spec/cube-codegen.yaml")
DEFAULT_OUT = Path("generated")
# Under a project (or an output's parent folder): journals, intents and scratch space of runs.
RUN_STATE = Path(".cache") / "cube-codegen"
TXN_DIR = RUN_STATE / "txn"  # journals and intent files (and the lock runs take turns on)
SCRATCH_DIR = RUN_STATE / "scratch"  # scratch folders of runs, named with their process id
TXN_LOCK = "lock"
# Where the generator's own sources and templates live: the inputs of every generation.
GENERATOR_DIR = Path(__file__).resolve().parent
TEMPLATES = GENERATOR_DIR.parent / "templates"
