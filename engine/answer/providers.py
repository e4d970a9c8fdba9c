"""What an answer needs from the layers above it, found by name: its printers
(`napkinmath.rendering`) and its what-ifs (`napkinmath.whatif`).

The package root (`napkinmath/__init__.py`) says which module provides each name; the module
is imported on first use, so an answer imports no printer and no numpy until it is printed
or asked a what-if, and the answer's code names neither layer.

    provide("napkinmath.rendering.result", "text", "headline")
    provided("text")(result)        # imports napkinmath.rendering.result once
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

#: name -> the module that provides a function of that name
_MODULES: dict[str, str] = {}
#: name -> the function, once imported
_FOUND: dict[str, Callable[..., Any]] = {}


def provide(module: str, *names: str) -> None:
    """Say that `module` provides a function for each of `names`."""
    _MODULES.update(dict.fromkeys(names, module))
    for name in names:
        _FOUND.pop(name, None)


def provided(name: str) -> Callable[..., Any]:
    """The function `name`, from the module said to provide it."""
    found = _FOUND.get(name)
    if found is None:
        found = _FOUND[name] = getattr(importlib.import_module(_MODULES[name]), name)
    return found
