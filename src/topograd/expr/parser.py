"""A safe parser for maths typed by users: ``tanh(a*b + c)``, ``x*x + x``, ``sqrt(x**2 + 1)``.

Built on ``ast`` with a whitelist: numbers, names, the operators of the op registry that act
on numbers (``+ - * / **``), unary ``+ -`` and calls of one argument to its functions (every
op of one number: ``tanh``, ``exp``, ``erf``, ...). Nothing is ever evaluated by Python: the
parsed tree is walked by topograd itself, numbers become floats (so ``9**9**9`` is ``inf`` at
once), and the size of the input and of the tree are bounded. Every refusal is an
``ExpressionError`` that says what was wrong and where. Lines that name their values, as the
lesson writes them (``d = a*b; n = d + c; e = tanh(n)``), are read too (``statements.py``);
an operation a line names is labelled so (the drawings name the others as the lesson does).

>>> e = parse("tanh(a*b + c)")
>>> e.names
('a', 'b', 'c')
>>> out, inputs = e.build({"a": 2, "b": -3, "c": 10})
>>> out.op, round(out.data, 6), inputs["a"].label
('tanh', 0.999329, 'a')
>>> lines = parse("d = a*b; n = d + c; e = tanh(n)")
>>> lines.names, lines.formula, lines.build({"a": 2, "b": -3, "c": 10})[0].label
(('a', 'b', 'c'), 'tanh(n)', 'e')
"""

from __future__ import annotations

import ast
import keyword
import math
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..autograd.registry import OPS, Op
from ..ops.arithmetic import neg
from ..scalar.value import Value
from .source import Source, python_tree
from .statements import RefusalError, Statement, statements

MAX_LENGTH = 4000  # characters: a chain of + has at most 2000 terms, which ast.parse takes
MAX_NODES = 2000  # numbers, names and operations in the tree
MAX_DEPTH = 200  # nesting as the user writes it: calls, brackets, powers, signs (not a + b + c)

# Python's own spelling of the operators the registry's ops may have as their symbol.
_PYTHON_OPERATORS: dict[str, type[ast.operator]] = {
    "+": ast.Add,
    "-": ast.Sub,
    "*": ast.Mult,
    "/": ast.Div,
    "**": ast.Pow,
    "@": ast.MatMult,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: neg,
    ast.UAdd: lambda x: x,
}


def operators() -> dict[type[ast.operator], Op]:
    """The binary operators expressions may use: the registry's ops of two numbers that have
    a symbol."""
    return {
        _PYTHON_OPERATORS[op.symbol]: op
        for op in OPS.values()
        if op.symbol in _PYTHON_OPERATORS and op.arity == 2 and op.scalar is not None
    }


def functions() -> dict[str, Op]:
    """The functions expressions may call: every built-in op of one number (custom ops are
    not offered to typed text)."""
    return {name: op for name, op in OPS.items() if op.function and not op.custom}


def operator_list() -> str:
    return " ".join(op.symbol for op in operators().values())


_REFUSED = {  # what users try, and what to call it in the message
    ast.Attribute: "attributes (a.b)",
    ast.Subscript: "subscripts (a[b])",
    ast.Lambda: "lambdas",
    ast.Compare: "comparisons",
    ast.BoolOp: "and / or",
    ast.IfExp: "conditional expressions",
    ast.NamedExpr: "assignments (:=)",
    ast.Starred: "starred arguments",
    ast.keyword: "keyword arguments",
    ast.Tuple: "tuples",
    ast.List: "lists",
    ast.Dict: "dicts",
    ast.Set: "sets",
    ast.JoinedStr: "f-strings",
    ast.ListComp: "comprehensions",
    ast.GeneratorExp: "comprehensions",
    ast.Await: "await",
}


class ExpressionError(ValueError):
    """The text is not an expression topograd accepts; the message says why and where."""


@dataclass(frozen=True)
class Expression:
    """A parsed, checked expression: its text, its statements (one, nameless, for a single
    expression) and its inputs' names in order of appearance."""

    text: str
    statements: tuple[Statement, ...]
    names: tuple[str, ...]

    @property
    def formula(self) -> str:
        """The output's expression as typed: the last statement's."""
        return self.statements[-1].text

    def build(self, values: Mapping[str, float]) -> tuple[Value, dict[str, Value]]:
        """The expression as a graph of Values: one labelled leaf per name (a name used twice is
        one node), a constant leaf per number, a node per operation (written twice, two nodes);
        an operation a line assigns is labelled with its name."""
        missing = [n for n in self.names if n not in values]
        if missing:
            raise ExpressionError(f"no value given for {', '.join(missing)}")
        unknown = [n for n in values if n not in self.names]
        if unknown:
            raise ExpressionError(f"{', '.join(unknown)} not in the expression {self.text!r}")
        inputs = {name: Value(values[name], label=name) for name in self.names}
        return self.on(inputs), inputs

    def on(self, inputs: Mapping[str, Value]) -> Value:
        """The expression's graph on the given Values, one per name (as ``tg.compile`` traces
        it)."""
        known: dict[str, Any] = dict(inputs)
        walk = _Walk(known.__getitem__, Value, functions())
        found: Any = None
        for statement in self.statements:
            found = walk.walk(statement.tree)
            if statement.name:  # parse made sure that it names an operation, not a leaf
                found.label = statement.name
                known[statement.name] = found
        out: Value = found
        return out


