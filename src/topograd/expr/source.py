"""Where a part of a typed expression is, counted as its user counts: lines, and characters of
the text as typed. ``ast`` counts UTF-8 bytes within each line of the text it parsed, from
which the blanks around the expression were stripped; Python's tokenizer counts characters.
Before parsing, a scan refuses what Python's tokenizer would only warn about on stderr (``1if``:
a number running into a name), so that no warning filter (global to the process) is needed.

>>> source = Source("  é + f(x)")
>>> source.where(1, 4)
' (at column 7)'
>>> Source("(x\\n + y)").where(2, 3)
' (at line 2, column 4)'
"""

from __future__ import annotations

import ast
import io
import re
import threading
import tokenize
from typing import Any

LINES = re.compile(r"\r\n|\r|\n")  # what Python takes for the end of a line


class Source:
    """A typed expression's text, the text parsed (stripped), and how to point into it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.parsed = text.strip()
        lead = LINES.split(text[: len(text) - len(text.lstrip())])
        self.line_shift, self.column_shift = len(lead) - 1, len(lead[-1])
        self.lines = LINES.split(self.parsed)
        self.multiline = len(self.lines) > 1 or self.line_shift > 0

    def where(self, line: int, column: int) -> str:
        """`` (at column C)`` (or ``line L, column C`` for text of several lines) for a place
        in the parsed text: its line from 1 and its column in characters from 0."""
        typed = column + 1 + (self.column_shift if line == 1 else 0)
        if not self.multiline:
            return f" (at column {typed})"
        return f" (at line {line + self.line_shift}, column {typed})"

    def at_node(self, node: ast.AST) -> str:
        """Where ``node`` starts (its column in ``ast`` counts UTF-8 bytes of its line)."""
        line, offset = getattr(node, "lineno", None), getattr(node, "col_offset", None)
        if line is None or offset is None:
            return ""
        head = self.lines[line - 1].encode("utf-8")[:offset]
        return self.where(line, len(head.decode("utf-8", errors="ignore")))

    def segment(self, node: ast.AST) -> str:
        """The text of ``node`` as typed (``ast`` gives names folded by NFKC)."""
        return ast.get_source_segment(self.parsed, node) or ""

    def warned(self) -> str:
        """A refusal of what Python's tokenizer would only warn about on stderr: a number running
        into a name (``1if``, ``2x``), an escape in a string; "" if there is none, or if the
        tokens end early (``ast`` then says why)."""
        previous = None
        try:
            for token in tokenize.generate_tokens(io.StringIO(self.parsed).readline):
                if token.type == tokenize.STRING and "\\" in token.string:
                    return f"only numbers are allowed, not strings{self.where(*token.start)}"
                if (
                    previous is not None
                    and previous.type == tokenize.NUMBER
                    and token.type == tokenize.NAME
                    and previous.end == token.start
                ):
                    return (
                        f"syntax error: the number {previous.string} runs into {token.string}; "
                        f"put an operator or a space between them{self.where(*previous.start)}"
                    )
                previous = token
        except (tokenize.TokenError, SyntaxError):
            pass
        return ""


# CPython 3.11 keeps the state of ast.parse's tree building per interpreter, not per thread:
# two threads parsing at once (the playground's server and its caller) can see "SystemError:
# AST constructor recursion depth mismatch" (python/cpython#106905). One parse at a time.
_PARSING = threading.Lock()


def python_tree(text: str, mode: str) -> Any:
    """``ast.parse(text, mode=mode)``, one thread at a time."""
    with _PARSING:
        return ast.parse(text, mode=mode)
