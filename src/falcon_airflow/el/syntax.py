"""EL syntax, one front end for the project's two expression languages: tokens, an AST with character positions and
a recursive-descent parser, configured by a dialect (one tokenizer and parser, as sqlglot has for its SQL dialects).

:class:`Dialect` is the whole grammar: the JSP 2.0 expression language that Oozie evaluates in workflow definitions.
A text holds literal parts and ``${...}`` expressions (:func:`parse_template`). Inside an expression: ``null``,
``true``/``false``, integer, decimal and quoted string literals, variables, ``a.b`` and ``a['b']``, function calls
with or without a prefix (``wf:id()``, ``concat(a, b)``), the operators ``?:``, ``or ||``, ``and &&``,
``== eq != ne``, ``< lt > gt <= le >= ge``, ``+ -``, ``* / div % mod``, the unary ``- ! not empty`` and
parentheses.

:class:`Falcon` restricts it to what Falcon users write in entity attributes, bare (``now(0,-60)``) or wrapped as a
whole in ``${...}`` (:func:`parse`), and inside text (properties, paths; :func:`split_template`): calls with an
optional prefix (``coord:current(0)``; Falcon's evaluation ignores the prefix), integer and decimal literals
without exponents, quoted strings, ``+ - * / % div mod``, the signs ``+ -`` and parentheses. Which functions each
language has is its evaluator's business (``el/functions.py``, ``oozie/el/functions.py``).

Every node keeps the 0-based offset of its first character in the text it was parsed from, so a syntax error
(:class:`~falcon_airflow.errors.ELSyntaxError`) or an evaluation error points at a character.

The text is untrusted (entities, workflows), so the parser has limits: an expression (a bare Falcon expression, or
the inside of one ``${...}``) of at most :data:`MAX_EXPRESSION_LENGTH` characters, nested at most :data:`MAX_DEPTH`
levels deep (parentheses, brackets, calls, unary operators and conditionals while parsing; every node of the tree,
operator and property chains included, for the evaluators that walk it recursively), and number literals within
Java's ranges (a ``long`` for integers; Falcon also refuses a decimal beyond a ``double``). Past a limit the parser
raises an :class:`~falcon_airflow.errors.ELSyntaxError` at the offending character, never a RecursionError or
ValueError.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from falcon_airflow.errors import ELSyntaxError

# -- the tree ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Literal:
    value: bool | int | float | str | None
    position: int


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    position: int


@dataclass(frozen=True, slots=True)
class Call:
    prefix: str  # "" for an unprefixed function
    name: str
    arguments: tuple[Expression, ...]
    position: int

    @property
    def qualified_name(self) -> str:
        return f"{self.prefix}:{self.name}" if self.prefix else self.name


@dataclass(frozen=True, slots=True)
class Unary:
    operator: str  # "-", "not", "empty"
    operand: Expression
    position: int


@dataclass(frozen=True, slots=True)
class Binary:
    operator: str  # "+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "and", "or"
    left: Expression
    right: Expression
    position: int


@dataclass(frozen=True, slots=True)
class Conditional:
    condition: Expression
    when_true: Expression
    when_false: Expression
    position: int


@dataclass(frozen=True, slots=True)
class Access:
    """``target.name`` or ``target[key]``."""

    target: Expression
    key: Expression
    position: int


Expression = Literal | Variable | Call | Unary | Binary | Conditional | Access


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "number", "string", "literal", "name", "op", "end"
    text: str
    position: int
    value: object = None


# -- limits -----------------------------------------------------------------------------------------------------------

MAX_EXPRESSION_LENGTH = 4096
"""Characters in one expression (a bare Falcon expression, or the inside of one ``${...}``). Real expressions are a
call or two (``now(-1,0)``), the longest in Oozie's and Falcon's own workflows about 70 characters; the limit keeps
a pasted or generated monster from costing time and memory in every rule that evaluates it."""

MAX_DEPTH = 64
"""Levels of nesting. The parser recurses at most six Python frames per level and the evaluators about four, so 64
levels stay far below Python's default recursion limit of 1000 whoever the caller is."""

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
"""EL integers are Java longs: literals beyond them do not parse (Oozie's parser refuses them too) and arithmetic
beyond them is refused."""

