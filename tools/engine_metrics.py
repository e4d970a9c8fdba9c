"""The engine's size and shape, the figures issue 45's closing note compares before and after.

    python tools/engine_metrics.py            # a table
    python tools/engine_metrics.py --json     # the same as JSON

Read from the source with `ast` (nothing is imported) over the installed package (engine/,
formulas/, hardware/): lines of engine/, functions over 80
lines, names imported from another module's private namespace, import cycles between modules
(strongly connected components of the module import graph, every import counted: top level,
inside functions, under TYPE_CHECKING), pairs of subpackages importing each other, registered
caches (`caches.register`/`scope_by` calls and `functools` memo decorators) and the shipped
rearrangement bytes.
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
SHIPPED = ENGINE / "library" / "rearrangements"
OUTSIDE = ("formulas", "hardware")  # installed as napkinmath.formulas, napkinmath.hardware
LONG = 80  # lines: a function longer than this is counted


def _module_name(path: Path) -> str:
    base = ENGINE if path.is_relative_to(ENGINE) else ROOT
    parts = ["napkinmath", *path.relative_to(base).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    """Whether `name` is a module or package of the installed napkinmath (formulas/ and
    hardware/ install as napkinmath.formulas and napkinmath.hardware)."""
    parts = name.split(".")[1:]
    base = ROOT if parts and parts[0] in OUTSIDE else ENGINE
    relative = Path(*parts)
    return (base / relative).with_suffix(".py").is_file() or (base / relative).is_dir()


def _imports(tree: ast.AST) -> list[tuple[str, list[str]]]:
    """(module imported, names taken from it) for every napkinmath import in `tree`."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [alias.name for alias in node.names]
            modules = [f"{node.module}.{n}" for n in names if _is_module(f"{node.module}.{n}")]
            found.extend((module, []) for module in modules)
            rest = [n for n in names if not _is_module(f"{node.module}.{n}")]
            if rest:
                found.append((node.module, rest))
    return [(m, n) for m, n in found if m == "napkinmath" or m.startswith("napkinmath.")]


def _subpackage(module: str) -> str:
    """The subpackage of `module`; a top-level module is a layer of its own, the package's
    public interface (napkinmath itself) is "(api)", and __main__ belongs to the CLI."""
    parts = module.split(".")
    if len(parts) == 1:
        return "(api)"
    return "cli" if parts[1] == "__main__" else parts[1]


def measure() -> dict[str, object]:
    """Every figure, computed from the files as they are now."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    lines = long_functions = private_imports = memo_decorators = registered = 0
    longest: list[tuple[int, str]] = []
    sources = [*ENGINE.rglob("*.py"), *(p for d in OUTSIDE for p in (ROOT / d).rglob("*.py"))]
    for path in sorted(sources):
        text = path.read_text()
        if path.is_relative_to(ENGINE):
            lines += text.count("\n")
        tree = ast.parse(text, str(path))
        module = _module_name(path)
        graph.add_node(module)
        for imported, names in _imports(tree):
            if imported != module:
                graph.add_edge(module, imported)
            private_imports += sum(1 for n in names if n.startswith("_") and not n.startswith("__"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LONG:
                    long_functions += 1
                    longest.append((length, f"{module}.{node.name}"))
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    name = (
                        target.attr
                        if isinstance(target, ast.Attribute)
                        else getattr(target, "id", "")
                    )
                    memo_decorators += name in {"cache", "lru_cache", "cached_property"}
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id == "caches":
                    registered += node.func.attr in {"register", "scope_by", "memo", "scoped"}
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    packages: nx.DiGraph[str] = nx.DiGraph()
    for a, b in graph.edges:
        if _subpackage(a) != _subpackage(b):
            packages.add_edge(_subpackage(a), _subpackage(b))
    both_ways = sorted(
        f"{a} <-> {b}" for a, b in packages.edges if a < b and packages.has_edge(b, a)
    )
    shipped = sum(p.stat().st_size for p in SHIPPED.rglob("*") if p.is_file())
    return {
        "engine_lines": lines,
        "functions_over_80_lines": long_functions,
        "longest_functions": [f"{n} ({k} lines)" for k, n in sorted(longest, reverse=True)[:15]],
        "private_names_imported": private_imports,
        "memo_decorators": memo_decorators,
        "cache_registrations_in_source": registered,
        "import_cycles": len(cycles),
        "modules_in_cycles": sum(len(c) for c in cycles),
        "cycles": cycles,
        "subpackage_pairs_both_ways": both_ways,
        "shipped_rearrangement_bytes": shipped,
        "shipped_rearrangement_files": sum(1 for p in SHIPPED.rglob("*") if p.is_file()),
        "subpackage_order": list(_order(packages)),
    }


def _order(packages: nx.DiGraph[str]) -> list[str]:
    """The subpackages, lowest layer first, where the graph between them has no cycle."""
    condensed = nx.condensation(packages)
    groups = [
        sorted(condensed.nodes[n]["members"])
        for n in reversed(list(nx.topological_sort(condensed)))
    ]
    return ["+".join(g) for g in groups]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    figures = measure()
    if parser.parse_args().json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        if isinstance(value, list):
            print(f"{key}:")
            for item in value:
                print(f"  {item}")
        else:
            print(f"{key}: {value:,}" if isinstance(value, int) else f"{key}: {value}")


if __name__ == "__main__":
    main()
