"""A safe parser for the quantities and expressions that users type (see `evaluation`).

Grammar (no `eval`, no `sympify`: user text never reaches a code path that can execute it)::

    expr    := term (('+' | '-') term)*
    term    := product (('*' | '/' | '·' | '×' | '÷' | 'x') product)*
    product := unary (unary)*                 juxtaposition: "141 GB", "2 (8-1)"
    unary   := ('-' | '+') unary | power
    power   := atom (('^' | '**') unary)?
    atom    := ['$'] NUMBER [count suffix k K M G B b T Ki Mi Gi Ti] ['%'] | unit-group | REF
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

Depth. Every level counts against MAX_DEPTH: each node of the tree (an operator, a sign, a
function call, a name or number side by side with the previous factor) and each pair of
parentheses around it. A left-deep chain counts one level per link ("s s s ...", "1+1+1+...",
"a*b*c*..."), so the height of any accepted tree is at most MAX_DEPTH, far below Python's
recursion limit: every walk of a parsed tree (here, in `evaluation`, or in a caller) is
safe, and deeper input is a ParseError "nested too deeply", never a RecursionError.

Functions and units. A name that is both a function and a unit (``min``: minimum or minute)
is the function only when '(' touches it and it has two or more arguments: ``min(3 s, 4 s)``.
Written with a space it is the unit: ``5 min (8-1)`` is 35 min, like ``2 h (8-1)``. A
touching one-argument ``min(8-1)`` could be either, and is refused with both spellings.

Echoed text. Error messages show the user's text with control characters and bidi overrides
made visible (``\\x1b``, ``\\r``, ``<U+202E>``: see `visible`), so text cannot rewrite a terminal.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace

import pint

from napkinmath.errors import ParseError
from napkinmath.text.visible import visible
from napkinmath.units import ureg

MAX_LENGTH = 1000
MAX_TOKENS = 400
#: Levels of nesting: tree height plus enclosing parentheses (see the module docstring).
MAX_DEPTH = 50
MAX_EXPONENT = 64
MAX_DIGITS = 40
MAX_DECIMAL_EXPONENT = 300

#: Count shorthands: "7B" params, "15T" tokens, "16k" GPUs (decimal; "70G" is 70e9), and the
#: binary ones for counts people take in powers of two: "8Ki" tokens is 8,192.
COUNT_SUFFIXES = {
    "k": 1e3,
    "K": 1e3,
    "M": 1e6,
    "G": 1e9,
    "B": 1e9,
    "b": 1e9,
    "T": 1e12,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
}
#: Suffixes that are also units when read as such ("7B" is 7 bytes or 7e9).
AMBIGUOUS_SUFFIXES = {"B": "byte", "b": "bit"}

FUNCTIONS = {
    "sqrt": 1,
    "log": 1,
    "log2": 1,
    "log10": 1,
    "exp": 1,
    "ceil": 1,
    "floor": 1,
    "abs": 1,
    "min": None,
    "max": None,
}

_MULTIPLY = ("*", "·", "×")  # and a lone name "x" between operands (see explicit_op)
_DIVIDE = ("/", "÷")

_TOKEN = re.compile(
    r"""
    (?P<space>(?:[^\S\r\x0b\x0c\x1c-\x1f\x85]|\r\n)+)  # no lone CR, no control
  | (?P<number>(?:[0-9]+(?:_[0-9]+)*\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<ref>[A-Za-z][A-Za-z0-9_-]*(?:\.[0-9][A-Za-z0-9_-]*)*\.[A-Za-z_][A-Za-z0-9_]*)
  | (?P<hyphen>(?:GPU|gpu|node)-(?:hours?|hr|h|days?)(?![A-Za-z0-9_]))  # GPU-hours: one unit
  | (?P<name>[A-Za-z_µμ][A-Za-z0-9_µμ]*)
  | (?P<op>\*\*|[-+*/^()·×÷,%−])
    """,
    re.VERBOSE,
)

#: What a character outside the grammar usually means, for the error message.
_CHARACTER_HINTS = {
    "=": "an expression has no '='; give a claimed value separately (--expect, expect=)",
    "[": "use round parentheses",
    "]": "use round parentheses",
    "{": "use round parentheses",
    "}": "use round parentheses",
    "'": "quotes are not part of an expression",
    '"': "quotes are not part of an expression",
    ".": "a dot only joins a record and a key, like H100-SXM.peak_flops",
    ";": "write one expression",
    ":": "write one expression",
    "$": "write money as USD, like '2.5 USD/(GPU*h)', or with '$' before a number: $2.5/h",
    "€": "write money as USD",
    "£": "write money as USD",
    "|": "use abs() for an absolute value",
    "!": "factorials are not supported",
    "<": "comparisons are not expressions; give a claimed value separately",
    ">": "comparisons are not expressions; give a claimed value separately",
    "@": "'@' is not an operator here",
    "&": "'&' is not an operator here",
    "\\": "'\\' is not an operator here",
    "#": "comments are not part of an expression",
    "~": "write 'about' values as plain numbers",
}


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    pos: int
    size: int = -1  # characters of the source it stands for, when not len(text) ("$" -> USD)

    @property
    def end(self) -> int:
        return self.pos + (len(self.text) if self.size < 0 else self.size)


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
    depth: int = field(default=1, compare=False, repr=False)  # height of the tree below


def _width(text: str) -> int:
    """Columns that `text` takes on a terminal: wide characters two, combining marks none."""
    if text.isascii():
        return len(text)
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def parse_error(message: str, text: str = "", pos: int | None = None) -> ParseError:
    """A ParseError whose caret line shows `text` with its controls made visible and the
    caret under `pos` as a terminal shows it; `.text` and `.position` stay the raw ones."""
    body = visible(message, keep="\n")
    if pos is None or not text:
        error = ParseError(body)
    else:
        pos = max(0, min(pos, len(text)))
        column = _width(visible(text[:pos]))
        error = ParseError(f"{body}\n  {visible(text)}\n  {' ' * column}^")
    error.text = text
    error.position = pos
    return error


def tokenize(text: str) -> list[Token]:
    """Split `text` into tokens, refusing anything outside the grammar with its position."""
    if not isinstance(text, str):
        raise parse_error(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise parse_error(f"input is {len(text)} characters long; the limit is {MAX_LENGTH}")
    tokens: list[Token] = []
    pos = 0
    dollars = False  # after "$2": the USD that the '$' stands for follows the number
    while pos < len(text):
        if text[pos] == "$" and _NUMBER.match(text, pos + 1):
            dollars = True
            pos += 1
            continue
        match = _TOKEN.match(text, pos)
        if match is None:
            raise _bad_character(text, pos)
        kind = match.lastgroup or ""
        token_text = match.group()
        if kind == "number":
            _check_number(token_text, text, pos)
            end = match.end()
            suffix = suffix_at(text, end)
            tokens.append(Token("number", token_text, pos))
            if suffix:
                tokens.append(Token("suffix", suffix, end))
                end += len(suffix)
            if dollars:  # "$2.5M/yr" is 2.5M USD/yr: USD touches what follows
                tokens.append(Token("name", "USD", end, size=0))
                dollars = False
            if len(tokens) > MAX_TOKENS:
                raise parse_error(f"expression has more than {MAX_TOKENS} tokens", text, pos)
            pos = end
            continue
        if kind == "hyphen":  # "GPU-hours" is the unit GPU_hours, not GPU minus hours
            kind, token_text = "name", token_text.replace("-", "_")
        if kind in ("name", "ref"):
            _check_name(token_text, text, pos)
        elif token_text == "−":  # U+2212, the typographic minus sign pasted from documents
            token_text = "-"
        if kind != "space":
            tokens.append(Token(kind, token_text, pos))
        if len(tokens) > MAX_TOKENS:
            raise parse_error(f"expression has more than {MAX_TOKENS} tokens", text, pos)
        pos = match.end()
    return tokens


_NUMBER = re.compile(r"[0-9]|\.[0-9]")


def suffix_at(text: str, end: int) -> str:
    """The count suffix touching a number that ends at `end` ("8k", "8Ki"), or ""."""
    for size in (2, 1):
        suffix = text[end : end + size]
        if (
            len(suffix) == size
            and suffix in COUNT_SUFFIXES
            and not re.match(r"[A-Za-z0-9_]", text[end + size : end + size + 1])
        ):
            return suffix
    return ""


def _bad_character(text: str, pos: int) -> ParseError:
    char = text[pos]
    hint = _CHARACTER_HINTS.get(char, "")
    shown = repr(char) if char.isprintable() else f"U+{ord(char):04X}"
    message = f"unexpected character {shown}"
    return parse_error(f"{message}: {hint}" if hint else message, text, pos)


def _check_number(token: str, text: str, pos: int) -> None:
    mantissa, _, exponent = token.lower().partition("e")
    if len(mantissa.replace(".", "").replace("_", "")) > MAX_DIGITS:
        raise parse_error(f"number has more than {MAX_DIGITS} digits", text, pos)
    if exponent and abs(int(exponent)) > MAX_DECIMAL_EXPONENT:
        raise parse_error(f"number exponent is beyond ±{MAX_DECIMAL_EXPONENT}", text, pos)


def _check_name(token: str, text: str, pos: int) -> None:
    for part in token.split("."):
        if part.startswith("_"):
            raise parse_error(
                f"{token!r}: a name cannot start with '_' (names are units, "
                "napkinmath variables, or RECORD.key hardware values)",
                text,
                pos,
            )


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
        return parse_error(message, self.text, pos)

    def expect(self, op: str) -> Token:
        token = self.peek()
        if token is None or token.text != op:
            found = f"{token.text!r}" if token else "the end"
            raise self.error(f"expected {op!r} but found {found}", token)
        return self.take()

    def parse(self) -> Node:
        if not self.tokens:
            raise parse_error("empty expression: give a number with its unit, like '80 GB'")
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
            if (
                before is not None
                and after is not None
                and before.kind == "number"
                and after.kind == "number"
                and re.fullmatch(r"[0-9]{3}", after.text)
                and before.end == token.pos
                and token.end == after.pos
            ):
                return self.error(
                    "write numbers without thousands separators "
                    f"({before.text}{after.text}, not {before.text},{after.text})",
                    token,
                )
            return self.error("a ',' only separates the arguments of min() or max()", token)
        if token.kind == "suffix":
            return self.error(f"unexpected {token.text!r} after a number", token)
        return self.error(f"unexpected {token.text!r}", token)

    # --- depth: every level counts (see the module docstring) ------------------------------
    def check_depth(self, height: int, pos: int) -> None:
        if self.depth + height > MAX_DEPTH:
            raise parse_error(
                f"nested too deeply: at most {MAX_DEPTH} levels, counting each "
                "parenthesis, sign and function and each link of a chain like "
                "'a + b + c' or 'a b c'; split it into smaller expressions",
                self.text,
                pos,
            )

    def enter(self, token: Token | None) -> None:
        """Step into parentheses, a sign's operand or an exponent: one more level."""
        self.depth += 1
        self.check_depth(1, token.pos if token is not None else len(self.text))

    def leave(self) -> None:
        self.depth -= 1

    def make(self, kind: str, pos: int, args: tuple[Node, ...] = (), **fields) -> Node:
        """A node, refused when the tree under it and the levels around it are too deep."""
        height = 1 + max((arg.depth for arg in args), default=0)
        self.check_depth(height, pos)
        return Node(kind, pos, args=args, depth=height, **fields)

    # --- precedence levels ------------------------------------------------------------------
    def expr(self) -> Node:
        node = self.term()
        while (token := self.peek()) is not None and token.kind == "op" and token.text in "+-":
            self.take()
            right = self.term()
            node = self.make(
                "binop", token.pos, (node, right), op=token.text, start=node.start, end=right.end
            )
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
            after = self.peek(1)
            fraction = (
                op == "/"
                and _is_num(node)
                and self.tight(node.end)
                and after is not None
                and after.kind == "number"
            )
            token = self.take()
            if fraction:  # "1/2 GB" is half a gigabyte: a touching number/number is a fraction
                divisor = self.number()
                node = self.make(
                    "binop",
                    token.pos,
                    (node, divisor),
                    op="/",
                    start=node.start,
                    end=divisor.end,
                    style="fraction",
                )
                if self.starts_operand(self.peek()):
                    self.grouped = True
                    node = self.product(node)
                continue
            right = self.product()
            if op == "/" and _grouped(right):
                self.grouped = True
            node = self.make(
                "binop", token.pos, (node, right), op=op, start=node.start, end=right.end
            )
        return node

    def starts_operand(self, token: Token | None) -> bool:
        if token is None:
            return False
        if token.kind == "name" and token.text == "x":
            return False
        return token.kind in ("number", "name", "ref") or token.text == "("

    def product(self, first: Node | None = None) -> Node:
        node = first if first is not None else self.unary()
        while (token := self.peek()) is not None and self.starts_operand(token):
            if token.kind == "number" and _ends_in_number(node):
                raise self.error(
                    "two numbers side by side: write one number without thousands separators "
                    "(1000000, 1e6 or 1_000_000), or put '*' between them",
                    token,
                )
            right = self.unary()
            node = self.make(
                "binop",
                token.pos,
                (node, right),
                op="*",
                start=node.start,
                end=right.end,
                style="implicit",
            )
        return node

    def unary(self) -> Node:
        token = self.peek()
        if token is not None and token.kind == "op" and token.text in "+-":
            self.take()
            self.enter(self.peek())
            operand = self.unary()
            self.leave()
            if token.text == "+":
                return operand
            return self.make("neg", token.pos, (operand,), start=token.pos, end=operand.end)
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        token = self.peek()
        if token is not None and token.text in ("^", "**"):
            self.take()
            self.enter(self.peek())
            exponent = self.unary()
            self.leave()
            return self.make("pow", token.pos, (base, exponent), start=base.start, end=exponent.end)
        return base

    def calls_function(self, ahead: int = 0) -> bool:
        """The name `ahead` starts a function call (see "Functions and units" above)."""
        token, paren = self.peek(ahead), self.peek(ahead + 1)
        if token is None or token.kind != "name" or paren is None or paren.text != "(":
            return False
        touching = paren.pos == token.end
        if token.text not in FUNCTIONS:
            return touching  # "GB(2)": refused as an unknown function
        if registry_unit(token.text) is None:  # "sqrt (2)" has no other reading
            return True
        return touching or self.comma_inside(ahead + 1)  # "min (8-1)" is minutes

    def comma_inside(self, ahead: int) -> bool:
        """The parentheses opening `ahead` hold a ',' of their own: "min (3 s, 4 s)"."""
        level = 0
        for token in self.tokens[self.index + ahead :]:
            if token.kind != "op":
                continue
            if token.text == "(":
                level += 1
            elif token.text == ")":
                level -= 1
                if level == 0:
                    return False
            elif token.text == "," and level == 1:
                return True
        return False

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
            if token.text == "x":
                raise self.error(
                    "'x' is the multiplication sign: put a number or a quantity "
                    "on both sides of it",
                    token,
                )
            if self.calls_function():
                self.take()
                return self.call(token)
            if token.text in FUNCTIONS and registry_unit(token.text) is None:
                raise self.error(
                    f"{token.text}() is a function: write {token.text}(...) with parentheses", token
                )
            self.take()
            return self.unit_group(self.unit_element(token))
        if token.text == "(":
            self.take()
            self.enter(self.peek())
            node = self.expr()
            self.leave()
            self.expect(")")
            return replace(node, paren=True)
        raise self.unexpected(token)

    def number(self) -> Node:
        token = self.take()
        try:
            value = float(token.text)
        except ValueError:
            raise self.error(f"{token.text!r} is not a number", token) from None
        text, suffix, end = token.text, "", token.end
        nxt = self.peek()
        if nxt is not None and nxt.kind == "suffix":
            self.take()
            text, suffix, end = text + nxt.text, nxt.text, nxt.end
        nxt = self.peek()
        if nxt is not None and nxt.text == "%":
            self.take()
            value, text, end = value / 100, text + "%", nxt.end
        return self.make(
            "num", token.pos, value=value, suffix=suffix, text=text, start=token.pos, end=end
        )

    def name_node(self, token: Token) -> Node:
        return self.make("name", token.pos, text=token.text, start=token.pos, end=token.end)

    def tight(self, left_end: int, ahead: int = 0) -> bool:
        """The operator `ahead` touches what precedes it and what follows it."""
        op, after = self.peek(ahead), self.peek(ahead + 1)
        return op is not None and after is not None and op.pos == left_end and after.pos == op.end

    def unit_element(self, token: Token) -> Node:
        """NAME with an optional touching exponent: "m^2", "s**-1"."""
        node = self.name_node(token)
        op = self.peek()
        if op is None or op.text not in ("^", "**") or not self.tight(token.end):
            return node
        sign = self.peek(1)
        if sign is None:
            return node
        number = self.peek(2) if sign.text in "+-" else sign
        if (
            number is None
            or number.kind != "number"
            or (sign is not number and number.pos != sign.end)
        ):
            return node
        self.take()
        self.enter(self.peek())
        exponent = self.unary()
        self.leave()
        return self.make("pow", op.pos, (node, exponent), start=node.start, end=exponent.end)

    def unit_group(self, node: Node) -> Node:
        """Names joined by touching '/' or '*' form one unit: "GB/s", "TFLOP/(s*GPU)"."""
        while (
            (op := self.peek()) is not None
            and op.kind == "op"
            and op.text in ("/", "*", "·")
            and self.tight(node.end)
        ):
            after = self.peek(1)
            if after is None:  # not reached: tight() saw a token after the operator
                break
            if after.kind in ("name", "ref") and after.text != "x":
                if after.text in FUNCTIONS and self.calls_function(1):
                    break
                self.take()
                self.take()
                right = self.unit_element(after) if after.kind == "name" else self.name_node(after)
            elif after.text == "(":
                self.take()
                self.take()
                self.enter(self.peek())
                right = replace(self.expr(), paren=True)
                self.leave()
                self.expect(")")
            else:
                break
            node = self.make(
                "binop",
                op.pos,
                (node, right),
                op="/" if op.text == "/" else "*",
                start=node.start,
                end=right.end,
                style="unit",
            )
        return node

    def call(self, name: Token) -> Node:
        if name.text not in FUNCTIONS:
            known = ", ".join(FUNCTIONS)
            raise self.error(f"unknown function {name.text!r}; the functions are: {known}", name)
        opening = self.expect("(")
        self.enter(self.peek())
        args = [self.expr()]
        while (token := self.peek()) is not None and token.text == ",":
            self.take()
            args.append(self.expr())
        closing = self.expect(")")
        self.leave()
        arity = FUNCTIONS[name.text]
        if arity is not None and len(args) != arity:
            raise self.error(f"{name.text}() takes {arity} argument, got {len(args)}", name)
        if len(args) == 1 and registry_unit(name.text) is not None:
            raise self.ambiguous_call(name, opening, closing)
        return self.make(
            "call", name.pos, tuple(args), text=name.text, start=name.pos, end=closing.end
        )

    def ambiguous_call(self, name: Token, opening: Token, closing: Token) -> ParseError:
        """'min(8-1)': the minimum of one value, or 7 minutes? Both spellings, to choose."""
        inner = self.text[opening.end : closing.pos].strip()
        whole = self.text[name.pos : closing.end]
        unit = registry_unit(name.text)
        return self.error(
            f"{whole!r} is ambiguous: {name.text} is the unit {unit} and {name.text}() the "
            f"function. For the unit, put a space before '(' or the unit after: "
            f"'{name.text} ({inner})' or '({inner}) {name.text}'; for the function, give "
            f"two or more values: '{name.text}({inner}, ...)'",
            name,
        )


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
            node.style, 1 if node.op in "+-" else 2
        )
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


def registry_unit(name: str) -> pint.Unit | None:
    """The registry's unit called `name` (plurals included), or None; bit/byte with sub-unit
    prefixes ("mb", a millibit) count as no unit, since nobody means them."""
    if "." in name or not name or len(name) > 60:
        return None
    try:
        unit = ureg.Unit(name)
    except Exception:  # whatever pint makes of such a name, it is not a unit
        return None
    for unit_name in unit._units:
        if unit_name.endswith(("bit", "byte")) and any(
            unit_name.startswith(p) for p in ("milli", "micro", "nano", "pico")
        ):
            return None
    return unit
