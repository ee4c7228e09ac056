"""cube-codegen: OpenAPI documents plus overlays in, a typed Python client package out."""

from pathlib import Path

__version__ = "0.1.0"

# The command line's defaults, here so that its no-op path needs no configuration library.
DEFAULT_CONFIG = Path("spec/cube-codegen.yaml")
DEFAULT_OUT = Path("generated")
# Under the project root (else the per-user cache, generator.runstate): the private run state.
RUN_STATE = Path(".cache") / "cube-codegen"
TXN = "txn"  # journals and intent files (and the lock runs take turns on), in the run state
SCRATCH = "scratch"  # scratch folders of runs, named with their process id, in the run state
TXN_LOCK = "lock"
OUTPUT_MARKER = ".cube-codegen-output"  # in every output folder: only such a folder is replaced
# Where the generator's own sources and templates live: the inputs of every generation.
GENERATOR_DIR = Path(__file__).resolve().parent
TEMPLATES = GENERATOR_DIR.parent / "templates"