_MAX_LONG_DIGITS = len(str(LONG_MAX))

_DIGITS = frozenset("0123456789")
"""Digits of a number literal: Java's EL reads ASCII ones only. Other characters Python calls digits (``²``, ``٣``)
are not numbers: ``int`` cannot even read some of them."""

# -- dialects ---------------------------------------------------------------------------------------------------------


class Dialect:
    """The whole grammar: JSP 2.0 EL as Oozie parses it inside a workflow's ``${...}``. A subclass restricts it by
    its tables (an operator or literal it has no token for cannot be written) and its few switches."""

    KEYWORDS: ClassVar[Mapping[str, str]] = {
        "and": "and", "or": "or", "not": "not", "eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=",
        "ge": ">=", "div": "/", "mod": "%", "empty": "empty", "instanceof": "instanceof",
    }
    """Words that are operators, and the operator each stands for."""
    LITERALS: ClassVar[Mapping[str, bool | None]] = {"true": True, "false": False, "null": None}
    SYMBOLS: ClassVar[tuple[str, ...]] = (
        "&&", "||", "==", "!=", "<=", ">=", "(", ")", "[", "]", ",", ".", "?", ":", "+", "-", "*", "/", "%", "<",
        ">", "!",
    )
    """Operator characters, longest first where one begins another."""
    SYMBOL_MEANING: ClassVar[Mapping[str, str]] = {"&&": "and", "||": "or", "!": "not"}
    IDENTIFIER_SYMBOLS: ClassVar[str] = "_$"
    """Characters besides letters and digits that names are made of (a digit never starts one)."""
    BINARY_LEVELS: ClassVar[tuple[tuple[str, ...], ...]] = (
        ("or",), ("and",), ("==", "!="), ("<", ">", "<=", ">="), ("+", "-"), ("*", "/", "%"),
    )
    """Binary operators by precedence, loosest first; each level is left-associative."""
    UNARY: ClassVar[tuple[str, ...]] = ("-", "not", "empty")
    VARIABLES: ClassVar[bool] = True
    """A name that is not called is a variable; otherwise every name must be a call, and ``a:b`` always a prefix."""
    NEGATIVE_LITERALS: ClassVar[bool] = False
    """``-`` before a number literal makes one negative literal rather than a :class:`Unary`."""
    TRAILING_POINT: ClassVar[bool] = True
    """``1.`` is a decimal (unless a name follows the point)."""
    EXPONENTS: ClassVar[bool] = True
    """``1e3`` and ``2.5E-1`` are decimals."""

    # How the errors are worded.
    INTEGER_TOO_LARGE: ClassVar[str] = f"number too large: EL integers must fit in a long (at most {LONG_MAX})"
    DECIMAL_TOO_LARGE: ClassVar[str | None] = None
    """The error for a decimal literal beyond a double; ``None``: it is Infinity, as Java's Double.valueOf reads it."""
    EMPTY: ClassVar[str] = "empty expression: '${}'"
    END: ClassVar[str] = "the end of the expression"
    ENDS_EARLY: ClassVar[str] = "the expression ends too early"
    NESTING: ClassVar[str] = "parentheses, calls, operators or property chains"