@dataclass(frozen=True)
class _Walk:
    leaf: Callable[[str], Any]
    number: Callable[[float], Any]
    functions: Mapping[str, Callable[[Any], Any]]

    def walk(self, root: ast.expr) -> Any:
        """Evaluate the tree bottom-up, left operand first, without recursion."""
        values: list[Any] = []
        todo: list[tuple[ast.expr, bool]] = [(root, False)]
        while todo:
            node, operands_done = todo.pop()
            if isinstance(node, ast.Constant):
                values.append(self.number(_to_float(node.value)))
            elif isinstance(node, ast.Name):
                values.append(self.leaf(node.id))
            elif not operands_done:
                todo.append((node, True))
                todo += [(child, False) for child in reversed(_operands(node))]
            else:
                values.append(self._operation(node, values))
        return values.pop()

    def _operation(self, node: ast.expr, values: list[Any]) -> Any:
        if isinstance(node, ast.BinOp):
            right, left = values.pop(), values.pop()
            return operators()[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](values.pop())
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        return self.functions[node.func.id](values.pop())


def _operands(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    assert isinstance(node, ast.Call)
    return [node.args[0]]


def _to_float(x: object) -> float:
    try:
        return float(x)  # type: ignore[arg-type]
    except OverflowError:  # an integer literal beyond float range
        return math.inf


def parse(text: str) -> Expression:
    """Parse and check ``text``; raise ``ExpressionError`` saying what is wrong and where."""
    if not isinstance(text, str):
        raise ExpressionError(f"an expression is text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f"the expression is {len(text)} characters long; at most {MAX_LENGTH}"
        )
    if not text.strip():
        raise ExpressionError("the expression is empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ExpressionError(
            f"the expression holds a character that is not text (at column {error.start + 1})"
        ) from None
    source = Source(text)
    warned = source.warned()
    if warned:
        raise ExpressionError(warned)
    body = _lines(source)
    try:
        if body is None:  # one expression
            tree = python_tree(source.parsed, "eval").body
            names = _checked_names(tree, source)
            return Expression(text, (Statement("", tree, source.parsed),), names)
        lines, names = statements(
            body, source.parsed, lambda tree: _checked_names(tree, source), functions()
        )
        return Expression(text, lines, names)
    except RefusalError as refusal:
        where = source.at_node(refusal.node) if refusal.node is not None else ""
        raise ExpressionError(refusal.what + where) from None


def _lines(source: Source) -> list[ast.stmt] | None:
    """The lines of a text that names what it computes (``d = a*b; e = tanh(d)``), or None
    for one expression. Text that is neither is refused with the syntax error of the reading
    that went further (lines, if the error comes after an =)."""
    try:
        python_tree(source.parsed, "eval")
        return None
    except SyntaxError as error:
        as_expression = error
    except (RecursionError, MemoryError):  # Python's own parser recursed too deep
        raise ExpressionError(
            f"the expression is nested too deeply for Python's parser; at most {MAX_DEPTH} levels"
        ) from None
    try:
        body: list[ast.stmt] = python_tree(source.parsed, "exec").body
    except SyntaxError as error:
        further = max(as_expression, error, key=lambda e: (e.lineno or 0, e.offset or 0))
        raise _syntax_error(source, further) from None
    except (RecursionError, MemoryError):
        raise _syntax_error(source, as_expression) from None
    if not any(isinstance(line, ast.Assign) for line in body):
        raise _syntax_error(source, as_expression) from None
    return body


def _syntax_error(source: Source, error: SyntaxError) -> ExpressionError:
    """Python's message, and where (its line counts from 1, its offset characters from 1)."""
    where = source.where(error.lineno or 1, error.offset - 1) if error.offset else ""
    return ExpressionError(f"syntax error: {error.msg}{where}")


def _checked_names(tree: ast.expr, source: Source) -> tuple[str, ...]:
    """Check every node of the tree, without recursion; the names in order of appearance."""
    names: dict[str, None] = {}
    count = 0
    todo: list[tuple[ast.AST, int]] = [(tree, 1)]
    while todo:
        node, depth = todo.pop()
        count += 1
        if count > MAX_NODES:
            raise RefusalError(None, f"the expression has more than {MAX_NODES} parts")
        if depth > MAX_DEPTH:
            raise RefusalError(node, f"the expression is nested more than {MAX_DEPTH} levels deep")
        for child in _check(node, names, source):
            todo.append((child, depth if _continues(node, child) else depth + 1))
    return tuple(names)


# Operators of one precedence that group to the left: a - b + c is one chain, not nested.
_CHAINS: tuple[tuple[type[ast.operator], ...], ...] = (
    (ast.Add, ast.Sub),
    (ast.Mult, ast.Div, ast.MatMult),
)


def _continues(node: ast.AST, child: ast.AST) -> bool:
    """Whether ``child`` is the left operand of ``node`` in one chain of operators of the same
    precedence: ``x1 + x2 + ... + x500`` is a long line to its user, not 499 levels deep,
    though ast nests it so."""
    if not (isinstance(node, ast.BinOp) and isinstance(child, ast.BinOp) and child is node.left):
        return False
    return any(type(node.op) in chain and type(child.op) in chain for chain in _CHAINS)


def _check(node: ast.AST, names: dict[str, None], source: Source) -> list[ast.AST]:
    """Refuse anything off the whitelist; return the children to check next."""
    for name in _names_in(node):
        typed = source.segment(name)
        if typed != name.id:
            raise RefusalError(name, _folded(typed, name.id))
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float):
            raise RefusalError(
                node, f"only numbers are allowed, not {type(node.value).__name__} literals"
            )
        return []
    if isinstance(node, ast.Name):
        if node.id in functions():
            raise RefusalError(node, f"{node.id} is a function: call it as {node.id}(...)")
        names.setdefault(node.id)
        return []
    if isinstance(node, ast.BinOp):
        if type(node.op) not in operators():
            raise RefusalError(
                node, f"the operator {_operator(node.op)} is not allowed; use {operator_list()}"
            )
        return [node.right, node.left]
    if isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY:
            raise RefusalError(
                node, f"the operator {_operator(node.op)} is not allowed; use {operator_list()}"
            )
        return [node.operand]
    if isinstance(node, ast.Call):
        return [_check_call(node)]
    what = _REFUSED.get(type(node), type(node).__name__)
    raise RefusalError(
        node, f"{what} are not allowed" if what != type(node).__name__ else f"{what} is not allowed"
    )


