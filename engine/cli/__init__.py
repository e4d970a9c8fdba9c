"""The `napkin` command line."""

from napkinmath.cli.main import main

__all__ = ["main"]
