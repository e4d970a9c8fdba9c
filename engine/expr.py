"""A safe parser and evaluator for quantities and expressions that users type.

Grammar (no `eval`, no `sympify`: user text never reaches a code path that can execute it)::

    expr    := term (('+' | '-') term)*
    term    := unary (('*' | '/' | '·' | '×' | '÷' | juxtaposition) unary)*
    unary   := ('-' | '+') unary | power
    power   := atom (('^' | '**') unary)?
    atom    := NUMBER [count suffix k K M B b T] ['%'] | NAME | FUNC '(' expr (',' expr)* ')'
             | '(' expr ')'

A NAME is a unit ("TFLOP", "GiB", "h"), a library variable or a hardware value
("H100-SXM.peak_flops"); what a name means is decided by the `resolve` callback of `evaluate`.
Input is bounded: length, token count, nesting depth, exponents and number sizes are capped,
so hostile text is refused quickly instead of hanging.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import pint

from .errors import ParseError
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

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<ref>[A-Za-z][A-Za-z0-9_-]*\.[A-Za-z_][A-Za-z0-9_]*)
  | (?P<name>[A-Za-z_µμ][A-Za-z0-9_µμ]*)
  | (?P<op>\*\*|[-+*/^()·×÷,%])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    pos: int


@dataclass(frozen=True)
class Node:
    """One node of the expression tree; `pos` is the offset in the source text."""

    kind: str  # "num", "name", "neg", "binop", "pow", "call"
    pos: int
    value: float = 0.0
    suffix: str = ""
    text: str = ""
    op: str = ""
    args: tuple[Node, ...] = ()


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
            raise ParseError(f"unexpected character {text[pos]!r}", text, pos)
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
        if kind != "space":
            tokens.append(Token(kind, token_text, pos))
        if len(tokens) > MAX_TOKENS:
            raise ParseError(f"expression has more than {MAX_TOKENS} tokens", text, pos)
        pos = match.end()
    return tokens


def _check_number(token: str, text: str, pos: int) -> None:
    mantissa, _, exponent = token.lower().partition("e")
    if len(mantissa.replace(".", "")) > MAX_DIGITS:
        raise ParseError(f"number has more than {MAX_DIGITS} digits", text, pos)
    if exponent and abs(int(exponent)) > MAX_DECIMAL_EXPONENT:
        raise ParseError(f"number exponent is beyond ±{MAX_DECIMAL_EXPONENT}", text, pos)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.index = 0
        self.depth = 0

    def peek(self) -> Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

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
            raise self.error(f"unexpected {token.text!r}", token)
        return node

    def nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"expression is nested more than {MAX_DEPTH} levels deep", self.peek())

    def expr(self) -> Node:
        self.nested()
        node = self.term()
        while (token := self.peek()) is not None and token.text in "+-" and token.kind == "op":
            self.take()
            node = Node("binop", token.pos, op=token.text, args=(node, self.term()))
        self.depth -= 1
        return node

    def term(self) -> Node:
        node = self.unary()
        while (token := self.peek()) is not None:
            if token.kind == "op" and token.text in ("*", "·", "×", "/", "÷"):
                self.take()
                op = "/" if token.text in ("/", "÷") else "*"
                node = Node("binop", token.pos, op=op, args=(node, self.unary()))
            elif token.kind in ("number", "name", "ref") or token.text == "(":
                node = Node("binop", token.pos, op="*", args=(node, self.unary()))
            else:
                break
        return node

    def unary(self) -> Node:
        token = self.peek()
        if token is not None and token.kind == "op" and token.text in "+-":
            self.take()
            self.nested()
            operand = self.unary()
            self.depth -= 1
            return Node("neg", token.pos, args=(operand,)) if token.text == "-" else operand
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        token = self.peek()
        if token is not None and token.text in ("^", "**"):
            self.take()
            self.nested()
            exponent = self.unary()
            self.depth -= 1
            return Node("pow", token.pos, args=(base, exponent))
        return base

    def atom(self) -> Node:
        token = self.peek()
        if token is None:
            raise self.error("expression ends too early")
        if token.kind == "number":
            self.take()
            node = Node("num", token.pos, value=float(token.text), text=token.text)
            nxt = self.peek()
            if nxt is not None and nxt.kind == "suffix":
                self.take()
                node = Node("num", token.pos, value=node.value, suffix=nxt.text,
                            text=token.text + nxt.text)
            nxt = self.peek()
            if nxt is not None and nxt.text == "%":
                self.take()
                node = Node("num", token.pos, value=node.value / 100, suffix=node.suffix,
                            text=node.text + "%")
            return node
        if token.kind == "ref":
            self.take()
            return Node("name", token.pos, text=token.text)
        if token.kind == "name":
            self.take()
            nxt = self.peek()
            if nxt is not None and nxt.text == "(":
                return self.call(token)
            return Node("name", token.pos, text=token.text)
        if token.text == "(":
            self.take()
            node = self.expr()
            self.expect(")")
            return node
        raise self.error(f"unexpected {token.text!r}", token)

    def call(self, name: Token) -> Node:
        if name.text not in FUNCTIONS:
            known = ", ".join(FUNCTIONS)
            raise self.error(f"unknown function {name.text!r}; the functions are: {known}", name)
        self.expect("(")
        args = [self.expr()]
        while (token := self.peek()) is not None and token.text == ",":
            self.take()
            args.append(self.expr())
        self.expect(")")
        arity = FUNCTIONS[name.text]
        if arity is not None and len(args) != arity:
            raise self.error(f"{name.text}() takes {arity} argument, got {len(args)}", name)
        return Node("call", name.pos, text=name.text, args=tuple(args))


def parse(text: str) -> Node:
    """Parse user text into an expression tree, or raise ParseError pointing at the fault."""
    return _Parser(text).parse()


Resolver = Callable[[str, int], "pint.Quantity"]


def resolve_unit(name: str, pos: int, text: str = "") -> pint.Quantity:
    """The default resolver: a NAME is a unit of napkinmath's registry."""
    try:
        unit = ureg.Unit(name) if "." not in name else None
    except (pint.UndefinedUnitError, ValueError, AttributeError, TypeError):
        unit = None
    if unit is None:
        raise ParseError(f"unknown unit {name!r}", text, pos)
    return ureg.Quantity(1.0, unit)


