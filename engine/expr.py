"""A safe parser and evaluator for quantities and expressions that users type.

Grammar (no `eval`, no `sympify`: user text never reaches a code path that can execute it)::

    expr    := term (('+' | '-') term)*
    term    := product (('*' | '/' | '·' | '×' | '÷' | 'x') product)*
    product := unary (unary)*                 juxtaposition: "141 GB", "2 (8-1)"
    unary   := ('-' | '+') unary | power
    power   := atom (('^' | '**') unary)?
    atom    := NUMBER [count suffix k K M B b T] ['%'] | unit-group | REF
             | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
    unit-group := NAME ['^' NUMBER] (OP (NAME ['^' NUMBER] | '(' expr ')'))*
                  where each OP ('/' or '*') touches both neighbours: "GB/s", "TFLOP/(s*GPU)"

Two precedence rules make quantities read as people write them:

* a number with its unit is one factor: juxtaposition binds tighter than an explicit `*` or
  `/`, so ``140 GB / 400 Gb/s`` is ``140 GB / (400 Gb/s)``, not ``(140 GB / 400) Gb/s``;
* a unit written without spaces ("GB/s") is one unit.

One exception keeps fractions: ``1/2 GB`` is ``(1/2) GB`` (a '/' touching two plain
numbers). Two numbers side by side ("1 000") are refused rather than multiplied, and a lone
``x`` between operands is the multiplication sign. `parse_with_notes` also returns
"read as ..." when these rules decided the grouping, so a caller can show it.

A NAME is a unit ("TFLOP", "GiB", "h"), a library variable or, written RECORD.key, a value
of a hardware or model record ("H100-SXM.peak_flops"); what a name means is decided by the
`resolve` callback of `evaluate` (default: units and record values). Input is bounded:
length, token count, nesting depth, exponents and number sizes are capped, so hostile text
is refused quickly instead of hanging.
"""

from __future__ import annotations

import difflib
import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

import pint

from .errors import NapkinError, ParseError
from .units import ureg

MAX_LENGTH = 1000
MAX_TOKENS = 400
MAX_DEPTH = 40
MAX_EXPONENT = 64
MAX_DIGITS = 40
MAX_DECIMAL_EXPONENT = 300

#: Count shorthands: "7B" params, "15T" tokens, "16k" GPUs.
COUNT_SUFFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "b": 1e9, "T": 1e12}
#: Suffixes that are also units when read as such ("7B" is 7 bytes or 7e9).
AMBIGUOUS_SUFFIXES = {"B": "byte", "b": "bit"}

FUNCTIONS = {"sqrt": 1, "log": 1, "log2": 1, "log10": 1, "exp": 1, "ceil": 1, "floor": 1,
             "abs": 1, "min": None, "max": None}

