"""napkinmath for AI assistants, over the Model Context Protocol (`napkin mcp`).

    pip install 'napkinmath[mcp]'
    napkin mcp                      # stdio; reads no file
    napkin mcp --root ~/designs     # audit may also read files inside that folder

Tools (each argument in a JSON schema; each result the JSON document the CLI's ``--format
json`` prints, as ``document``, beside the answer as a person reads it, as ``text``):

* ``solve``: targets from givens (``"7B"``, ``"3 weeks"``), a GPU or model record;
* ``check``: an expression with its units, against a claimed value;
* ``audit``: a document's, config's or table's text (or a file under ``--root``);
* ``optimize``: the best plan over decision variables that meets the requirements;
* ``explain``: givens that disagree, and which one is the odd one out;
* ``vars`` and ``formulas``: the names to ask with, found by a word.

A resource, ``napkinmath://guide``, is the page of vocabulary an assistant reads first.
Errors are tool errors carrying napkinmath's own message (the name, what was expected, the
fix), never a traceback. Every input limit of the library holds (its sizes, work budgets and
time bounds, per call, per thread); on top, a call's arguments are at most `MAX_ARGUMENTS`
bytes of JSON, and a file is read only under the folder the server was started with. No state
one call sets reaches another: records and formulas come with each call.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from napkinmath.errors import InputError, NapkinError

#: the largest call: an audited text at its limit (5 MB) and its options
MAX_ARGUMENTS = 5_200_000
#: givens in one call, at most
MAX_GIVENS = 200
#: the suffixes `audit` reads a text as, by kind
SUFFIXES = {"json": ".json", "toml": ".toml", "python": ".py", "text": ".md", "csv": ".csv"}

GUIDE = """\
# napkinmath: how to ask

napkinmath solves the arithmetic of AI infrastructure from named variables with units, and
shows each answer's derivation (formulas, numbers substituted, sources, assumptions).

- Find the names first: `vars` with a word ("gpus", "kv cache", "ttft"), `formulas` with a
  topic ("serving", "checkpoint").
- Givens are name → value with its unit, as text: {"params": "7B", "tokens": "1T",
  "train_time": "3 weeks", "mfu": "0.4"}. Plain numbers are in the variable's own unit.
- Records fill givens: `gpu` ("H100-SXM", "H200", "MI300X", "tpu-v6e") and `model`
  ("llama-3-70b", "qwen3-32b").
- `solve` answers targets: {"targets": ["n_gpus"], "givens": {...}, "gpu": "H100-SXM"}. A
  refusal names what is missing and the inputs that would determine it.
- `check` tests someone's arithmetic: {"expression": "140 GB / (400 Gb/s)", "claim":
  "0.35 s"} says "disagree" and names the slip (bits for bytes).
- `audit` reads a document's or config's text and checks every claim in it.
- `optimize` searches decisions: {"objective": "n_gpus", "over": {"tp": [1, 2, 4, 8]},
  "require": ["step_time_predicted <= 10 s"], ...}.
- `explain` takes givens that disagree and says which one is the odd one out.
Each result has `document` (JSON, its `schema` names its format) and `text` (the derivation
to quote).
"""

F = TypeVar("F", bound=Callable[..., dict[str, Any]])


def server(root: str | Path | None = None) -> Any:
    """The MCP server (the SDK's `MCPServer`), its tools registered; `root`: the folder
    `audit` may read files in (None: no file is read)."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        raise InputError(
            "napkin mcp needs the MCP SDK: pip install 'napkinmath[mcp]'", "mcp"
        ) from None
    folder = _folder(root)
    app = MCPServer(
        name="napkinmath",
        instructions=GUIDE,
        version=_version(),
    )
    tools: tuple[tuple[str, Callable[..., dict[str, Any]]], ...] = (
        ("solve", solve),
        ("check", check),
        ("optimize", optimize),
        ("explain", explain),
        ("vars", variables),
        ("formulas", formulas),
    )
    for name, function in tools:
        app.tool(name=name, description=_summary(function))(_guarded(function))

    def audit(
        text: str | None = None,
        kind: str = "text",
        path: str | None = None,
        gpu: str | None = None,
        tolerance: float = 0.02,
    ) -> dict[str, Any]:
        return audit_text(text, kind=kind, path=path, gpu=gpu, tolerance=tolerance, root=folder)

    audit.__doc__ = audit_text.__doc__
    app.tool(name="audit", description=_summary(audit_text))(_guarded(audit))

    @app.resource("napkinmath://guide", name="guide", mime_type="text/markdown")
    def guide() -> str:
        """How to ask napkinmath: names, givens with units, records, the tools."""
        return GUIDE

    return app


