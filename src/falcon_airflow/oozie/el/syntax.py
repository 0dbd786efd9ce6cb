"""Oozie EL syntax: the JSP 2.0 expression language Oozie evaluates, parsed into an AST with positions.

A text holds literal parts and ``${...}`` expressions (:func:`parse_template`). Inside an expression: ``null``,
``true``/``false``, integer, decimal and quoted string literals, variables, ``a.b`` and ``a['b']``, function
calls with or without a prefix (``wf:id()``, ``concat(a, b)``), the operators ``?:``, ``or ||``, ``and &&``,
``== eq != ne``, ``< lt > gt <= le >= ge``, ``+ -``, ``* / div % mod``, the unary ``- ! not empty`` and
parentheses. Every node keeps the 0-based offset of its first character in the text it was parsed from, so a
syntax error (:class:`~falcon_airflow.errors.ELSyntaxError`) or an evaluation error points at a character.

A workflow's text is untrusted, so the parser has limits: each ``${...}`` at most :data:`MAX_EXPRESSION_LENGTH`
characters, nested at most :data:`MAX_DEPTH` levels deep (parentheses, brackets, calls, unary operators and
conditionals while parsing; every node of the tree, operator and property chains included, for the evaluator that
walks it recursively), and integer literals within a Java ``long``. Past a limit the parser raises an
:class:`~falcon_airflow.errors.ELSyntaxError` at the offending character, never a RecursionError or ValueError.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from falcon_airflow.errors import ELSyntaxError


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


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "number", "string", "name", "op", "end"
    text: str
    position: int
    value: object = None


MAX_EXPRESSION_LENGTH = 4096
"""Characters inside one ``${...}``. Real workflows write expressions of tens of characters (the longest in Oozie's
and Falcon's own workflows is about 70); the limit keeps a generated monster from costing time and memory."""

MAX_DEPTH = 64
"""Levels of nesting. The parser recurses about five Python frames per level and the evaluator about four, so 64
levels stay far below Python's default recursion limit of 1000 whoever the caller is."""

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
"""JSP EL integers are Java longs: literals beyond them do not parse (Oozie's parser refuses them too)."""

_MAX_LONG_DIGITS = len(str(LONG_MAX))

# Binary operators by precedence, loosest first; each level is left-associative.
_BINARY_LEVELS: tuple[tuple[str, ...], ...] = (
    ("or",), ("and",), ("==", "!="), ("<", ">", "<=", ">="), ("+", "-"), ("*", "/", "%"),
)
_PRECEDENCE = {operator: level for level, operators in enumerate(_BINARY_LEVELS) for operator in operators}

_KEYWORD_OPERATORS = {
    "and": "and", "or": "or", "not": "not", "eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=",
    "ge": ">=", "div": "/", "mod": "%", "empty": "empty", "instanceof": "instanceof",
}
_SYMBOLS = ("&&", "||", "==", "!=", "<=", ">=", "(", ")", "[", "]", ",", ".", "?", ":", "+", "-", "*", "/", "%",
            "<", ">", "!", "}")
_SYMBOL_MEANING = {"&&": "and", "||": "or", "!": "not"}
_STRING_ESCAPES = ("\\", "'", '"')


def _is_identifier_start(char: str) -> bool:
    return char.isalpha() or char in "_$"


def _is_identifier_part(char: str) -> bool:
    return char.isalnum() or char in "_$"


def tokenize(text: str, start: int, stop: int) -> list[Token]:
    """Tokens of ``text[start:stop]`` (the inside of one ``${...}``); positions are offsets into ``text``."""
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
        if char.isdigit() or (char == "." and index + 1 < stop and text[index + 1].isdigit()):
            index = _number(text, index, stop, tokens)
            continue
        if char in "'\"":
            index = _string(text, index, stop, tokens)
            continue
        if _is_identifier_start(char):
            begin = index
            while index < stop and _is_identifier_part(text[index]):
                index += 1
            word = text[begin:index]
            if word in _KEYWORD_OPERATORS:
                tokens.append(Token("op", _KEYWORD_OPERATORS[word], begin))
            elif word in ("true", "false"):
                tokens.append(Token("literal", word, begin, word == "true"))
            elif word == "null":
                tokens.append(Token("literal", word, begin, None))
            else:
                tokens.append(Token("name", word, begin))
            continue
        symbol = next((item for item in _SYMBOLS if text.startswith(item, index)), None)
        if symbol is None or symbol == "}":
            raise ELSyntaxError(f"unexpected character '{char}'", expression=text, position=index)
        tokens.append(Token("op", _SYMBOL_MEANING.get(symbol, symbol), index))
        index += len(symbol)
    tokens.append(Token("end", "", stop))
    return tokens


def _number(text: str, index: int, stop: int, tokens: list[Token]) -> int:
    begin = index
    while index < stop and text[index].isdigit():
        index += 1
    decimal = False
    if index < stop and text[index] == "." and not (index + 1 < stop and _is_identifier_start(text[index + 1])):
        decimal = True
        index += 1
        while index < stop and text[index].isdigit():
            index += 1
    if index < stop and text[index] in "eE":
        look = index + 1
        if look < stop and text[look] in "+-":
            look += 1
        if look < stop and text[look].isdigit():
            decimal = True
            index = look
            while index < stop and text[index].isdigit():
                index += 1
    literal = text[begin:index]
    if not decimal and (len(literal.lstrip("0")) > _MAX_LONG_DIGITS or int(literal) > LONG_MAX):
        raise ELSyntaxError(f"number too large: EL integers must fit in a long (at most {LONG_MAX})",
                            expression=text, position=begin)
    # a decimal beyond a double is Infinity, as Java's Double.valueOf reads it
    value: int | float = float(literal) if decimal else int(literal)
    tokens.append(Token("number", literal, begin, value))
    return index


def _string(text: str, index: int, stop: int, tokens: list[Token]) -> int:
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


class _Parser:
    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
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
        return "the end of the expression" if token.kind == "end" else f"'{token.text}'"

    def expect(self, text: str) -> Token:
        if self.at(text):
            return self.advance()
        raise self.error(f"expected '{text}' but found {self.describe(self.current)}")

    def enter(self, token: Token) -> None:
        """One more level of nesting opens at ``token``; refused past :data:`MAX_DEPTH`."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(_too_deep(), token)

    def leave(self) -> None:
        self.depth -= 1

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
            level = _PRECEDENCE.get(self.current.text, -1) if self.current.kind == "op" else -1
            if level < loosest:
                return node
            operator = self.advance()
            node = Binary(operator.text, node, self.binary(level + 1), operator.position)

    def unary(self) -> Expression:
        if self.at("-", "not", "empty"):
            operator = self.advance()
            self.enter(operator)
            operand = self.unary()
            self.leave()
            return Unary(operator.text, operand, operator.position)
        return self.postfix()

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
            return self.name()
        if token.kind == "end":
            raise self.error("the expression ends too early")
        raise self.error(f"unexpected {self.describe(token)}")

    def name(self) -> Expression:
        first = self.advance()
        following = self.tokens[self.index + 1] if self.index + 1 < len(self.tokens) else self.current
        # prefix:name( is a function; "a ? b : c" keeps its ':' when no call follows
        if self.at(":") and following.kind == "name" and self._is_call_at(self.index + 2):
            self.advance()
            name = self.advance()
            return self.call(first.text, name.text, first)
        if self.at("("):
            return self.call("", first.text, first)
        return Variable(first.text, first.position)

    def _is_call_at(self, index: int) -> bool:
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


def _closing_brace(text: str, index: int) -> int:
    """Offset of the ``}`` that closes an expression starting at ``index`` (strings may hold braces)."""
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


def parse_expression_at(text: str, start: int, stop: int) -> Expression:
    """Parse ``text[start:stop]`` as one expression (the inside of ``${...}``)."""
    parser = _Parser(text, tokenize(text, start, stop))
    if parser.current.kind == "end":
        raise parser.error("empty expression: '${}'")
    node = parser.expression()
    if parser.current.kind != "end":
        raise parser.error(f"unexpected {parser.describe(parser.current)} after the expression")
    _check_height(node, text)
    return node


def _too_deep() -> str:
    return (f"expression too deep: more than {MAX_DEPTH} levels of parentheses, calls, operators or property "
            "chains")


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


def _check_height(root: Expression, text: str) -> None:
    """Refuse a tree taller than :data:`MAX_DEPTH`: the evaluator recurses once per level, and a chain such as
    ``1+1+...+1`` or ``a.b.c...`` parses in a loop into a tree as tall as the chain is long. Walked with a stack of
    its own, so the check itself cannot overflow Python's."""
    pending: list[tuple[Expression, int]] = [(root, 1)]
    while pending:
        node, level = pending.pop()
        if level > MAX_DEPTH:
            raise ELSyntaxError(_too_deep(), expression=text, position=node.position)
        pending.extend((child, level + 1) for child in _children(node))


