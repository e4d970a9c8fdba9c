"""Text and math for pdflatex: escape LaTeX's specials and spell Unicode as LaTeX commands.

Source notes carry Greek letters (λ, ρ, α), relations (≃, ≤), µ and typographic signs that
pdflatex cannot typeset from UTF-8 with its default fonts; `text` and `math` turn them into
commands that need only amsmath. A character with no spelling falls back to its ASCII
decomposition (é -> e), never to an error.
"""

from __future__ import annotations

import re
import unicodedata

from napkinmath.text.visible import visible

_GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "epsilon",
    "ζ": "zeta",
    "η": "eta",
    "θ": "theta",
    "ι": "iota",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "µ": "mu",
    "ν": "nu",
    "ξ": "xi",
    "π": "pi",
    "ρ": "rho",
    "σ": "sigma",
    "τ": "tau",
    "υ": "upsilon",
    "φ": "phi",
    "χ": "chi",
    "ψ": "psi",
    "ω": "omega",
    "Γ": "Gamma",
    "Δ": "Delta",
    "Θ": "Theta",
    "Λ": "Lambda",
    "Ξ": "Xi",
    "Π": "Pi",
    "Σ": "Sigma",
    "Φ": "Phi",
    "Ψ": "Psi",
    "Ω": "Omega",
}
#: math-mode spellings of symbols (used in text as $...$)
_MATH = {
    "×": r"\times",
    "·": r"\cdot",
    "−": "-",
    "≤": r"\leq",
    "≥": r"\geq",
    "≠": r"\neq",
    "≈": r"\approx",
    "≃": r"\simeq",
    "∼": r"\sim",
    "∝": r"\propto",
    "→": r"\to",
    "←": r"\leftarrow",
    "⇒": r"\Rightarrow",
    "↔": r"\leftrightarrow",
    "∞": r"\infty",
    "±": r"\pm",
    "√": r"\surd",
    "∛": r"\sqrt[3]{\ }",
    "⌈": r"\lceil",
    "⌉": r"\rceil",
    "⌊": r"\lfloor",
    "⌋": r"\rfloor",
    "∑": r"\sum",
    "∏": r"\prod",
    "∂": r"\partial",
    "∈": r"\in",
    "′": r"\prime",
    "°": r"^\circ",
    "…": r"\ldots",
    "✓": r"\surd",
    "⁰": "^{0}",
    "¹": "^{1}",
    "²": "^{2}",
    "³": "^{3}",
    "⁴": "^{4}",
    "⁵": "^{5}",
    "⁶": "^{6}",
    "⁷": "^{7}",
    "⁸": "^{8}",
    "⁹": "^{9}",
    "⁻": "^{-}",
    "₀": "_{0}",
    "₁": "_{1}",
    "₂": "_{2}",
    "₃": "_{3}",
    "₄": "_{4}",  # runs (10⁻¹⁶) merge into one ^{-16}: see _add
    **{k: "\\" + v for k, v in _GREEK.items()},
}
#: text-mode spellings
_TEXT = {
    "–": "--",
    "—": "---",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "„": ",,",
    "\u00a0": "~",
    "\u202f": r"\,",
    "\u2009": r"\,",
    "✗": "X",
    "§": r"\S{}",
    "¶": r"\P{}",
    "©": r"\textcopyright{}",
    "€": "EUR",
    "£": r"\pounds{}",
    "•": r"\textbullet{}",
}
_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def _fallback(char: str) -> str:
    """An ASCII stand-in for a character LaTeX cannot spell here (é -> e), or '?'."""
    plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
    return plain or "?"


def _add(run: list[str], spelled: str) -> None:
    """Append a math spelling; a superscript or subscript digit joins the one before it
    (⁻¹⁶ is ^{-16}, not ^{-}^{1}^{6}, which TeX refuses as a double superscript)."""
    if run and spelled[:2] in ("^{", "_{") and run[-1][:2] == spelled[:2]:
        run[-1] = run[-1][:-1] + spelled[2:]
    else:
        run.append(spelled)


_BLANK_LINE = re.compile(r"\n[ \t]*\n\s*")