class Falcon(Dialect):
    """Falcon's EL: the arithmetic part of the grammar and calls, no variables, literal words, comparisons or logic;
    the whole expression may be wrapped in ``${...}``."""

    KEYWORDS: ClassVar[Mapping[str, str]] = {"div": "/", "mod": "%"}
    LITERALS: ClassVar[Mapping[str, bool | None]] = {}
    SYMBOLS: ClassVar[tuple[str, ...]] = ("${", "(", ")", ",", "+", "-", "*", "/", "%", "}", ":")
    SYMBOL_MEANING: ClassVar[Mapping[str, str]] = {}
    IDENTIFIER_SYMBOLS: ClassVar[str] = "_"
    BINARY_LEVELS: ClassVar[tuple[tuple[str, ...], ...]] = (("+", "-"), ("*", "/", "%"))
    UNARY: ClassVar[tuple[str, ...]] = ("+", "-")
    VARIABLES: ClassVar[bool] = False
    NEGATIVE_LITERALS: ClassVar[bool] = True
    TRAILING_POINT: ClassVar[bool] = False
    EXPONENTS: ClassVar[bool] = False

    INTEGER_TOO_LARGE: ClassVar[str] = f"number too large: EL numbers must fit in a long (at most {LONG_MAX})"
    DECIMAL_TOO_LARGE: ClassVar[str | None] = "number too large: EL numbers must fit in a double"
    EMPTY: ClassVar[str] = "empty expression"
    END: ClassVar[str] = "the end"
    ENDS_EARLY: ClassVar[str] = "expression ends too early"
    NESTING: ClassVar[str] = "parentheses, calls, signs or chained operators"


def _too_deep(dialect: type[Dialect]) -> str:
    return f"expression too deep: more than {MAX_DEPTH} levels of {dialect.NESTING}"


# -- tokens -----------------------------------------------------------------------------------------------------------


def _is_name_start(char: str, dialect: type[Dialect]) -> bool:
    return char.isalpha() or (char != "" and char in dialect.IDENTIFIER_SYMBOLS)


def tokenize(text: str, start: int, stop: int, dialect: type[Dialect] = Dialect) -> list[Token]:
    """Tokens of ``text[start:stop]``; positions are offsets into ``text``."""
    if stop - start > MAX_EXPRESSION_LENGTH:
        raise ELSyntaxError(f"expression too long: {stop - start:,} characters, at most {MAX_EXPRESSION_LENGTH:,}",
                            expression=text, position=start + MAX_EXPRESSION_LENGTH)
    tokens: list[Token] = []
    index = start
    while index < stop:
        char = text[index]
        if char.isspace():
            index += 1
            continue
        if char in _DIGITS or (char == "." and index + 1 < stop and text[index + 1] in _DIGITS):
            index = _number(text, index, stop, tokens, dialect)
            continue
        if char in "'\"":
            index = _string(text, index, stop, tokens)
            continue
        if _is_name_start(char, dialect):
            begin = index
            while index < stop and (text[index].isalnum() or text[index] in dialect.IDENTIFIER_SYMBOLS):
                index += 1
            word = text[begin:index]
            if word in dialect.KEYWORDS:
                tokens.append(Token("op", dialect.KEYWORDS[word], begin))
            elif word in dialect.LITERALS:
                tokens.append(Token("literal", word, begin, dialect.LITERALS[word]))
            else:
                tokens.append(Token("name", word, begin))
            continue
        symbol = next((item for item in dialect.SYMBOLS if text.startswith(item, index)), None)
        if symbol is None:
            raise ELSyntaxError(f"unexpected character '{char}'", expression=text, position=index)
        tokens.append(Token("op", dialect.SYMBOL_MEANING.get(symbol, symbol), index))
        index += len(symbol)
    tokens.append(Token("end", "", stop))
    return tokens


def _number(text: str, index: int, stop: int, tokens: list[Token], dialect: type[Dialect]) -> int:
    begin = index
    while index < stop and text[index] in _DIGITS:
        index += 1
    decimal = False
    if index < stop and text[index] == ".":
        following = text[index + 1] if index + 1 < stop else ""
        if following in _DIGITS or (dialect.TRAILING_POINT and not _is_name_start(following, dialect)):
            decimal = True
            index += 1
            while index < stop and text[index] in _DIGITS:
                index += 1
    if dialect.EXPONENTS and index < stop and text[index] in "eE":
        look = index + 1
        if look < stop and text[look] in "+-":
            look += 1
        if look < stop and text[look] in _DIGITS:
            decimal = True
            index = look
            while index < stop and text[index] in _DIGITS:
                index += 1
    literal = text[begin:index]
    value: int | float
    if decimal:
        value = float(literal)
        if dialect.DECIMAL_TOO_LARGE is not None and not math.isfinite(value):
            raise ELSyntaxError(dialect.DECIMAL_TOO_LARGE, expression=text, position=begin)
    elif len(literal.lstrip("0")) > _MAX_LONG_DIGITS or int(literal) > LONG_MAX:
        raise ELSyntaxError(dialect.INTEGER_TOO_LARGE, expression=text, position=begin)
    else:
        value = int(literal)
    tokens.append(Token("number", literal, begin, value))
    return index


