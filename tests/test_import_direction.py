"""The package's layers import downwards only, with no exception.

Every import of the installed package (engine/ as `napkinmath`, formulas/ and hardware/ as its
subpackages) is read from the source with `ast`: those at the top of a module, those inside a
function (imported lazily) and those under `if TYPE_CHECKING:` alike. A module belongs to its
subpackage, or is a unit of its own at the top level (`napkinmath.errors`); `napkinmath`
itself is the public interface. `LAYERS` lists them from the bottom up: a module imports its
own unit and the units of lower layers, never a unit of its own layer or a higher one. A new
subpackage or top-level module has to be placed here before its imports can be checked.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
#: folders installed as subpackages of napkinmath
OUTSIDE = ("formulas", "hardware")

#: bottom first; units in one layer are independent of each other
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "caches"),  # no napkinmath import
    ("units", "deadline", "cache", "schemas"),  # pint's registry; time bounds; the disk
    # cache; the JSON documents' names and schemas
    ("text",),  # what users type: the expression grammar, values, escapes, sources
    ("arguments", "files"),  # checks at a public function's edge; files read bounded
    ("writing", "library", "project"),  # writing outputs; the vocabulary; napkin.toml settings
    ("formulas",),  # the formulas, one module per subject
    ("catalog",),  # the library as loaded, your formulas over it, lookup by name
    ("hardware",),  # records: GPUs, models, links, storage; your records files
    ("answer",),  # an answer as data
    ("solving", "rendering"),  # planning and solving; printing an answer
    ("whatif", "checking"),  # ranges, sweeps, comparisons, optimisation; others' math
    ("questions", "printing"),  # nm.solve; the printers an answer asks for, found lazily
    ("scenario",),  # plan files and their reports
    ("(api)",),  # `napkinmath`: the public names
    ("mcp_server",),  # the public names as MCP tools
    ("cli",),  # the `napkin` command
)
LEVEL = {unit: level for level, units in enumerate(LAYERS) for unit in units}


def _sources() -> list[Path]:
    return sorted([*ENGINE.rglob("*.py"), *(p for d in OUTSIDE for p in (ROOT / d).rglob("*.py"))])


def _module_name(path: Path) -> str:
    base = ENGINE if path.is_relative_to(ENGINE) else ROOT
    parts = ["napkinmath", *path.relative_to(base).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    """Whether `name` (napkinmath.x.y) is a module or package of the installed package."""
    parts = name.split(".")[1:]
    base = ROOT if parts and parts[0] in OUTSIDE else ENGINE
    relative = Path(*parts)
    return (base / relative).with_suffix(".py").is_file() or (base / relative).is_dir()


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """The module an import names, a relative one (formulas/: `from .sources import`) too."""
    if node.level == 0:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def _imports(path: Path) -> set[str]:
    """The napkinmath modules that the module at `path` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(path, node)
            # `from napkinmath.library import print_layout` imports the module print_layout
            modules = {
                f"{base}.{alias.name}"
                for alias in node.names
                if base.startswith("napkinmath") and _is_module(f"{base}.{alias.name}")
            }
            found.update(modules if len(modules) == len(node.names) else {base, *modules})
    return {name for name in found if name == "napkinmath" or name.startswith("napkinmath.")}


def unit(module: str) -> str:
    """The layer unit of `module`: its subpackage, a top-level module, or "(api)"."""
    parts = module.split(".")
    if len(parts) == 1:
        return "(api)"
    return "cli" if parts[1] == "__main__" else parts[1]


IMPORTS = {_module_name(path): _imports(path) for path in _sources()}


def test_every_module_is_read():
    assert {
        "napkinmath.answer.result",
        "napkinmath.solving.solver",
        "napkinmath.rendering.result",
        "napkinmath.whatif.sensitivity",
        "napkinmath.formulas.training",
        "napkinmath.hardware.user",
    } <= IMPORTS.keys()
    assert "napkinmath.answer.data" in IMPORTS["napkinmath.solving.solver"]
    # a lazy import inside a function counts: `Compiled.layout` imports the layout there
    assert "napkinmath.library.print_layout" in IMPORTS["napkinmath.solving.invert"]
    # and one under TYPE_CHECKING: the answer types of nm.solve's overloads
    assert "napkinmath.whatif.answers" in IMPORTS["napkinmath.questions"]


def test_every_unit_has_its_layer():
    units = {unit(module) for module in IMPORTS}
    assert units - LEVEL.keys() == set(), "place the new unit in LAYERS"
    assert LEVEL.keys() - units == set(), "a unit of LAYERS that no longer exists"


@pytest.mark.parametrize("layer", [unit for units in LAYERS for unit in units])
def test_a_unit_imports_only_itself_and_the_layers_below(layer):
    upward = sorted(
        f"{module} imports {name}"
        for module, names in IMPORTS.items()
        if unit(module) == layer
        for name in names
        if unit(name) != layer and LEVEL[unit(name)] >= LEVEL[layer]
    )
    assert upward == []


def test_the_layers_are_read_as_a_newcomer_would():
    """The claims of docs/internals.md, one by one."""

    def below(a: str, b: str) -> bool:
        return LEVEL[a] < LEVEL[b]

    assert below("answer", "rendering") and below("answer", "solving")  # data, then printers
    assert LEVEL["solving"] == LEVEL["rendering"]  # the printers import no solver
    assert below("library", "formulas") and below("formulas", "catalog")
    assert below("text", "hardware")  # text reads records through a lookup passed in
    assert below("solving", "whatif") and below("solving", "checking")
    assert below("whatif", "questions") and below("checking", "questions")
