"""`napkin solve ... --explain`: when the givens disagree, the table of alternatives
(`napkinmath.checking.reconcile`) is printed before the error."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def explain(
    targets: Sequence[str], options: Mapping[str, object], fmt: str, error: BaseException
) -> None:
    """Print the reconciliation of a solve's givens in `fmt` (text or markdown); for json it
    becomes part of the error document (`error.reconciliation`)."""
    from napkinmath.checking.reconcile import reconcile

    skipped = ("units", "achievable", "samples", "seed", "on_inconsistent", "digits", "ranges")
    kept = {k: v for k, v in options.items() if k not in skipped}
    try:
        found = reconcile(tuple(targets), **kept)  # type: ignore[arg-type]
    except Exception:  # the error itself follows: the table is a help, never a failure
        return
    if fmt == "json":
        error.reconciliation = found.to_dict()  # type: ignore[attr-defined]
    elif fmt == "markdown":
        print(found.to_markdown())
    else:
        print(found)