_MULTIPLY = ("*", "·", "×")  # and a lone name "x" between operands (see explicit_op)
_DIVIDE = ("/", "÷")

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<number>(?:[0-9]+(?:_[0-9]+)*\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<ref>[A-Za-z][A-Za-z0-9_-]*(?:\.[0-9][A-Za-z0-9_-]*)*\.[A-Za-z_][A-Za-z0-9_]*)
  | (?P<name>[A-Za-z_µμ][A-Za-z0-9_µμ]*)
  | (?P<op>\*\*|[-+*/^()·×÷,%−])
    """,
    re.VERBOSE,
)

#: What a character outside the grammar usually means, for the error message.
_CHARACTER_HINTS = {
    "=": "an expression has no '='; give a claimed value separately (--expect, expect=)",
    "[": "use round parentheses", "]": "use round parentheses",
    "{": "use round parentheses", "}": "use round parentheses",
    "'": "quotes are not part of an expression", '"': "quotes are not part of an expression",
    ".": "a dot only joins a record and a key, like H100-SXM.peak_flops",
    ";": "write one expression", ":": "write one expression",
    "$": "write money as USD, like '2.5 USD/(GPU*h)'",
    "€": "write money as USD", "£": "write money as USD",
    "|": "use abs() for an absolute value", "!": "factorials are not supported",
    "<": "comparisons are not expressions; give a claimed value separately",
    ">": "comparisons are not expressions; give a claimed value separately",
    "@": "'@' is not an operator here", "&": "'&' is not an operator here",
    "\\": "'\\' is not an operator here", "#": "comments are not part of an expression",
    "~": "write 'about' values as plain numbers",
}


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    pos: int

    @property
    def end(self) -> int:
        return self.pos + len(self.text)


@dataclass(frozen=True)
class Node:
    """One node of the expression tree.

    `pos` is where an error about this node points (an operator's own position for a
    binary operation); `start`/`end` delimit the node's source text. `style` tells how a
    product was written: "implicit" (juxtaposition, "141 GB"), "unit" (a unit written
    without spaces, "GB/s"), "fraction" ("1/2" before a unit), or "" (an explicit operator).
    """

    kind: str  # "num", "name", "neg", "binop", "pow", "call"
    pos: int
    value: float = 0.0
    suffix: str = ""
    text: str = ""
    op: str = ""
    args: tuple[Node, ...] = ()
    start: int = -1
    end: int = -1
    style: str = ""
    paren: bool = False  # the user wrote parentheses around this node


def tokenize(text: str) -> list[Token]:
    """Split `text` into tokens, refusing anything outside the grammar with its position."""
    if not isinstance(text, str):
        raise ParseError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ParseError(f"input is {len(text)} characters long; the limit is {MAX_LENGTH}")
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise _bad_character(text, pos)
        kind = match.lastgroup or ""
        token_text = match.group()
        if kind == "number":
            _check_number(token_text, text, pos)
            end = match.end()
            if (end < len(text) and text[end] in COUNT_SUFFIXES
                    and not (end + 1 < len(text) and re.match(r"[A-Za-z0-9_]", text[end + 1]))):
                tokens.append(Token("number", token_text, pos))
                tokens.append(Token("suffix", text[end], end))
                pos = end + 1
                continue
        elif kind in ("name", "ref"):
            _check_name(token_text, text, pos)
        elif token_text == "−":  # U+2212, the typographic minus sign pasted from documents
            token_text = "-"
        if kind != "space":
            tokens.append(Token(kind, token_text, pos))
        if len(tokens) > MAX_TOKENS:
            raise ParseError(f"expression has more than {MAX_TOKENS} tokens", text, pos)
        pos = match.end()
    return tokens


def _bad_character(text: str, pos: int) -> ParseError:
    char = text[pos]
    hint = _CHARACTER_HINTS.get(char, "")
    shown = repr(char) if char.isprintable() else f"U+{ord(char):04X}"
    message = f"unexpected character {shown}"
    return ParseError(f"{message}: {hint}" if hint else message, text, pos)


def _check_number(token: str, text: str, pos: int) -> None:
    mantissa, _, exponent = token.lower().partition("e")
    if len(mantissa.replace(".", "").replace("_", "")) > MAX_DIGITS:
        raise ParseError(f"number has more than {MAX_DIGITS} digits", text, pos)
    if exponent and abs(int(exponent)) > MAX_DECIMAL_EXPONENT:
        raise ParseError(f"number exponent is beyond ±{MAX_DECIMAL_EXPONENT}", text, pos)


def _check_name(token: str, text: str, pos: int) -> None:
    for part in token.split("."):
        if part.startswith("_"):
            raise ParseError(f"{token!r}: a name cannot start with '_' (names are units, "
                             "napkinmath variables, or RECORD.key hardware values)", text, pos)


def _is_num(node: Node) -> bool:
    """A plain number literal, possibly negated: the parts of a fraction like 1/2."""
    if node.kind == "neg":
        return _is_num(node.args[0])
    return node.kind == "num" and not node.suffix


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0
        self.depth = 0
        self.grouped = False  # a precedence rule decided a grouping (see parse_with_notes)

    def peek(self, ahead: int = 0) -> Token | None:
        index = self.index + ahead
        return self.tokens[index] if 0 <= index < len(self.tokens) else None

    def take(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def error(self, message: str, token: Token | None = None) -> ParseError:
        pos = token.pos if token else len(self.text)
        return ParseError(message, self.text, pos)

    def expect(self, op: str) -> Token:
        token = self.peek()
        if token is None or token.text != op:
            found = f"{token.text!r}" if token else "the end"
            raise self.error(f"expected {op!r} but found {found}", token)
        return self.take()

    def parse(self) -> Node:
        if not self.tokens:
            raise ParseError("empty expression: give a number with its unit, like '80 GB'")
        node = self.expr()
        token = self.peek()
        if token is not None:
            raise self.unexpected(token)
        return node

    def unexpected(self, token: Token) -> ParseError:
        if token.text == ")":
            return self.error("unbalanced ')': no '(' opens it", token)
        if token.text == ",":
            before = self.peek(-1)
            after = self.peek(1)
            if (before is not None and after is not None and before.kind == "number"
                    and after.kind == "number" and re.fullmatch(r"[0-9]{3}", after.text)
                    and before.end == token.pos and token.end == after.pos):
                return self.error("write numbers without thousands separators "
                                  f"({before.text}{after.text}, not {before.text},{after.text})",
                                  token)
            return self.error("a ',' only separates the arguments of min() or max()", token)
        if token.kind == "suffix":
            return self.error(f"unexpected {token.text!r} after a number", token)
        return self.error(f"unexpected {token.text!r}", token)

    def nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"expression is nested more than {MAX_DEPTH} levels deep", self.peek())

    # --- precedence levels ------------------------------------------------------------------
    def expr(self) -> Node:
        self.nested()
        node = self.term()
        while (token := self.peek()) is not None and token.kind == "op" and token.text in "+-":
            self.take()
            right = self.term()
            node = Node("binop", token.pos, op=token.text, args=(node, right),
                        start=node.start, end=right.end)
        self.depth -= 1
        return node

    def explicit_op(self) -> str | None:
        token = self.peek()
        if token is None:
            return None
        if token.kind == "op" and token.text in _MULTIPLY:
            return "*"
        if token.kind == "op" and token.text in _DIVIDE:
            return "/"
        if token.kind == "name" and token.text == "x" and self.starts_operand(self.peek(1)):
            return "*"
        return None

    def term(self) -> Node:
        node = self.product()
        while (op := self.explicit_op()) is not None:
            fraction = (op == "/" and _is_num(node) and self.tight(node.end)
                        and self.peek(1).kind == "number")
            token = self.take()
            if fraction:  # "1/2 GB" is half a gigabyte: a touching number/number is a fraction
                divisor = self.number()
                node = Node("binop", token.pos, op="/", args=(node, divisor),
                            start=node.start, end=divisor.end, style="fraction")
                if self.starts_operand(self.peek()):
                    self.grouped = True
                    node = self.product(node)
                continue
            right = self.product()
            if op == "/" and _grouped(right):
                self.grouped = True
            node = Node("binop", token.pos, op=op, args=(node, right),
                        start=node.start, end=right.end)
        return node

    def starts_operand(self, token: Token | None) -> bool:
        if token is None:
            return False
        if token.kind == "name" and token.text == "x":
            return False
        return token.kind in ("number", "name", "ref") or token.text == "("

    def product(self, first: Node | None = None) -> Node:
        node = first if first is not None else self.unary()
        while self.starts_operand(token := self.peek()):
            if token.kind == "number" and _ends_in_number(node):
                raise self.error(
                    "two numbers side by side: write one number without thousands separators "
                    "(1000000, 1e6 or 1_000_000), or put '*' between them", token)
            right = self.unary()
            node = Node("binop", token.pos, op="*", args=(node, right), start=node.start,
                        end=right.end, style="implicit")
        return node

    def unary(self) -> Node:
        token = self.peek()
        if token is not None and token.kind == "op" and token.text in "+-":
            self.take()
            self.nested()
            operand = self.unary()
            self.depth -= 1
            if token.text == "+":
                return operand
            return Node("neg", token.pos, args=(operand,), start=token.pos, end=operand.end)
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        token = self.peek()
        if token is not None and token.text in ("^", "**"):
            self.take()
            self.nested()
            exponent = self.unary()
            self.depth -= 1
            return Node("pow", token.pos, args=(base, exponent), start=base.start,
                        end=exponent.end)
        return base

    def atom(self) -> Node:
        token = self.peek()
        if token is None:
            raise self.error("expression ends too early")
        if token.kind == "number":
            return self.number()
        if token.kind == "ref":
            self.take()
            return self.unit_group(self.name_node(token))
        if token.kind == "name":
            nxt = self.peek(1)
            if (token.text in FUNCTIONS and (nxt is None or nxt.text != "(")
                    and _registry_unit(token.text) is None):  # "min" is also the minute
                raise self.error(f"{token.text}() is a function: write {token.text}(...) with "
                                 "parentheses", token)
            if token.text == "x":
                raise self.error("'x' is the multiplication sign: put a number or a quantity "
                                 "on both sides of it", token)
            self.take()
            nxt = self.peek()
            if nxt is not None and nxt.text == "(" and (token.text in FUNCTIONS
                                                         or nxt.pos == token.end):
                return self.call(token)
            return self.unit_group(self.unit_element(token))
        if token.text == "(":
            self.take()
            node = self.expr()
            self.expect(")")
            return replace(node, paren=True)
        raise self.unexpected(token)

    def number(self) -> Node:
        token = self.take()
        try:
            value = float(token.text)
        except ValueError:
            raise self.error(f"{token.text!r} is not a number", token) from None
        node = Node("num", token.pos, value=value, text=token.text, start=token.pos,
                    end=token.end)
        nxt = self.peek()
        if nxt is not None and nxt.kind == "suffix":
            self.take()
            node = Node("num", token.pos, value=value, suffix=nxt.text,
                        text=token.text + nxt.text, start=token.pos, end=nxt.end)
        nxt = self.peek()
        if nxt is not None and nxt.text == "%":
            self.take()
            node = Node("num", token.pos, value=node.value / 100, suffix=node.suffix,
                        text=node.text + "%", start=token.pos, end=nxt.end)
        return node

    @staticmethod
    def name_node(token: Token) -> Node:
        return Node("name", token.pos, text=token.text, start=token.pos, end=token.end)

    def tight(self, left_end: int, ahead: int = 0) -> bool:
        """The operator `ahead` touches what precedes it and what follows it."""
        op, after = self.peek(ahead), self.peek(ahead + 1)
        return (op is not None and after is not None and op.pos == left_end
                and after.pos == op.end)

    def unit_element(self, token: Token) -> Node:
        """NAME with an optional touching exponent: "m^2", "s**-1"."""
        node = self.name_node(token)
        op = self.peek()
        if op is None or op.text not in ("^", "**") or not self.tight(token.end):
            return node
        sign = self.peek(1)
        number = self.peek(2) if sign is not None and sign.text in "+-" else sign
        if number is None or number.kind != "number" or (
                sign is not number and number.pos != sign.end):
            return node
        self.take()
        exponent = self.unary()
        return Node("pow", op.pos, args=(node, exponent), start=node.start, end=exponent.end)

    def unit_group(self, node: Node) -> Node:
        """Names joined by touching '/' or '*' form one unit: "GB/s", "TFLOP/(s*GPU)"."""
        while (op := self.peek()) is not None and op.kind == "op" \
                and op.text in ("/", "*", "·") and self.tight(node.end):
            after = self.peek(1)
            if after.kind in ("name", "ref") and after.text != "x":
                if after.kind == "name" and self.peek(2) is not None \
                        and self.peek(2).text == "(" and after.text in FUNCTIONS:
                    break
                self.take()
                self.take()
                right = (self.unit_element(after) if after.kind == "name"
                         else self.name_node(after))
            elif after.text == "(":
                self.take()
                self.take()
                right = replace(self.expr(), paren=True)
                self.expect(")")
            else:
                break
            node = Node("binop", op.pos, op="/" if op.text == "/" else "*", args=(node, right),
                        start=node.start, end=right.end, style="unit")
        return node

    def call(self, name: Token) -> Node:
        if name.text not in FUNCTIONS:
            known = ", ".join(FUNCTIONS)
            raise self.error(f"unknown function {name.text!r}; the functions are: {known}", name)
        self.expect("(")
        self.nested()
        args = [self.expr()]
        while (token := self.peek()) is not None and token.text == ",":
            self.take()
            args.append(self.expr())
        closing = self.expect(")")
        self.depth -= 1
        arity = FUNCTIONS[name.text]
        if arity is not None and len(args) != arity:
            raise self.error(f"{name.text}() takes {arity} argument, got {len(args)}", name)
        return Node("call", name.pos, text=name.text, args=tuple(args), start=name.pos,
                    end=closing.end)


def _grouped(node: Node) -> bool:
    """A divisor that only the precedence rules keep together ("400 Gb/s" after a '/')."""
    return node.kind == "binop" and node.style in ("implicit", "unit") and not node.paren


def _ends_in_number(node: Node) -> bool:
    """The factor just before a juxtaposed token is a bare number ("1 000")."""
    while node.kind == "binop" and node.style == "implicit" and not node.paren:
        node = node.args[1]
    return node.kind == "num" and not node.paren


def parse(text: str) -> Node:
    """Parse user text into an expression tree, or raise ParseError pointing at the fault."""
    return _Parser(text).parse()


def parse_with_notes(text: str) -> tuple[Node, list[str]]:
    """Parse, and say how the text was read when a precedence rule decided the grouping.

    >>> parse_with_notes("140 GB / 400 Gb/s")[1]
    ['read as 140 GB / (400 Gb/s)']
    """
    parser = _Parser(text)
    node = parser.parse()
    notes = [f"read as {reading(node)}"] if parser.grouped else []
    return node, notes


# --- showing how an expression was read ---------------------------------------------------
def _level(node: Node) -> int:
    """How tightly a node binds when written back: 1 for + -, up to 7 for an atom."""
    if node.paren:
        return 7
    if node.kind == "binop":
        return {"unit": 6, "implicit": 3, "fraction": 2}.get(
            node.style, 1 if node.op in "+-" else 2)
    return {"neg": 4, "pow": 5}.get(node.kind, 7)


def reading(node: Node) -> str:
    """The expression written back with the parentheses its grouping implies.

    >>> reading(parse("1/2 GB + 140 GB / 400 Gb/s"))
    '(1/2) GB + 140 GB / (400 Gb/s)'
    """
    if node.paren:
        return f"({reading(replace(node, paren=False))})"
    if node.kind in ("num", "name"):
        return node.text
    if node.kind == "call":
        return f"{node.text}({', '.join(reading(a) for a in node.args)})"
    if node.kind == "neg":
        return f"-{_wrap(node.args[0], 4, strict=True)}"
    if node.kind == "pow":
        return f"{_wrap(node.args[0], 6, strict=False)}^{_wrap(node.args[1], 6, strict=False)}"
    left, right = node.args
    if node.style == "unit":
        right_text = f"({reading(right)})" if right.kind == "binop" else _wrap(right, 6, False)
        return f"{_wrap(left, 5, strict=False)}{node.op}{right_text}"
    if node.style == "fraction":
        return f"{reading(left)}/{reading(right)}"
    if node.style == "implicit":
        return f"{_wrap(left, 3, strict=False)} {_wrap(right, 3, strict=True)}"
    level = _level(node)
    right_text = _wrap(right, level, strict=node.op in "-/")
    if node.op == "/" and _grouped(right):
        right_text = f"({reading(right)})"
    symbol = "·" if node.op == "*" else node.op
    return f"{_wrap(left, level, strict=False)} {symbol} {right_text}"


def _wrap(node: Node, level: int, strict: bool) -> str:
    text = reading(node)
    inner = _level(node)
    return f"({text})" if inner < level or (strict and inner == level) else text


# --- names -------------------------------------------------------------------------------
Resolver = Callable[[str, int], "pint.Quantity"]

#: Network spellings read as units: 400 Gbps = 400 Gb/s, 25 GBps = 25 GB/s.
_RATE_SPELLING = re.compile(r"(?P<prefix>[kKMGTPE]?i?)(?P<unit>[bB])ps")
#: Prefixes that make no sense on bits and bytes ("mb" is a millibit: surely MB or Mb).
_SMALL_PREFIXES = ("m", "µ", "μ", "u", "n", "p")
#: Spellings that are not units of the registry, with what to write instead.
_SPELLING_HINTS = {
    "KB": "kB (1000 B) or KiB (1024 B)", "Kb": "kb (1000 bit) or Kib (1024 bit)",
    "d": "day", "percent": "%", "pct": "%",
}


def resolve_unit(name: str, pos: int, text: str = "",
                 notes: list[str] | None = None) -> pint.Quantity:
    """The default reading of a NAME as a unit of napkinmath's registry.

    Plurals are units ("params", "GPUs", "days"); network spellings are read with a note in
    `notes` ("Gbps" as Gb/s); a sub-unit prefix on bits or bytes ("mb", a millibit) and any
    unknown name are refused with the closest spellings.
    """
    unit = _registry_unit(name)
    if unit is not None:
        if notes is not None and name.upper().endswith("FLOPS"):
            notes.append(_flops_note(name))
        return ureg.Quantity(1.0, unit)
    rate = _RATE_SPELLING.fullmatch(name)
    if rate is not None:
        prefix = rate["prefix"].replace("K", "k") if "i" not in rate["prefix"] else rate["prefix"]
        spelled = f"{prefix}{rate['unit']}/s"
        unit = _registry_unit(f"{prefix}{rate['unit']}")
        if unit is not None:
            if notes is not None:
                notes.append(f"'{name}' is read as {spelled}")
            return ureg.Quantity(1.0, unit / ureg.second)
    raise ParseError(unknown_unit_message(name), text, pos)


def _flops_note(name: str) -> str:
    stem = name[:-1]
    if name.endswith("FLOPs"):
        return (f"'{name}' is read as a count, {stem} (the plural of FLOP); "
                f"write {stem}/s for a rate")
    return f"'{name}' is read as a rate, {stem}/s; write {stem} for a count"


@lru_cache(maxsize=2048)
def _registry_unit(name: str) -> pint.Unit | None:
    if "." in name or not name or len(name) > 60:
        return None
    try:
        unit = ureg.Unit(name)
    except Exception:  # whatever pint makes of such a name, it is not a unit
        return None
    for unit_name in unit._units:
        if unit_name.endswith(("bit", "byte")) and any(
                unit_name.startswith(p) for p in ("milli", "micro", "nano", "pico")):
            return None
    return unit


def unknown_unit_message(name: str) -> str:
    """'unknown unit 'KB': did you mean kB (1000 B) or KiB (1024 B)?' and the like."""
    if name in _SPELLING_HINTS:
        return f"unknown unit {name!r}: did you mean {_SPELLING_HINTS[name]}?"
    if len(name) >= 2 and name[0] in _SMALL_PREFIXES and name[1:] in ("b", "B", "bit", "byte"):
        big = name[0].upper() if name[0] == "m" else "M"
        return (f"{name!r} would be a {'milli' if name[0] == 'm' else 'sub-'}"
                f"{'bit' if name[1:] in ('b', 'bit') else 'byte'}, which is surely not meant: "
                f"write {big}B (megabyte) or {big}b (megabit)")
    close = _close_units(name)
    hint = f": did you mean {' or '.join(close)}?" if close else ""
    return f"unknown unit {name!r}{hint} (units are case-sensitive: B is a byte, b a bit)"


@lru_cache(maxsize=1)
def _common_spellings() -> tuple[str, ...]:
    bases = ["B", "b", "bit", "FLOP", "FLOPS", "W", "Wh", "J", "Hz", "s", "iB"]
    prefixes = ["", "k", "M", "G", "T", "P", "E"]
    names = {p + b for p in prefixes for b in bases if b != "iB"}
    names |= {p + "iB" for p in ("K", "M", "G", "T", "P", "E")}
    names |= {"ms", "µs", "ns", "min", "h", "day", "week", "month", "year", "param", "token",
              "GPU", "node", "request", "sequence", "USD", "m", "g"}
    return tuple(sorted(n for n in names if _registry_unit(n) is not None))


def _close_units(name: str) -> list[str]:
    spellings = _common_spellings()
    same_letters = [s for s in spellings if s.lower() == name.lower() and s != name]
    if same_letters:
        return same_letters[:3]
    return difflib.get_close_matches(name, spellings, n=3, cutoff=0.7)


_LOCAL = threading.local()


def resolve_record_value(name: str, pos: int, text: str = "") -> pint.Quantity:
    """A value of a hardware or model record, written RECORD.key ("H100-SXM.peak_flops")."""
    from .errors import UnknownNameError

    record_name, _, key = name.rpartition(".")
    if getattr(_LOCAL, "loading", False):
        raise ParseError(f"{name!r}: a record value cannot refer to another record", text, pos)
    _LOCAL.loading = True
    try:
        from napkinmath.hardware import get

        record = get(record_name)
        value = record.values.get(key)
        if value is None:
            keys = sorted(record.values)
            close = difflib.get_close_matches(key, keys, n=3, cutoff=0.5)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise ParseError(f"{record.id} has no value {key!r}: {hint}its values are "
                             f"{', '.join(keys)}", text, pos)
        return value.quantity  # parsed on first use: a reference inside it is refused above
    except UnknownNameError as exc:
        raise ParseError(f"in {name!r}: {exc}", text, pos) from None
    finally:
        _LOCAL.loading = False


def resolve_name(name: str, pos: int, text: str = "",
                 notes: list[str] | None = None) -> pint.Quantity:
    """The default resolver: RECORD.key is a record value, any other NAME a unit."""
    if "." in name:
        return resolve_record_value(name, pos, text)
    return resolve_unit(name, pos, text, notes)


def has_ambiguous_suffix(node: Node) -> bool:
    """True when a number carries a suffix that also reads as a unit ("7B": bytes or 7e9)."""
    if node.kind == "num":
        return node.suffix in AMBIGUOUS_SUFFIXES
    return any(has_ambiguous_suffix(arg) for arg in node.args)


def evaluate(node: Node, text: str = "", resolve: Resolver | None = None,
             suffix_as_unit: bool = False) -> pint.Quantity:
    """Evaluate an expression tree to a pint Quantity.

    `resolve(name, pos)` turns a NAME into a Quantity (default: a unit of the registry, or a
    record value for RECORD.key). With `suffix_as_unit`, "7B" reads as 7 byte and "7b" as
    7 bit instead of 7e9.
    """
    result = _Evaluator(text, resolve, suffix_as_unit).eval(node)
    try:  # 1e300 TFLOP is finite, but not in FLOP; GB^40 has no float conversion factor
        finite = math.isfinite(float(result.to_base_units().magnitude))
    except (ArithmeticError, ValueError, TypeError, pint.PintError):
        finite = False
    if not finite:
        raise ParseError("the result is too large to convert between units (beyond 1e308 "
                         "in base units)", text, node.pos)
    return result


class _Evaluator:
    def __init__(self, text: str, resolve: Resolver | None, suffix_as_unit: bool) -> None:
        self.text = text
        self.resolve = resolve or (lambda name, pos: resolve_name(name, pos, text))
        self.suffix_as_unit = suffix_as_unit

    def error(self, message: str, node: Node) -> ParseError:
        return ParseError(message, self.text, node.pos)

    def eval(self, node: Node) -> pint.Quantity:
        try:
            result = getattr(self, "_" + node.kind)(node)
        except NapkinError:
            raise
        except pint.DimensionalityError as exc:
            raise self.error(f"units do not fit: {exc}", node) from None
        except OverflowError:
            raise self.error("the result is too large (not a finite number)", node) from None
        except (ArithmeticError, ValueError, TypeError) as exc:
            raise self.error(f"cannot evaluate: {exc}", node) from None
        except pint.PintError as exc:
            raise self.error(f"cannot evaluate: {exc}", node) from None
        magnitude = float(result.magnitude)
        if not math.isfinite(magnitude):
            raise self.error("the result is too large (not a finite number)", node)
        return result

    def source(self, node: Node) -> str:
        if self.text and 0 <= node.start < node.end <= len(self.text):
            return self.text[node.start:node.end].strip()
        return reading(node)

    def _num(self, node: Node) -> pint.Quantity:
        if node.suffix and self.suffix_as_unit and node.suffix in AMBIGUOUS_SUFFIXES:
            return ureg.Quantity(node.value, AMBIGUOUS_SUFFIXES[node.suffix])
        scale = COUNT_SUFFIXES[node.suffix] if node.suffix else 1.0
        return ureg.Quantity(node.value * scale)

    def _name(self, node: Node) -> pint.Quantity:
        return self.resolve(node.text, node.pos)

    def _neg(self, node: Node) -> pint.Quantity:
        return -self.eval(node.args[0])

    def _binop(self, node: Node) -> pint.Quantity:
        left, right = (self.eval(arg) for arg in node.args)
        if node.op == "*":
            return left * right
        if node.op == "/":
            if right.magnitude == 0:
                divisor = self.source(node.args[1])
                shown = "" if node.args[1].kind == "num" else f" ({divisor} is zero)"
                raise self.error(f"division by zero{shown}", node)
            return left / right
        if left.dimensionality != right.dimensionality:
            verb = "add" if node.op == "+" else "subtract"
            raise self.error(mismatch_message(
                f"cannot {verb} {self.source(node.args[0])} and {self.source(node.args[1])}",
                left, right, f"both sides of {node.op} need the same dimension"), node)
        return left + right if node.op == "+" else left - right

    def _pow(self, node: Node) -> pint.Quantity:
        base = self.eval(node.args[0])
        exponent = self.eval(node.args[1])
        if not exponent.dimensionless:
            raise self.error(f"an exponent must be a plain number, not "
                             f"{describe_dimension(exponent)}", node.args[1])
        power = float(exponent.to("").magnitude)
        if abs(power) > MAX_EXPONENT:
            raise self.error(f"exponent {power:g} is beyond ±{MAX_EXPONENT}", node.args[1])
        if not base.dimensionless and not float(power * 2).is_integer():
            raise self.error("a quantity with units can only be raised to a whole or half power",
                             node.args[1])
        if base.dimensionless:
            value = float(base.to("").magnitude)
            if value < 0 and not power.is_integer():
                raise self.error("a negative number to a fractional power is not real", node)
            if value == 0 and power < 0:
                raise self.error("zero to a negative power is a division by zero", node)
            return ureg.Quantity(math.pow(value, power))
        if base.magnitude < 0 and not power.is_integer():
            raise self.error("a negative quantity to a half power is not real", node)
        if base.magnitude == 0 and power < 0:
            raise self.error("zero to a negative power is a division by zero", node)
        return base ** power

    def _call(self, node: Node) -> pint.Quantity:
        args = [self.eval(arg) for arg in node.args]
        name = node.text
        if name in ("min", "max"):
            first = args[0]
            for arg_node, other in zip(node.args[1:], args[1:], strict=True):
                if other.dimensionality != first.dimensionality:
                    raise self.error(mismatch_message(
                        f"{name}() cannot compare {self.source(node.args[0])} and "
                        f"{self.source(arg_node)}", first, other,
                        "its arguments need one dimension"), node)
            return (min if name == "min" else max)(args, key=lambda q: q.to(first.units).magnitude)
        (arg,) = args
        if name == "sqrt":
            if arg.magnitude < 0:
                raise self.error("sqrt of a negative number", node)
            return arg ** 0.5
        if name == "abs":
            return abs(arg)
        if name in ("ceil", "floor"):
            rounder = math.ceil if name == "ceil" else math.floor
            return ureg.Quantity(float(rounder(arg.magnitude)), arg.units)
        if not arg.dimensionless:
            raise self.error(f"{name}() needs a plain number, got {describe_dimension(arg)}", node)
        value = float(arg.to("").magnitude)
        if name == "exp":
            if value > 700:
                raise self.error("exp() of a number above 700 overflows", node)
            return ureg.Quantity(math.exp(value))
        if value <= 0:
            raise self.error(f"{name}() needs a positive number", node)
        function = {"log": math.log, "log2": math.log2, "log10": math.log10}[name]
        return ureg.Quantity(function(value))


# --- dimensions in words ------------------------------------------------------------------
#: Base dimensions as a person names a quantity of them, and the unit that spells them.
_DIMENSION_WORDS = {
    "[time]": ("a time", "s"), "[information]": ("a data size", "B"),
    "[compute]": ("a FLOP count", "FLOP"), "[parameter]": ("a parameter count", "param"),
    "[token]": ("a token count", "token"), "[accelerator]": ("a GPU count", "GPU"),
    "[node]": ("a node count", "node"), "[request]": ("a request count", "request"),
    "[sequence]": ("a sequence count", "sequence"), "[currency]": ("an amount of money", "USD"),
    "[length]": ("a length", "m"), "[mass]": ("a mass", "g"),
}
#: Compound dimensions with a name of their own.
_COMPOUND_NAMES = {
    "B/s": "a data rate", "FLOP/s": "a FLOP rate", "FLOP/(s*GPU)": "a FLOP rate per GPU",
    "B/(s*GPU)": "a data rate per GPU", "B/GPU": "a data size per GPU", "1/s": "a frequency",
    "token/s": "a token rate", "request/s": "a request rate", "B/param": "bytes per parameter",
    "B/token": "bytes per token", "FLOP/B": "an arithmetic intensity",
    "FLOP/token": "FLOP per token", "FLOP/(param*token)": "FLOP per parameter per token",
    "USD/(GPU*s)": "a price per GPU-time", "GPU*s": "GPU-time", "USD/token": "a price per token",
    "GPU/node": "GPUs per node", "token/sequence": "tokens per sequence",
    "g*m^2/s^3": "a power", "g*m^2/s^2": "an energy",
}


def canonical_unit(dim: pint.util.UnitsContainer) -> str:
    """The dimensionality spelled in napkinmath's base spellings: B/(s*GPU), FLOP/s."""
    up, down = [], []

    def order(item: tuple[str, float]) -> int:
        name, power = item
        if name == "[time]" and power > 0:
            return 100  # GPU·h, not h·GPU; but FLOP/(s·GPU) below the line
        return _ORDER.get(name, 99)

    for name, power in sorted(dim.items(), key=order):
        spelled = _DIMENSION_WORDS.get(name, (name, name.strip("[]")))[1]
        term = spelled if abs(power) == 1 else f"{spelled}^{abs(power):g}"
        (up if power > 0 else down).append(term)
    text = "*".join(up) or "1"
    if down:
        text += "/" + (f"({'*'.join(down)})" if len(down) > 1 else down[0])
    return text