def solve(
    targets: list[str],
    givens: dict[str, str | float] | None = None,
    gpu: str | None = None,
    model: str | None = None,
    achievable: bool = False,
    precision: str | None = None,
) -> dict[str, Any]:
    """Solve for targets from givens (values as text with units: {"params": "7B"}) and a
    GPU or model record; the answer with its derivation and the source of every given."""
    import napkinmath as nm
    from napkinmath.schemas import answer_kind
    from napkinmath.whatif.spread import is_spread

    values = _givens(givens)
    result = nm.solve(
        _names(targets, "targets"),
        gpu=gpu,
        model=model,
        achievable=achievable,
        precision=precision,
        ranges=any(is_spread(v) for v in values.values()),
        **values,
    )
    return _reply(answer_kind(result), result.to_dict(), str(result))


def check(
    expression: str,
    claim: str | None = None,
    givens: dict[str, str | float] | None = None,
    gpu: str | None = None,
    model: str | None = None,
    tolerance: float = 0.02,
) -> dict[str, Any]:
    """Evaluate an expression with its units ("140 GB / (400 Gb/s)") and compare it with a
    claimed value ("0.35 s"): agree or disagree, and the slip that explains a difference.
    'EXPRESSION = CLAIM' in one string works too."""
    from napkinmath.checking.expression import check as checked

    if claim is None and expression.count("=") == 1 and "==" not in expression:
        expression, _, claim = (part.strip() for part in expression.partition("="))
    result = checked(
        expression, claim, tolerance=tolerance, gpu=gpu, model=model, **_givens(givens)
    )
    return _reply("check", result.to_dict(), result.text)


def audit_text(
    text: str | None = None,
    *,
    kind: str = "text",
    path: str | None = None,
    gpu: str | None = None,
    tolerance: float = 0.02,
    root: Path | None = None,
) -> dict[str, Any]:
    """Audit another tool's or a person's file as it is: its text with its kind ("text" for
    Markdown or plain arithmetic lines, "json" or "toml" for a calculator's config,
    "python" for a module of parameters, read and never run, "csv"), or a file by path
    when the server was started with a folder; each claim checked, each slip named."""
    from napkinmath.checking.audit import KINDS, audit

    if (text is None) == (path is None):
        raise InputError("give the text to audit, or a path (not both)", "text")
    if kind not in KINDS:
        raise InputError(f"kind={kind!r}: expected one of {', '.join(KINDS)}", "kind")
    if path is not None:
        report = audit(_inside(root, path), kind=kind, gpu=gpu, tolerance=tolerance)
        return _reply("claims", report.to_dict(), report.text)
    assert text is not None
    with tempfile.TemporaryDirectory(prefix="napkin-mcp-") as folder:
        written = Path(folder) / f"audited{SUFFIXES[kind]}"
        written.write_text(text, encoding="utf-8")
        report = audit(written, kind=kind, gpu=gpu, tolerance=tolerance)
        document, said = report.to_dict(), report.text
    document["name"] = "the given text"
    return _reply("claims", document, said.replace(str(written), "the given text"))


def optimize(
    objective: str | list[str],
    over: dict[str, list[str | float] | str],
    maximize: bool | list[str] = False,
    require: list[str] | None = None,
    givens: dict[str, str | float] | None = None,
    gpu: str | None = None,
    model: str | None = None,
    achievable: bool = False,
) -> dict[str, Any]:
    """The best plan over decision variables (over: {"tp": [1, 2, 4, 8], "n_gpus":
    "64..1024 log"}) that meets every requirement ("step_time_predicted <= 10 s"),
    minimising the objective unless maximize; the winner's derivation, the binding limit,
    and why the runners-up lose."""
    import napkinmath as nm

    optimum = nm.optimize(
        objective,
        maximize=maximize,
        over=over,
        require=require,
        gpu=gpu,
        model=model,
        achievable=achievable,
        **_givens(givens),
    )
    return _reply("optimum", optimum.to_dict(), str(optimum))


def explain(
    targets: list[str],
    givens: dict[str, str | float],
    gpu: str | None = None,
    model: str | None = None,
) -> dict[str, Any]:
    """Givens that over-determine the targets and disagree: each way of leaving one out,
    and which given is the odd one out."""
    from napkinmath.checking.reconcile import reconcile

    found = reconcile(_names(targets, "targets"), gpu=gpu, model=model, **_givens(givens))
    return {"document": found.to_dict(), "text": str(found)}


def variables(query: str = "") -> dict[str, Any]:
    """The variables whose name or meaning mentions `query` (a practitioner's word such as
    "qps" finds what it means), with units, ranges and defaults."""
    from napkinmath.catalog import lookup
    from napkinmath.library.aliases import meant
    from napkinmath.rendering import listings

    known = lookup.variables()
    word = query.strip().lower()
    found = [v for v in known.values() if word in v.name.lower() or word in v.description.lower()]
    if not found and word:
        found = [known[n] for n in meant(query.strip(), known)[1]]
    if not found:
        raise NapkinError(f"no variable mentions {query!r}; ask vars with no query for all")
    document = listings.variables(found)
    text = "\n".join(f"{v.name}: {v.description}" for v in sorted(found, key=lambda v: v.name))
    return _reply("variables", document, text)


