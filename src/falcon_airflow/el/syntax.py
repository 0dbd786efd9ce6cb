"""EL syntax: tokens, an AST with character positions, and a recursive-descent parser.

Falcon wrote EL as bare expressions (``now(0,-60)``) in entity attributes and as ``${...}`` inside text
(properties, paths). The grammar is the part of JSP EL that Falcon users write: calls with an optional prefix
(``coord:current(0)`` - the prefix is ignored as Falcon ignored it), integer and decimal literals, quoted strings,
``+ - * / % div mod`` and parentheses. Every node keeps the 0-based offset of its first character so errors can
point at it.

Entity text is untrusted, so the parser has limits: an expression of at most :data:`MAX_EXPRESSION_LENGTH`
characters, nested at most :data:`MAX_DEPTH` levels deep (parentheses, calls and signs while parsing; every node of
the tree, operator chains included, for the evaluator that walks it recursively), and number literals within Java's
ranges (a ``long`` for integers, a finite ``double`` for decimals). Past a limit the parser raises an
:class:`~falcon_airflow.errors.ELSyntaxError` at the offending character, never a RecursionError or ValueError.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from falcon_airflow.errors import ELSyntaxError


@dataclass(frozen=True, slots=True)
class Number:
    value: int | float
    position: int


@dataclass(frozen=True, slots=True)
class String:
    value: str
    position: int


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    arguments: tuple[Node, ...]
    position: int


@dataclass(frozen=True, slots=True)
class Negate:
    operand: Node
    position: int


@dataclass(frozen=True, slots=True)
class Binary:
    operator: str
    left: Node
    right: Node
    position: int


Node = Number | String | Call | Negate | Binary


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "number", "string", "name", "op", "end"
    text: str
    position: int
    value: object = None


MAX_EXPRESSION_LENGTH = 4096
"""Characters in one expression. Falcon's expressions are a call or two (``now(-1,0)``, ``today(0,0)``); a limit
keeps a pasted or generated monster from costing time and memory in every rule that evaluates it."""

MAX_DEPTH = 64
"""Levels of nesting. The parser recurses about four Python frames per level and the evaluator about three, so
64 levels stay far below Python's default recursion limit of 1000 whoever the caller is."""

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
"""EL integers are Java longs: literals beyond them do not parse and arithmetic beyond them is refused."""

_MAX_LONG_DIGITS = len(str(LONG_MAX))

_OPERATORS = ("${", "(", ")", ",", "+", "-", "*", "/", "%", "}", ":")
_WORD_OPERATORS = {"div": "/", "mod": "%"}


def _number_value(expression: str, start: int, text: str, is_decimal: bool) -> int | float:
    """The value of a number literal, refused (at its first character) beyond what Java's EL could hold."""
    if is_decimal:
        value = float(text)
        if math.isfinite(value):
            return value
    elif len(text.lstrip("0")) <= _MAX_LONG_DIGITS and int(text) <= LONG_MAX:
        return int(text)
    kind = "a double" if is_decimal else f"a long (at most {LONG_MAX})"
    raise ELSyntaxError(f"number too large: EL numbers must fit in {kind}", expression=expression, position=start)


def tokenize(expression: str) -> list[Token]:
    length = len(expression)
    if length > MAX_EXPRESSION_LENGTH:
        raise ELSyntaxError(f"expression too long: {length:,} characters, at most {MAX_EXPRESSION_LENGTH:,}",
                            expression=expression, position=MAX_EXPRESSION_LENGTH)
    tokens: list[Token] = []
    index = 0
    while index < length:
        char = expression[index]
        if char.isspace():
            index += 1
            continue
        if char.isdigit() or (char == "." and index + 1 < length and expression[index + 1].isdigit()):
            start = index
            while index < length and expression[index].isdigit():
                index += 1
            is_decimal = index < length and expression[index] == "." and index + 1 < length \
                and expression[index + 1].isdigit()
            if is_decimal:
                index += 1
                while index < length and expression[index].isdigit():
                    index += 1
            text = expression[start:index]
            tokens.append(Token("number", text, start, _number_value(expression, start, text, is_decimal)))
            continue
        if char in "'\"":
            start = index
            index += 1
            chars: list[str] = []
            while True:
                if index >= length:
                    raise ELSyntaxError("unterminated string", expression=expression, position=start)
                current = expression[index]
                if current == "\\" and index + 1 < length and expression[index + 1] in ("'", '"', "\\"):
                    chars.append(expression[index + 1])
                    index += 2
                    continue
                if current == char:
                    index += 1
                    break
                chars.append(current)
                index += 1
            tokens.append(Token("string", expression[start:index], start, "".join(chars)))
            continue
        if char.isalpha() or char == "_":
            start = index
            while index < length and (expression[index].isalnum() or expression[index] == "_"):
                index += 1
            word = expression[start:index]
            if word in _WORD_OPERATORS:
                tokens.append(Token("op", _WORD_OPERATORS[word], start))
            else:
                tokens.append(Token("name", word, start))
            continue
        operator = next((op for op in _OPERATORS if expression.startswith(op, index)), None)
        if operator is None:
            raise ELSyntaxError(f"unexpected character '{char}'", expression=expression, position=index)
        tokens.append(Token("op", operator, index))
        index += len(operator)
    tokens.append(Token("end", "", length))
    return tokens