_ORDER = {"[currency]": 0, "[compute]": 1, "[information]": 2, "[mass]": 3, "[length]": 4,
          "[request]": 5, "[token]": 6, "[parameter]": 7, "[sequence]": 8, "[time]": 9,
          "[accelerator]": 10, "[node]": 11}


def dimension_name(dim: pint.util.UnitsContainer) -> str:
    """A dimensionality as a person names it: 'a data rate', 'a time', 'a plain number'."""
    if not dim:
        return "a plain number"
    if len(dim) == 1:
        ((name, power),) = dim.items()
        if power == 1 and name in _DIMENSION_WORDS:
            return _DIMENSION_WORDS[name][0]
    spelled = canonical_unit(dim)
    if spelled in _COMPOUND_NAMES:
        return _COMPOUND_NAMES[spelled]
    return f"something in {spelled.replace('*', '·')}"


def describe_dimension(q: pint.Quantity) -> str:
    """'141 GB, a data size [information]' style description used in error messages."""
    from .units import format_quantity

    dim = q.dimensionality
    return f"{format_quantity(q)}, {dimension_name(dim)} [{dimension_text(dim)}]"


def dimension_fix(left: pint.Quantity, right: pint.Quantity) -> str:
    """How to make `right` the dimension of `left`, as a sentence.

    >>> dimension_fix(ureg.Quantity(141, "GB"), ureg.Quantity(900, "GB/s"))
    'multiply the right side by a time (or divide the left side by one)'
    """
    from .units import format_number, format_unit

    if right.dimensionless and not left.dimensionless:
        number = format_number(float(right.to("").magnitude))
        return f"give the right side a unit: {number} {format_unit(left.units)}?"
    if left.dimensionless and not right.dimensionless:
        number = format_number(float(left.to("").magnitude))
        return f"give the left side a unit: {number} {format_unit(right.units)}?"
    missing = left.dimensionality / right.dimensionality
    inverse = 1 / missing
    up = {k: v for k, v in missing.items() if v > 0}
    down = {k: -v for k, v in missing.items() if v < 0}
    if up and not down:
        return (f"multiply the right side by {dimension_name(missing)} "
                f"(or divide the left side by one)")
    if down and not up:
        return (f"divide the right side by {dimension_name(inverse)} "
                f"(or multiply the left side by one)")
    return f"multiply the right side by {dimension_name(missing)}"


def mismatch_message(what: str, left: pint.Quantity, right: pint.Quantity, rule: str) -> str:
    """'cannot add A and B: left is ..., right is ...; both sides ...; fix'."""
    return (f"{what}: the left side is {describe_dimension(left)} and the right side is "
            f"{describe_dimension(right)}; {rule}. Fix: {dimension_fix(left, right)}")


def dimension_text(dim: pint.util.UnitsContainer) -> str:
    """A dimensionality in readable words: 'information/time', 'dimensionless'."""
    if not dim:
        return "dimensionless"
    up = [f"{k.strip('[]')}" + (f"^{v:g}" if v != 1 else "") for k, v in dim.items() if v > 0]
    down = [f"{k.strip('[]')}" + (f"^{-v:g}" if v != -1 else "") for k, v in dim.items() if v < 0]
    text = "·".join(up) or "1"
    if down:
        text += "/" + ("(" + "·".join(down) + ")" if len(down) > 1 else down[0])
    return text