def formulas(query: str = "", subject: str | None = None) -> dict[str, Any]:
    """The formulas whose name, title, subject or variables mention `query`, with their
    equations and sources."""
    from napkinmath.catalog.lookup import formulas as library
    from napkinmath.rendering import listings

    word = query.strip().lower()
    found = []
    for f in library().values():
        texts = (f.name, f.title, f.subject, *(v.name for v in f.variables))
        if (subject is None or f.subject == subject) and any(word in t.lower() for t in texts):
            found.append(f)
    if not found:
        raise NapkinError(f"no formula mentions {query!r}; ask formulas with no query for all")
    found.sort(key=lambda f: (f.subject, f.name))
    text = "\n".join(f"{f.name} ({f.subject}): {f.title}" for f in found)
    return _reply("formulas", listings.formulas(found), text)


def _reply(kind: str, data: Mapping[str, object], text: str) -> dict[str, Any]:
    """A tool's result: the CLI's JSON document of `kind` (with its schema, finite numbers
    only) and the text a person reads."""
    from napkinmath.schemas import tagged
    from napkinmath.text.visible import finite_json

    return {"document": finite_json(tagged(kind, dict(data))), "text": text}


def _guarded(function: F) -> F:
    """`function` with its arguments bounded and napkinmath's errors as tool errors (the
    message, never a traceback)."""
    import functools

    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import CallToolResult, TextContent

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        size = len(json.dumps([args, kwargs], default=str))
        if size > MAX_ARGUMENTS:
            raise ToolError(
                f"napkinmath: the call's arguments are {size:,} bytes; at most "
                f"{MAX_ARGUMENTS:,} are read (a document over 5 MB: audit its parts)"
            )
        try:
            reply = function(*args, **kwargs)
        except NapkinError as exc:
            raise ToolError(f"napkinmath: {exc}") from None
        except (TypeError, ValueError) as exc:  # a value of the wrong kind for the library
            raise ToolError(f"napkinmath: {exc}") from None
        except Exception as exc:  # a bug: said, never a traceback
            raise ToolError(
                f"napkinmath: internal error ({type(exc).__name__}: {exc}); this is a bug in "
                "napkinmath, please report it with the call"
            ) from None
        # the text an assistant quotes is the derivation; the document is structured
        return CallToolResult(
            content=[TextContent(type="text", text=reply["text"])], structured_content=reply
        )

    return call  # type: ignore[return-value]


#: the library's own keyword arguments: never taken from a call's givens
_OPTIONS = frozenset(
    [
        "gpu",
        "model",
        "tolerance",
        "samples",
        "ranges",
        "seed",
        "on_inconsistent",
        "units",
        "precision",
        "achievable",
        "records",
        "digits",
        "formulas",
        "maximize",
        "minimize",
        "over",
        "require",
        "top",
        "max_candidates",
        "expect",
        "to",
    ]
)


def _givens(givens: Mapping[str, object] | None) -> dict[str, Any]:
    """A call's givens, as keyword arguments of the library's functions."""
    if givens is None:
        return {}
    if len(givens) > MAX_GIVENS:
        raise InputError(f"{len(givens)} givens: at most {MAX_GIVENS} in one call", "givens")
    for name in givens:
        if name in _OPTIONS:
            raise InputError(
                f"givens: {name!r} is an argument of the tool, not a given: pass it as "
                f"{name}=... beside givens",
                "givens",
            )
    return {str(k): v for k, v in givens.items()}


def _names(names: object, argument: str) -> tuple[str, ...]:
    if isinstance(names, str):
        return (names,)
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise InputError(f"{argument}: expected a list of variable names", argument)
    return tuple(names)


def _folder(root: str | Path | None) -> Path | None:
    if root is None:
        return None
    folder = Path(root).expanduser().resolve()
    if not folder.is_dir():
        raise InputError(f"--root {root}: not a folder", "root")
    return folder


def _inside(root: Path | None, path: str) -> Path:
    """`path` resolved inside `root` (refused outside it, or with no root)."""
    if root is None:
        raise InputError(
            "this server reads no file: pass the text to audit, or start it with "
            "napkin mcp --root FOLDER",
            "path",
        )
    found = (root / path).resolve()
    if not found.is_relative_to(root):
        raise InputError(f"path {path!r} is outside the folder this server may read", "path")
    return found


def _summary(function: Callable[..., object]) -> str:
    return " ".join((function.__doc__ or "").split())


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("napkinmath")
    except PackageNotFoundError:
        return "0"
