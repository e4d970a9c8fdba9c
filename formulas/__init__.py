"""The formula library, one module per subject. Importing this package declares them all."""

from . import training  # noqa: F401

SUBJECTS = ("training",)
