"""``python -m generator`` is the ``cube-codegen`` command."""

from generator.cli import run

run()