def has_ambiguous_suffix(node: Node) -> bool:
    """True when a number carries a suffix that also reads as a unit ("7B": bytes or 7e9)."""
    if node.kind == "num":
        return node.suffix in AMBIGUOUS_SUFFIXES
    return any(has_ambiguous_suffix(arg) for arg in node.args)


def evaluate(node: Node, text: str = "", resolve: Resolver | None = None,
             suffix_as_unit: bool = False) -> pint.Quantity:
    """Evaluate an expression tree to a pint Quantity.

    `resolve(name, pos)` turns a NAME into a Quantity (default: a unit of the registry).
    With `suffix_as_unit`, "7B" reads as 7 byte and "7b" as 7 bit instead of 7e9.
    """
    return _Evaluator(text, resolve, suffix_as_unit).eval(node)


class _Evaluator:
    def __init__(self, text: str, resolve: Resolver | None, suffix_as_unit: bool) -> None:
        self.text = text
        self.resolve = resolve or (lambda name, pos: resolve_unit(name, pos, text))
        self.suffix_as_unit = suffix_as_unit

    def error(self, message: str, node: Node) -> ParseError:
        return ParseError(message, self.text, node.pos)

    def eval(self, node: Node) -> pint.Quantity:
        try:
            result = getattr(self, "_" + node.kind)(node)
        except ParseError:
            raise
        except (OverflowError, ZeroDivisionError, ValueError) as exc:
            raise self.error(f"cannot evaluate: {exc}", node) from None
        except pint.DimensionalityError as exc:
            raise self.error(f"units do not fit: {exc}", node) from None
        magnitude = float(result.magnitude)
        if not math.isfinite(magnitude):
            raise self.error("the result is not a finite number", node)
        return result

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
                raise self.error("division by zero", node)
            return left / right
        if left.dimensionality != right.dimensionality:
            verb = "add" if node.op == "+" else "subtract"
            raise self.error(
                f"cannot {verb} {describe_dimension(left)} and {describe_dimension(right)}: "
                "both sides of + and - need the same dimension", node)
        return left + right if node.op == "+" else left - right

    def _pow(self, node: Node) -> pint.Quantity:
        base = self.eval(node.args[0])
        exponent = self.eval(node.args[1])
        if not exponent.dimensionless:
            raise self.error("an exponent must be a plain number", node.args[1])
        power = float(exponent.to("").magnitude)
        if abs(power) > MAX_EXPONENT:
            raise self.error(f"exponent {power:g} is beyond ±{MAX_EXPONENT}", node.args[1])
        if not base.dimensionless and not float(power * 2).is_integer():
            raise self.error("a quantity with units can only be raised to a whole or half power",
                             node.args[1])
        return base ** power

    def _call(self, node: Node) -> pint.Quantity:
        args = [self.eval(arg) for arg in node.args]
        name = node.text
        if name in ("min", "max"):
            first = args[0]
            for other in args[1:]:
                if other.dimensionality != first.dimensionality:
                    raise self.error(f"{name}() needs arguments of one dimension", node)
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


def describe_dimension(q: pint.Quantity) -> str:
    """'141 GB (a data size)' style description used in error messages."""
    from .units import format_quantity

    return f"{format_quantity(q)} [{dimension_text(q.dimensionality)}]"


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