_STRING_ESCAPES = ("\\", "'", '"')


def _string(text: str, index: int, stop: int, tokens: list[Token]) -> int:
    """A quoted string: ``\\'``, ``\\"`` and ``\\\\`` are escapes, any other backslash is itself."""
    quote = text[index]
    begin = index
    index += 1
    chars: list[str] = []
    while True:
        if index >= stop:
            raise ELSyntaxError("unterminated string", expression=text, position=begin)
        current = text[index]
        if current == "\\" and index + 1 < stop and text[index + 1] in _STRING_ESCAPES:
            chars.append(text[index + 1])
            index += 2
            continue
        if current == quote:
            index += 1
            break
        chars.append(current)
        index += 1
    tokens.append(Token("string", text[begin:index], begin, "".join(chars)))
    return index


# -- the parser -------------------------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str, tokens: list[Token], dialect: type[Dialect]) -> None:
        self.text = text
        self.tokens = tokens
        self.dialect = dialect
        self.precedence = {operator: level for level, operators in enumerate(dialect.BINARY_LEVELS)
                           for operator in operators}
        self.index = 0
        self.depth = 0  # parentheses, brackets, calls, unary operators and conditionals open here

    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def at(self, *texts: str) -> bool:
        return self.current.kind == "op" and self.current.text in texts

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def error(self, message: str, token: Token | None = None) -> ELSyntaxError:
        return ELSyntaxError(message, expression=self.text, position=(token or self.current).position)

    def describe(self, token: Token) -> str:
        return self.dialect.END if token.kind == "end" else f"'{token.text}'"

    def expect(self, text: str) -> Token:
        if self.at(text):
            return self.advance()
        raise self.error(f"expected '{text}' but found {self.describe(self.current)}")

    def enter(self, token: Token) -> None:
        """One more level of nesting opens at ``token``; refused past :data:`MAX_DEPTH`."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(_too_deep(self.dialect), token)

    def leave(self) -> None:
        self.depth -= 1

    def parse(self) -> Expression:
        """The whole token list as one expression; ``${...}`` around it where the dialect has a token for ``${``."""
        wrapped = self.at("${")
        if wrapped:
            self.advance()
        if self.current.kind == "end" or (wrapped and self.at("}")):
            raise self.error(self.dialect.EMPTY)
        node = self.expression()
        if wrapped:
            self.expect("}")
        if self.current.kind != "end":
            raise self.error(f"unexpected {self.describe(self.current)} after the expression")
        return node

    def expression(self) -> Expression:
        condition = self.binary(0)
        if not self.at("?"):
            return condition
        mark = self.advance()
        self.enter(mark)
        when_true = self.expression()
        self.expect(":")
        when_false = self.expression()
        self.leave()
        return Conditional(condition, when_true, when_false, mark.position)

    def binary(self, loosest: int) -> Expression:
        """Operators of precedence ``loosest`` and tighter, left-associative (precedence climbing): one frame per
        precedence level actually used rather than one per level of the grammar, so nesting stays cheap."""
        node = self.unary()
        while True:
            if self.at("instanceof"):
                raise self.error("'instanceof' is not supported in EL expressions")
            level = self.precedence.get(self.current.text, -1) if self.current.kind == "op" else -1
            if level < loosest:
                return node
            operator = self.advance()
            node = Binary(operator.text, node, self.binary(level + 1), operator.position)

    def unary(self) -> Expression:
        if not self.at(*self.dialect.UNARY):
            return self.postfix()
        operator = self.advance()
        self.enter(operator)
        operand = self.unary()
        self.leave()
        if operator.text == "+":
            return operand
        if operator.text == "-" and self.dialect.NEGATIVE_LITERALS and isinstance(operand, Literal) \
                and isinstance(operand.value, int | float) and not isinstance(operand.value, bool):
            return Literal(-operand.value, operator.position)
        return Unary(operator.text, operand, operator.position)

    def postfix(self) -> Expression:
        node = self.primary()
        while self.at(".", "["):
            mark = self.advance()
            if mark.text == ".":
                if self.current.kind != "name":
                    raise self.error(f"expected a property name after '.' but found {self.describe(self.current)}")
                name = self.advance()
                node = Access(node, Literal(name.text, name.position), mark.position)
            else:
                self.enter(mark)
                key = self.expression()
                self.expect("]")
                self.leave()
                node = Access(node, key, mark.position)
        return node

    def primary(self) -> Expression:
        token = self.current
        if token.kind in ("number", "string", "literal"):
            self.advance()
            assert token.value is None or isinstance(token.value, bool | int | float | str)
            return Literal(token.value, token.position)
        if self.at("("):
            self.enter(self.advance())
            node = self.expression()
            self.expect(")")
            self.leave()
            return node
        if token.kind == "name":
            self.advance()
            callee = self.callee(token)
            if callee is None:
                return Variable(token.text, token.position)
            return self.call(*callee, token)
        if token.kind == "end":
            raise self.error(self.dialect.ENDS_EARLY)
        raise self.error(f"unexpected {self.describe(token)}")

    def callee(self, first: Token) -> tuple[str, str] | None:
        """The (prefix, name) of the function the name ``first`` begins to call, the ``(`` next; ``None`` when it
        is a variable."""
        if self.dialect.VARIABLES:
            # prefix:name( is a function; "a ? b : c" keeps its ':' when no call follows
            if self.at(":") and self._kind_at(self.index + 1) == "name" and self._is_open_at(self.index + 2):
                self.advance()
                return first.text, self.advance().text
            return ("", first.text) if self.at("(") else None
        prefix, name = "", first.text
        if self.at(":"):
            self.advance()
            if self.current.kind != "name":
                raise self.error("expected a function name after ':'")
            prefix, name = first.text, self.advance().text
        if not self.at("("):
            raise self.error(f"'{name}' must be called, e.g. {name}(...)", first)
        return prefix, name

    def _kind_at(self, index: int) -> str:
        return self.tokens[index].kind if index < len(self.tokens) else "end"

    def _is_open_at(self, index: int) -> bool:
        token = self.tokens[index] if index < len(self.tokens) else None
        return token is not None and token.kind == "op" and token.text == "("

    def call(self, prefix: str, name: str, first: Token) -> Call:
        self.enter(self.expect("("))
        arguments: list[Expression] = []
        if not self.at(")"):
            arguments.append(self.expression())
            while self.at(","):
                self.advance()
                arguments.append(self.expression())
        self.expect(")")
        self.leave()
        return Call(prefix, name, tuple(arguments), first.position)


def _children(node: Expression) -> tuple[Expression, ...]:
    if isinstance(node, Call):
        return node.arguments
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Conditional):
        return (node.condition, node.when_true, node.when_false)
    if isinstance(node, Access):
        return (node.target, node.key)
    return ()


def _check_height(root: Expression, text: str, dialect: type[Dialect]) -> None:
    """Refuse a tree taller than :data:`MAX_DEPTH`: the evaluator recurses once per level, and a chain such as
    ``1+1+...+1`` or ``a.b.c...`` parses in a loop into a tree as tall as the chain is long. Walked with a stack of
    its own, so the check itself cannot overflow Python's."""
    pending: list[tuple[Expression, int]] = [(root, 1)]
    while pending:
        node, level = pending.pop()
        if level > MAX_DEPTH:
            raise ELSyntaxError(_too_deep(dialect), expression=text, position=node.position)
        pending.extend((child, level + 1) for child in _children(node))


def parse_expression(text: str, start: int, stop: int, dialect: type[Dialect] = Dialect) -> Expression:
    """Parse ``text[start:stop]`` as one expression of ``dialect`` (positions are offsets into ``text``)."""
    node = _Parser(text, tokenize(text, start, stop, dialect), dialect).parse()
    _check_height(node, text, dialect)
    return node


def functions_called(expression: Expression) -> list[Call]:
    """Every call in an expression tree, outermost first."""
    found: list[Call] = []
    pending: deque[Expression] = deque([expression])
    while pending:
        node = pending.popleft()
        if isinstance(node, Call):
            found.append(node)
        pending.extend(_children(node))
    return found


# -- texts with ${...} ------------------------------------------------------------------------------------------------


def _closing_brace(text: str, index: int) -> int:
    """Offset of the ``}`` that closes an expression starting at ``index`` (strings may hold braces), or -1."""
    quote: str | None = None
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\" and index + 1 < len(text):
                index += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "}":
            return index
        index += 1
    return -1


def _expression_spans(text: str) -> Iterator[tuple[int, int]]:
    """(offset of ``${``, offset of its closing ``}``) for each expression of a text in order; the last pair has
    -1 for the brace when a ``${`` is not closed."""
    index = 0
    while (start := text.find("${", index)) >= 0:
        end = _closing_brace(text, start + 2)
        yield start, end
        if end < 0:
            return
        index = end + 1


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed text: literal strings and expressions in order. ``source`` is the whole text."""

    parts: tuple[str | Expression, ...]
    source: str

    @property
    def is_single_expression(self) -> bool:
        """Exactly one ``${...}`` and nothing around it (its value keeps its type, as in JSP EL)."""
        return len(self.parts) == 1 and not isinstance(self.parts[0], str)

    @property
    def expressions(self) -> tuple[Expression, ...]:
        return tuple(part for part in self.parts if not isinstance(part, str))


@lru_cache(maxsize=4096)
def parse_template(text: str) -> Template:
    """Parse a text with embedded ``${...}`` expressions of the whole grammar (:class:`Dialect`); a text without any
    is one literal part.

    Raises :class:`~falcon_airflow.errors.ELSyntaxError` (with the offset in ``text``) for an unterminated
    ``${`` or an expression that does not parse. Cached: a workflow repeats the same texts on every run.
    """
    parts: list[str | Expression] = []
    index = 0
    for start, end in _expression_spans(text):
        if end < 0:
            raise ELSyntaxError("'${' is not closed by '}'", expression=text, position=start)
        if start > index:
            parts.append(text[index:start])
        parts.append(parse_expression(text, start + 2, end))
        index = end + 1
    if index < len(text) or not parts:
        parts.append(text[index:])
    return Template(tuple(parts), text)


@lru_cache(maxsize=4096)
def parse(expression: str) -> Expression:
    """Parse one expression of Falcon's EL, bare (``now(0,-60)``) or wrapped (``${now(0,-60)}``).

    Cached: entities repeat a few expressions thousands of times (validation, instance searches), and the tree is
    immutable. A syntax error is not cached; it is raised again on the next call.
    """
    return parse_expression(expression, 0, len(expression), Falcon)


@dataclass(frozen=True, slots=True)
class TemplatePart:
    """A piece of a text with embedded ``${...}``: literal text, or an expression with its offset in the text."""

    text: str
    offset: int
    is_expression: bool


def split_template(text: str) -> list[TemplatePart]:
    """Split ``a-${now(0,0)}-b`` into literal and expression parts; a ``${`` without ``}`` stays literal (Falcon's
    substitution leaves what it cannot read as it is)."""
    parts: list[TemplatePart] = []
    index = 0
    for start, end in _expression_spans(text):
        if end < 0:
            break
        if start > index:
            parts.append(TemplatePart(text[index:start], index, False))
        parts.append(TemplatePart(text[start:end + 1], start, True))
        index = end + 1
    if index < len(text):
        parts.append(TemplatePart(text[index:], index, False))
    return parts