@lru_cache(maxsize=4096)
def parse_template(text: str) -> Template:
    """Parse a text with embedded ``${...}`` expressions; a text without any is one literal part.

    Raises :class:`~falcon_airflow.errors.ELSyntaxError` (with the offset in ``text``) for an unterminated
    ``${`` or an expression that does not parse. Cached: a workflow repeats the same texts on every run.
    """
    parts: list[str | Expression] = []
    index = 0
    while True:
        start = text.find("${", index)
        if start < 0:
            break
        end = _closing_brace(text, start + 2)
        if end < 0:
            raise ELSyntaxError("'${' is not closed by '}'", expression=text, position=start)
        if start > index:
            parts.append(text[index:start])
        parts.append(parse_expression_at(text, start + 2, end))
        index = end + 1
    if index < len(text) or not parts:
        parts.append(text[index:])
    return Template(tuple(parts), text)


def has_expressions(text: str) -> bool:
    return "${" in text


def functions_called(expression: Expression) -> list[Call]:
    """Every call in an expression tree, outermost first."""
    found: list[Call] = []
    pending: list[Expression] = [expression]
    while pending:
        node = pending.pop(0)
        if isinstance(node, Call):
            found.append(node)
            pending.extend(node.arguments)
        elif isinstance(node, Unary):
            pending.append(node.operand)
        elif isinstance(node, Binary):
            pending.extend((node.left, node.right))
        elif isinstance(node, Conditional):
            pending.extend((node.condition, node.when_true, node.when_false))
        elif isinstance(node, Access):
            pending.extend((node.target, node.key))
    return found