def _check_call(node: ast.Call) -> ast.expr:
    if isinstance(node.func, ast.Attribute):
        method = node.func.attr
        if method in functions():
            raise RefusalError(
                node, f"methods are not allowed; write {method}(...) around the operand"
            )
        raise RefusalError(node, "attributes (a.b) are not allowed")
    if not isinstance(node.func, ast.Name):
        raise RefusalError(
            node, "only the built-in functions can be called: " + ", ".join(functions())
        )
    name = node.func.id
    if name not in functions():
        raise RefusalError(
            node, f"unknown function {name!r}; the functions are: {', '.join(functions())}"
        )
    if node.keywords:
        raise RefusalError(node.keywords[0], f"{name}() takes no keyword arguments")
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            raise RefusalError(arg, "starred arguments are not allowed")
    if len(node.args) != 1:
        raise RefusalError(node, f"{name}() takes exactly one argument, got {len(node.args)}")
    return node.args[0]


def _folded(typed: str, read: str) -> str:
    """What to say of a name Python reads as another (it folds names by NFKC)."""
    if unicodedata.normalize("NFC", typed) == read:  # the same letters, composed differently
        return (
            f"the name {typed} ({_code_points(typed)}) would be read as {read} "
            f"({_code_points(read)}): type each accented letter as one character"
        )
    if keyword.iskeyword(read):
        return f"the name {typed} would be read as {read}, a keyword: choose another name"
    return (
        f"the name {typed} would be read as {read} (Python folds names with NFKC): "
        f"write {read}, or a name without such letters"
    )


def _code_points(text: str) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in text)


def _names_in(node: ast.AST) -> list[ast.Name]:
    """The names ``node`` spells itself: a variable, or the function a call names."""
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return [node.func]
    return []


def _operator(op: ast.AST) -> str:
    python = {v: k for k, v in _PYTHON_OPERATORS.items()}
    return {
        **python,
        ast.FloorDiv: "//",
        ast.Mod: "%",
        ast.BitAnd: "&",
        ast.BitOr: "|",
        ast.BitXor: "^",
        ast.LShift: "<<",
        ast.RShift: ">>",
        ast.Invert: "~",
        ast.Not: "not",
    }.get(type(op), type(op).__name__)
