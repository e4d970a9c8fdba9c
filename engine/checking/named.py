"""What a document's line says it computes: a library quantity of a named record.

    KV cache per token for Llama-3-70B: 2 * 80 * 64 * 128 * 2 B = 2.6 MB

agrees with itself (its arithmetic is right), but the line names a quantity napkinmath knows
(the KV cache per token) of a record it has (Llama-3-70B): napkinmath's own value, 327,680 B
a token, is 8x less, and the slip is the 64 attention heads written where the 8 KV heads
belong. `named_claim` finds such a line's quantity and record, so the audit checks the
claimed value against napkinmath's as well as the line's arithmetic (issue 47 §3).

A record is a word of the line's label (the text before its arithmetic) that contains a
digit and names a model or an accelerator record ("Llama-3-70B", "H100"); a quantity is a
library variable the label's words name: its own name, its words in its description, or a
practitioner's word for it (`library.aliases`), kept only where the record alone determines
it and its dimension is the claimed value's, with a "per token" (or "per GPU", ...) of the
label read as the unit's denominator.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: a label's words that may name a record: with a digit, as model and accelerator names are
_RECORD_WORD = re.compile(r"[A-Za-z][\w.\-]*\d[\w.\-]*|\d[\w.\-]*[A-Za-z][\w.\-]*")
#: "per token", "/GPU": the denominator a label gives its value
_PER = re.compile(r"(?:\bper\s+|/)(token|sequence|gpu|node|param|step|request)s?\b", re.I)
#: the words of a variable's name its label must hold, at least this share of them
_SHARE = 0.75


def named_claim(label: str, claimed: str) -> dict[str, str] | None:
    """The claims row that checks `claimed` against the library quantity `label` names for
    the record it names ({"quantity", "claimed", "model" or "gpu", "source"}), or None."""
    record = _record(label)
    if record is None:
        return None
    kind, name = record
    per = _PER.search(label)
    wanted = f"{claimed}/{per.group(1).lower()}" if per else claimed
    for variable in _quantities(label):
        value = _value(variable, kind, name)
        if value is not None and _same_dimension(value, wanted):
            return {
                "quantity": variable,
                "claimed": wanted,
                kind: name,
                "source": f"the line names {variable} of {name}: checked against napkinmath's",
            }
    return None


def _record(label: str) -> tuple[str, str] | None:
    """("model" | "gpu", record id) of the first record a word of `label` names."""
    from napkinmath import hardware as hw
    from napkinmath.errors import NapkinError

    words = _RECORD_WORD.findall(label)
    for size in (3, 2, 1):  # "Llama 3.3 70B" before "70B"
        for start in range(len(words) - size + 1):
            phrase = " ".join(words[start : start + size])
            try:
                record = hw.get(phrase)
            except NapkinError:
                continue
            if record.kind == "model":
                return "model", record.id
            if record.kind == "accelerator":
                return "gpu", record.id
    return None


def _quantities(label: str) -> Iterator[str]:
    """The library variables `label` names, the most words matched first."""
    from napkinmath.catalog.lookup import variables
    from napkinmath.library.aliases import ALIASES

    words = set(re.findall(r"[a-z0-9]+", label.lower()))
    words |= {w[:-1] for w in words if len(w) > 3 and w.endswith("s")}  # weights: weight
    known = variables()
    scored: dict[str, float] = {}
    for alias, names in ALIASES.items():
        if set(alias.lower().split("_")) <= words:
            for rank, name in enumerate(names):
                if name in known:
                    scored[name] = max(scored.get(name, 0.0), 1.0 - 0.01 * rank)
    for name in known:
        parts = set(name.split("_")) - {"per"}
        if parts and len(parts & words) / len(parts) >= _SHARE:
            scored[name] = max(scored.get(name, 0.0), len(parts & words) / len(parts))
    yield from sorted(scored, key=lambda n: (-scored[n], n))


def _value(variable: str, kind: str, name: str) -> object | None:
    """napkinmath's value of `variable` from the record alone, or None."""
    from napkinmath.errors import NapkinError
    from napkinmath.solving.solver import solve

    records: dict[str, str | None] = {"gpu": None, "model": None, kind: name}
    try:
        return solve(variable, gpu=records["gpu"], model=records["model"]).value
    except NapkinError:
        return None


def _same_dimension(value: object, claimed: str) -> bool:
    """Whether `claimed` measures what `value` does (a record's per-GPU value is compared
    for one GPU, as claims are)."""
    from napkinmath.units import ureg

    try:
        claim = ureg.Quantity(claimed).dimensionality
        ours = value.dimensionality  # type: ignore[attr-defined]
        return bool(claim == ours or claim / ureg.GPU.dimensionality == ours)
    except Exception:  # a claim pint cannot read: the arithmetic row says so
        return False
