"""`napkin solve ... --explain`: when the givens disagree, the table of alternatives
(`napkinmath.solving.reconcile`) is printed before the error."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

#: the options of solve that reconcile takes
_TAKEN = ("gpu", "model", "tolerance", "precision")


def explain(targets: Sequence[str], options: Mapping[str, object], fmt: str) -> None:
    """Print the reconciliation of a solve's givens in `fmt` (text, markdown or json)."""
    from napkinmath.solving.reconcile import reconcile

    skipped = ("units", "achievable", "samples", "seed", "on_inconsistent", "digits", "records")
    kept = {k: v for k, v in options.items() if k not in skipped}
    found = reconcile(tuple(targets), **kept)  # type: ignore[arg-type]
    if fmt == "json":
        print(json.dumps(found.to_dict(), indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        print(found.to_markdown())
    else:
        print(found)
