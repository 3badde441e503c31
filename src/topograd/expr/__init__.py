"""Typed maths: a safe parser for expressions such as ``tanh(a*b + c)``, whose operators and
functions are the registry's, evaluated by topograd itself into a graph of Values."""

from .parser import (
    MAX_DEPTH,
    MAX_LENGTH,
    MAX_NODES,
    Expression,
    ExpressionError,
    functions,
    operator_list,
    operators,
    parse,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_LENGTH",
    "MAX_NODES",
    "Expression",
    "ExpressionError",
    "functions",
    "operator_list",
    "operators",
    "parse",
]