def text(value: str) -> str:
    """Plain text (a note, a title, a source) as LaTeX text mode; runs of symbols become one
    math group ($\\alpha \\cdot \\rho$). No character of it can become a TeX command:
    specials are escaped, control characters and bidi overrides shown as escapes (\\x1b,
    <U+202E>, as the text output shows them), a blank line is a space (no \\par inside an
    argument)."""
    out: list[str] = []
    run: list[str] = []  # math symbols waiting to be closed into one $...$
    for char in _BLANK_LINE.sub(" ", visible(str(value), keep="\n\t")):
        if char in _MATH and char not in _SPECIAL:
            _add(run, _MATH[char])
            continue
        if run:
            out.append("$" + " ".join(run) + "$")
            run = []
        if char in _SPECIAL:
            out.append(_SPECIAL[char])
        elif char.isascii():
            out.append(char)
        elif char in _TEXT:
            out.append(_TEXT[char])
        else:
            out.append(_fallback(char))
    if run:
        out.append("$" + " ".join(run) + "$")
    return "".join(out)


def math(value: str) -> str:
    """Math already in LaTeX that may still hold Unicode (a unit's µ, a symbol's ρ); a control
    character is shown as text (\\text{\\textbackslash{}x00})."""
    out: list[str] = []
    for char in value:
        if char.isascii() and (char.isprintable() or char in "\n\t"):
            out.append(char)
        elif char in _MATH:
            spelled = _MATH[char]
            _add(out, spelled + " " if spelled[-1].isalpha() else spelled)
        else:
            out.append(r"\text{" + text(char) + "}")
    return "".join(out)


PREAMBLE = "\n".join(
    [
        r"\documentclass{article}",
        r"\usepackage{amsmath}",
        r"\usepackage[T1]{fontenc}",
        r"\begin{document}",
    ]
)


def document(body: str) -> str:
    """A standalone document around a fragment (for pdflatex)."""
    return f"{PREAMBLE}\n{body}\n\\end{{document}}\n"


#: the commands a symbol of yours may use (`checked_symbol`): Greek letters, accents, fonts
#: and a few operators; nothing that reads a file, writes one, runs a command or defines
SYMBOL_COMMANDS = frozenset(
    {*_GREEK.values(), *(g.capitalize() for g in _GREEK.values())}
    | {"varepsilon", "vartheta", "varphi", "varrho", "varsigma", "ell", "infty", "partial"}
    | {"mathrm", "mathit", "mathbf", "mathsf", "mathtt", "mathcal", "text", "operatorname"}
    | {"hat", "widehat", "bar", "overline", "tilde", "widetilde", "dot", "ddot", "vec"}
    | {"prime", "cdot", "times", "sum", "prod", "star", "ast", "dagger", "min", "max"}
    | {"lfloor", "rfloor", "lceil", "rceil", "langle", "rangle", ",", ";", "!", " "}
    | {"$", "%", "#", "&"}  # the signs themselves, escaped
)
_SYMBOL_TOKEN = re.compile(
    r"\\([A-Za-z]+|[,;! $%#&])|([A-Za-z0-9_^{}()\[\]'+\-*/|.,:<>= ])|(.)", re.S
)


def checked_symbol(text: str) -> str | None:
    """Why `text` is not a safe LaTeX symbol, or None when it is: letters, digits, a few
    signs, balanced braces, and the commands of `SYMBOL_COMMANDS` only (no \\input,
    \\write18, \\def, no ^^ escapes, $, %, # or &)."""
    if "^^" in text:
        return "'^^' (a character escape) is not allowed"
    depth = 0
    for match in _SYMBOL_TOKEN.finditer(text):
        command, plain, other = match.groups()
        if command is not None and command not in SYMBOL_COMMANDS:
            return f"the command \\{command} is not allowed"
        if other is not None:
            return f"the character {other!r} is not allowed"
        if plain == "{":
            depth += 1
        elif plain == "}":
            depth -= 1
            if depth < 0:
                return "a '}' closes no '{'"
    return "a '{' is not closed" if depth else None