class _Parser:
    def __init__(self, expression: str) -> None:
        self.expression = expression
        self.tokens = tokenize(expression)
        self.index = 0
        self.depth = 0  # parentheses, calls and signs open around the current token

    def enter(self, token: Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(_too_deep(), token)

    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def error(self, message: str, token: Token | None = None) -> ELSyntaxError:
        where = token or self.current
        return ELSyntaxError(message, expression=self.expression, position=where.position)

    def expect(self, text: str) -> Token:
        if self.current.kind == "op" and self.current.text == text:
            return self.advance()
        found = "the end" if self.current.kind == "end" else f"'{self.current.text}'"
        raise self.error(f"expected '{text}' but found {found}")

    def parse(self) -> Node:
        wrapped = self.current.kind == "op" and self.current.text == "${"
        if wrapped:
            self.advance()
        if self.current.kind == "end" or (wrapped and self.current.text == "}"):
            raise self.error("empty expression")
        node = self.additive()
        if wrapped:
            self.expect("}")
        if self.current.kind != "end":
            raise self.error(f"unexpected '{self.current.text}' after the expression")
        return node

    def additive(self) -> Node:
        node = self.multiplicative()
        while self.current.kind == "op" and self.current.text in "+-":
            operator = self.advance()
            node = Binary(operator.text, node, self.multiplicative(), operator.position)
        return node

    def multiplicative(self) -> Node:
        node = self.unary()
        while self.current.kind == "op" and self.current.text in ("*", "/", "%"):
            operator = self.advance()
            node = Binary(operator.text, node, self.unary(), operator.position)
        return node

    def unary(self) -> Node:
        if self.current.kind == "op" and self.current.text in "+-":
            operator = self.advance()
            self.enter(operator)
            operand = self.unary()
            self.depth -= 1
            if operator.text == "+":
                return operand
            if isinstance(operand, Number):
                return Number(-operand.value, operator.position)
            return Negate(operand, operator.position)
        return self.primary()

    def primary(self) -> Node:
        token = self.current
        if token.kind == "number":
            self.advance()
            assert isinstance(token.value, (int, float))
            return Number(token.value, token.position)
        if token.kind == "string":
            self.advance()
            return String(str(token.value), token.position)
        if token.kind == "op" and token.text == "(":
            self.enter(self.advance())
            node = self.additive()
            self.expect(")")
            self.depth -= 1
            return node
        if token.kind == "name":
            self.advance()
            name = token.text
            if self.current.kind == "op" and self.current.text == ":":  # prefix such as coord: - ignored
                self.advance()
                if self.current.kind != "name":
                    raise self.error("expected a function name after ':'")
                name = self.advance().text
            if not (self.current.kind == "op" and self.current.text == "("):
                raise self.error(f"'{name}' must be called, e.g. {name}(...)", token)
            self.enter(self.advance())
            arguments: list[Node] = []
            if not (self.current.kind == "op" and self.current.text == ")"):
                arguments.append(self.additive())
                while self.current.kind == "op" and self.current.text == ",":
                    self.advance()
                    arguments.append(self.additive())
            self.expect(")")
            self.depth -= 1
            return Call(name, tuple(arguments), token.position)
        if token.kind == "end":
            raise self.error("expression ends too early")
        raise self.error(f"unexpected '{token.text}'")


@lru_cache(maxsize=4096)
def parse(expression: str) -> Node:
    """Parse one EL expression, bare (``now(0,-60)``) or wrapped (``${now(0,-60)}``).

    Cached: entities repeat a few expressions thousands of times (validation, instance searches), and the tree is
    immutable. A syntax error is not cached; it is raised again on the next call.
    """
    node = _Parser(expression).parse()
    _check_height(node, expression)
    return node


def _too_deep() -> str:
    return (f"expression too deep: more than {MAX_DEPTH} levels of parentheses, calls, signs or chained "
            "operators")


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Call):
        return node.arguments
    if isinstance(node, Negate):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    return ()


def _check_height(root: Node, expression: str) -> None:
    """Refuse a tree taller than :data:`MAX_DEPTH`: the evaluator recurses once per level, and a chain such as
    ``1+1+...+1`` parses without recursion (a loop) into a tree as tall as the chain is long. Walked with a stack
    of its own, so the check itself cannot overflow Python's."""
    pending: list[tuple[Node, int]] = [(root, 1)]
    while pending:
        node, level = pending.pop()
        if level > MAX_DEPTH:
            raise ELSyntaxError(_too_deep(), expression=expression, position=node.position)
        pending.extend((child, level + 1) for child in _children(node))


@dataclass(frozen=True, slots=True)
class TemplatePart:
    """A piece of a text with embedded ``${...}``: literal text, or an expression with its offset in the text."""

    text: str
    offset: int
    is_expression: bool


def split_template(text: str) -> list[TemplatePart]:
    """Split ``a-${now(0,0)}-b`` into literal and expression parts; a ``${`` without ``}`` stays literal."""
    parts: list[TemplatePart] = []
    index = 0
    while index < len(text):
        start = text.find("${", index)
        if start < 0:
            break
        end = _closing_brace(text, start + 2)
        if end < 0:
            break
        if start > index:
            parts.append(TemplatePart(text[index:start], index, False))
        parts.append(TemplatePart(text[start:end + 1], start, True))
        index = end + 1
    if index < len(text):
        parts.append(TemplatePart(text[index:], index, False))
    return parts


def _closing_brace(text: str, index: int) -> int:
    quote: str | None = None
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "}":
            return index
        index += 1
    return -1
