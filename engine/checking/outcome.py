"""The outcome of a check: napkinmath's value, the verdict on a claim, and its renderings."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import pint

from napkinmath.checking.confusions import Candidate
from napkinmath.checking.names import Resolved
from napkinmath.text.dimensions import (
    dimension_name,
    dimension_text,
    human,
)
from napkinmath.text.escape import clip, md_code, md_prose, md_text, visible
from napkinmath.text.numbers import format_value
from napkinmath.units import format_quantity, format_unit

CLAIM_TOLERANCE = 0.02
#: Names that only give context to the confusion finder (ring size, heads, GPUs).
CONTEXT_NAMES = ("n", "ring_size", "n_ranks", "n_heads", "n_kv_heads", "gpus_per_node", "n_gpus")


def _quantity_dict(q: pint.Quantity) -> dict:
    return {
        "value": float(q.magnitude),
        "unit": format_unit(q.units, style="ascii"),
        "text": format_quantity(q),
    }


# --- the result of a check -----------------------------------------------------------------
class Rendered:
    """Renderers shared by check results and reports: a subclass gives `text`, `markdown`
    (properties) and `to_dict`; printing, Jupyter and JSON follow from them."""

    @property
    def text(self) -> str:
        raise NotImplementedError

    @property
    def markdown(self) -> str:
        raise NotImplementedError

    def to_dict(self) -> dict[str, object]:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.text

    def to_text(self) -> str:
        return self.text

    def to_markdown(self) -> str:
        return self.markdown

    def _repr_markdown_(self) -> str:
        return self.markdown

    def _repr_html_(self) -> str:
        """A notebook's display: `html` (the subclass's), in napkinmath's frame."""
        from napkinmath.text.markup import frame

        return frame(self.html_kind, self.html_parts())

    html_kind = "check"

    def html_parts(self) -> list[str]:
        """The HTML body (escaped); by default the text, as preformatted lines."""
        from napkinmath.text.markup import esc

        return [f'<pre class="text">{esc(self.text)}</pre>']

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text; never NaN or Infinity (non-finite numbers become null)."""
        from napkinmath.arguments import indent as checked_indent
        from napkinmath.text.visible import finite_json

        return json.dumps(
            finite_json(self.to_dict()),
            indent=checked_indent(indent),
            ensure_ascii=False,
            allow_nan=False,
        )


@dataclass
class CheckResult(Rendered):
    """napkinmath's value of an expression, and the verdict on a claimed value if any.

    `status` is "ok" (no claim), "agree" or "disagree"; `candidates` lists the known
    confusions that explain a disagreement, most likely first.
    """

    expression: str
    computed: pint.Quantity
    claimed: pint.Quantity | None = None
    claimed_text: str = ""
    tolerance: float = CLAIM_TOLERANCE
    status: str = "ok"
    ratio: float | None = None
    candidates: list[Candidate] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    names: list[Resolved] = field(default_factory=list)
    reading: str = ""
    mismatch: str = ""
    derivations: dict = field(default_factory=dict)
    label: str = ""
    #: why confirming the candidates stopped before every slip was tried ("" when it did not)
    confirmation_stopped: str = ""
    #: the unit the user chose to see the value in (``to=``, ``--to``); None: a person's choice
    unit: pint.Unit | None = None
    #: the given values (name=value) that nothing used; a claims table refuses such a column
    unused_givens: list[str] = field(default_factory=list)
    #: with no known slip: the single-input changes that would make the claim true, most
    #: plausible first (`napkinmath.checking.requires`)
    requirements: list = field(default_factory=list)

    @property
    def value(self) -> pint.Quantity[float]:
        """napkinmath's value in the unit a person would choose."""
        cached = self.__dict__.get("_value")
        if cached is None or cached[0] is not self.computed:  # renderers ask several times
            shown = human(self.computed) if self.unit is None else self.computed.to(self.unit)
            cached = (self.computed, shown)
            self.__dict__["_value"] = cached
        return cached[1]

    @property
    def agrees(self) -> bool | None:
        """True or False for a claim, None when there was nothing to compare."""
        return None if self.claimed is None else self.status == "agree"

    @property
    def relative_difference(self) -> float | None:
        """(claimed - computed) / computed, when both have one dimension."""
        if self.ratio is None:
            return None
        return self.ratio - 1.0

    @property
    def dimension(self) -> str:
        """'a data rate', or the dimensions when they have no name: '[time·accelerator]'."""
        dim = self.computed.dimensionality
        name = dimension_name(dim)
        return f"[{dimension_text(dim)}]" if name.startswith("something") else name

    def _claimed_in_unit(self) -> str:
        if self.claimed is None or self.mismatch:
            return ""
        try:
            same = self.computed.to(self.claimed.units)
        except (pint.PintError, ArithmeticError):
            return ""
        if format_unit(same.units) == format_unit(self.value.units) or not math.isfinite(
            float(same.magnitude)
        ):
            return ""
        return format_quantity(same)

    def _shown_candidates(self) -> tuple[list[Candidate], str]:
        """Candidates worth a paragraph (a quarter of the best score or more), and the rest
        named in one line; `candidates` always holds them all."""
        if not self.candidates:
            return [], ""
        best = self.candidates[0].score
        shown = [c for c in self.candidates if c.score >= 0.25 * best]
        rest = [c.label for c in self.candidates if c.score < 0.25 * best]
        return shown, ", ".join(rest)

    def verdict(self) -> str:
        """One line: AGREE / DISAGREE and by how much."""
        if self.claimed is None:
            return ""
        if self.mismatch:
            return f"DISAGREE: {self.mismatch}"
        if self.ratio is None:
            if float(self.computed.magnitude) == 0:
                return "DISAGREE: napkinmath's value is zero and the claim is not"
            return "DISAGREE: the claim and napkinmath's value are beyond any ratio a float holds"
        if self.status == "agree":
            return (
                f"AGREE within {_percent(self.tolerance, sign=False)} "
                f"({_percent(self.ratio - 1)} "
                f"from napkinmath's value)"
            )
        return (
            f"DISAGREE: the claim is {_how_far(self.ratio)} napkinmath's value "
            f"({_percent(self.ratio - 1)}; tolerance {_percent(self.tolerance, sign=False)})"
        )

    @property
    def value_text(self) -> str:
        """The value as a person writes it: 29.49M USD, 7B param, and a percent for a library
        variable declared as a fraction when the expression is its bare name (mfu = 34.51%)."""
        var = None
        name = self.expression.strip()
        if self.unit is None and name.isidentifier():
            from napkinmath.catalog.lookup import variables

            var = variables().get(name)
        return format_value(self.value, var)

    @property
    def text(self) -> str:
        """The verdict as plain text (what `napkin check` prints); text from the user is shown
        with its control characters escaped."""
        label = visible(clip(self.label, 200)) + ": " if self.label else ""
        lines = [
            f"{label}{visible(self.reading or self.expression)} = "
            f"{self.value_text}   ({self.dimension})"
        ]
        if self.claimed is not None:
            also = self._claimed_in_unit()
            lines.append(
                f"claimed: {format_value(self.claimed)}"
                + (f"   (napkinmath: {also})" if also else "")
            )
            lines.append(("✓ " if self.status == "agree" else "✗ ") + self.verdict())
        shown, others = self._shown_candidates()
        if shown:
            lines.append("Likely causes, most likely first:")
            for number, candidate in enumerate(shown, 1):
                lines.append(f"  {number}. {visible(candidate.text())}")
            if others:
                lines.append(f"  Less likely, same factor: {others}.")
        elif self.status == "disagree" and not self.mismatch and (self.ratio or 0) > 0:
            lines.append("No known confusion explains this ratio: check the inputs one by one.")
            lines += self._requirement_lines()
        if self.notes:
            lines.append("Notes:")
            lines.extend(f"  - {visible(note)}" for note in self.notes)
        return "\n".join(lines)

    def _requirement_lines(self) -> list[str]:
        if not self.requirements:
            return []
        lines = ["What the claim would require, one input at a time (most plausible first):"]
        lines += [f"  {n}. {visible(r.text())}" for n, r in enumerate(self.requirements, 1)]
        return lines

    def explained(self) -> str:
        """The text, with each requirement's derivation (`napkin check ... --explain`)."""
        lines = [self.text]
        for r in self.requirements:
            if r.derivation:
                lines += ["", f"{visible(r.name)} from the claim:"]
                lines += ["  " + visible(line) for line in r.derivation.splitlines()]
        return "\n".join(lines)

    def __repr__(self) -> str:
        claim = f", claimed {format_quantity(self.claimed)}" if self.claimed is not None else ""
        return (
            f"<CheckResult {self.expression!r} = {format_quantity(self.value)}{claim}: "
            f"{self.status}>"
        )

    def html_parts(self) -> list[str]:
        """The verdict, the likely causes and notes, then the derivation of each name the
        expression used (each a Result's HTML, its math as MathML)."""
        from napkinmath.text.markup import esc

        label = f"{esc(clip(self.label, 200))}: " if self.label else ""
        out = [
            f'<p class="answer">{label}<code>{esc(self.reading or self.expression)}</code> = '
            f"<strong>{esc(self.value_text)}</strong> ({esc(self.dimension)})</p>"
        ]
        if self.claimed is not None:
            also = self._claimed_in_unit()
            mark = "✓" if self.status == "agree" else "✗"
            kind = "ok" if self.status == "agree" else "warning"
            out.append(
                f"<p>claimed: {esc(format_value(self.claimed))}"
                + (f" (napkinmath: {esc(also)})" if also else "")
                + f'<br><span class="{kind}">{mark} {esc(self.verdict())}</span></p>'
            )
        shown, others = self._shown_candidates()
        if shown:
            out.append(
                "<p>Likely causes, most likely first:</p><ol>"
                + "".join(f"<li>{esc(c.text())}</li>" for c in shown)
                + "</ol>"
            )
            if others:
                out.append(f'<p class="muted">Less likely, same factor: {esc(others)}.</p>')
        elif self.status == "disagree" and not self.mismatch and (self.ratio or 0) > 0:
            out.append(
                "<p>No known confusion explains this ratio: check the inputs one by one.</p>"
            )
        if self.notes:
            out.append("<p>Notes:</p><ul>" + "".join(f"<li>{esc(n)}</li>" for n in self.notes))
            out.append("</ul>")
        for name, result in self.derivations.items():
            if hasattr(result, "_repr_html_"):
                out.append(
                    f"<details open><summary>How <code>{esc(name)}</code> was found</summary>"
                )
                out += [result._repr_html_(), "</details>"]
        return out

    @property
    def markdown(self) -> str:
        """The verdict as Markdown; text from the user cannot add headings, HTML or links."""
        label = f"**{md_text(clip(self.label, 200))}**: " if self.label else ""
        lines = [
            f"{label}{md_code(self.reading or self.expression)} = "
            f"**{self.value_text}** ({self.dimension})",
            "",
        ]
        if self.claimed is not None:
            mark = "✅" if self.status == "agree" else "❌"
            lines += [
                f"- claimed: {md_prose(format_value(self.claimed))}",
                f"- {mark} {md_prose(self.verdict())}",
            ]
        shown, others = self._shown_candidates()
        if shown:
            lines += ["", "Likely causes, most likely first:", ""]
            lines += [f"{n}. {md_prose(c.text())}" for n, c in enumerate(shown, 1)]
            if others:
                lines += ["", f"Less likely, same factor: {md_prose(others)}."]
        if self.requirements and not shown:
            lines += [
                "",
                "What the claim would require, one input at a time (most plausible first):",
                "",
            ]
            lines += [f"{n}. {md_prose(r.text())}" for n, r in enumerate(self.requirements, 1)]
        if self.notes:
            lines += ["", "Notes:", ""] + [f"- {md_prose(note)}" for note in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form of the check."""
        dim = self.computed.dimensionality
        return {
            "label": self.label,
            "expression": self.expression,
            "reading": self.reading or self.expression,
            "value": _quantity_dict(self.value),
            "dimension": {"name": dimension_name(dim), "text": dimension_text(dim)},
            "claimed": _quantity_dict(self.claimed) if self.claimed is not None else None,
            "claimed_text": self.claimed_text,
            "status": self.status,
            "ratio": self.ratio,
            "relative_difference": self.relative_difference,
            "tolerance": self.tolerance,
            "mismatch": self.mismatch or None,
            "candidates": [c.to_dict() for c in self.candidates],
            "notes": list(self.notes),
            "confirmation_stopped": self.confirmation_stopped or None,
            **(
                {"requirements": [r.to_dict() for r in self.requirements]}
                if self.requirements
                else {}
            ),
            "names": [
                {"name": r.name, **_quantity_dict(r.quantity), "origin": r.origin, "source": r.note}
                for r in self.names
                if r.origin != "unit"
            ],
        }


def _percent(x: float, sign: bool = True) -> str:
    """0.02 -> '2%', -0.875 -> '-87.5%', 59 -> '+5,900%'."""
    plus = "+" if sign else ""
    if abs(x) >= 10:
        return f"{x * 100:{plus},.0f}%"
    return f"{x * 100:{plus}.3g}%"


def _how_far(ratio: float) -> str:
    if ratio <= 0:
        return "of the opposite sign to" if ratio < 0 else "zero, unlike"
    if ratio >= 1:
        return f"{ratio:.4g}× higher than"
    return f"{1 / ratio:.4g}× lower than"


# --- check ---------------------------------------------------------------------------------
