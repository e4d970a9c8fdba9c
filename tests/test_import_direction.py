"""The layers import downwards only: the answer model <- solving <- what-if and scenario; the
printers (rendering) import the answer model, never the solver or a what-if.

Every import is read from the source with `ast`: those at the top of a module, those inside a
function (imported lazily) and those under `if TYPE_CHECKING:` alike.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[1] / "engine"

#: Print layouts are made where formulas and rearrangements are made and cached with the
#: library (its snapshot, the rearrangement cache), a cancelling step's note is printed where
#: it is found, and so is the rounding formula a refusal names (from its stored layout, so
#: that the message needs no sympy); these imports of the expression printer are the only
#: ones allowed below rendering until layouts are made by the printers (issue 22, item 2).
LAYOUT_EXCEPTIONS = {
    ("napkinmath.library.declare", "napkinmath.library.print_layout"),
    ("napkinmath.library.stored", "napkinmath.library.print_layout"),
    ("napkinmath.solving.invert", "napkinmath.library.print_layout"),
    ("napkinmath.solving.cancel", "napkinmath.library.print_layout"),
    ("napkinmath.solving.suggest", "napkinmath.library.print_layout"),
}


def _module_name(path: Path) -> str:
    parts = ["napkinmath", *path.relative_to(ENGINE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    """Whether `name` (napkinmath.x.y) is a module or package of the engine."""
    relative = Path(*name.split(".")[1:])
    return (ENGINE / relative).with_suffix(".py").is_file() or (ENGINE / relative).is_dir()


def _imports(path: Path) -> set[str]:
    """The napkinmath modules that the module at `path` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import (the engine imports absolutely)"
            base = node.module or ""
            # `from napkinmath.library import print_layout` imports the module print_layout
            modules = {
                f"{base}.{alias.name}"
                for alias in node.names
                if base.startswith("napkinmath") and _is_module(f"{base}.{alias.name}")
            }
            found.update(modules if len(modules) == len(node.names) else {base, *modules})
    return {name for name in found if name == "napkinmath" or name.startswith("napkinmath.")}


IMPORTS = {_module_name(path): _imports(path) for path in sorted(ENGINE.rglob("*.py"))}


def _in(layer: str, name: str) -> bool:
    return name == f"napkinmath.{layer}" or name.startswith(f"napkinmath.{layer}.")


def _crossing(layers: tuple[str, ...], forbidden: tuple[str, ...]) -> set[tuple[str, str]]:
    """(module, import) for each import of a `forbidden` layer by a module of `layers`."""
    return {
        (module, name)
        for module, names in IMPORTS.items()
        for name in names
        if any(_in(layer, module) for layer in layers)
        and any(_in(layer, name) for layer in forbidden)
    }


def test_every_engine_module_is_read():
    assert {
        "napkinmath.answer.result",
        "napkinmath.answer.data",
        "napkinmath.solving.solver",
        "napkinmath.rendering.result",
        "napkinmath.whatif.sensitivity",
    } <= IMPORTS.keys()
    assert "napkinmath.answer.data" in IMPORTS["napkinmath.solving.solver"]
    # a lazy import inside a function counts: `Compiled.layout` imports the printer there
    assert "napkinmath.library.print_layout" in IMPORTS["napkinmath.solving.invert"]


def test_the_answer_model_imports_no_layer_above_it():
    assert _crossing(("answer",), ("solving", "whatif", "scenario", "rendering", "cli")) == set()


@pytest.mark.parametrize("layer", ["solving", "library", "whatif"])
def test_below_the_printers_nothing_imports_rendering(layer):
    assert _crossing((layer,), ("rendering",)) - LAYOUT_EXCEPTIONS == set()


def test_the_layout_exceptions_are_all_still_needed():
    """An exception no module uses any more is taken off the list."""
    assert _crossing(("solving", "library", "whatif"), ("rendering",)) == LAYOUT_EXCEPTIONS


def test_the_printers_import_neither_the_solver_nor_a_what_if():
    assert _crossing(("rendering",), ("solving", "whatif", "scenario", "cli")) == set()


def test_text_helpers_import_no_layer():
    """Number formatting, citations and LaTeX escaping serve every layer: they import none."""
    assert (
        _crossing(("text",), ("answer", "solving", "whatif", "scenario", "rendering", "cli"))
        == set()
    )
