"""The user's strings in the generated code: as a checked identifier, or escaped in a comment.

A Value's label names its variable, a custom op's name the function the code calls, the
compiled function's name its ``def``: each only where ``is_plain`` holds (an ASCII identifier,
so that Python's NFKC folding of identifiers cannot turn a fullwidth ``tanh`` into ``tanh``; no
keyword), and where it is none of the names the code itself uses (``RESERVED``, the shapes
``GENERATED``, and the namespace's). Anything else the user wrote (an op's name, an optimizer's
class name) goes into a comment through ``escape``, which escapes every character that is
not printable: no line break of any kind (``\\n``, ``\\r``, ``\\x0b`` ... ``\\u2029``) can end
the comment and make the rest code.

>>> is_plain("tanh"), is_plain("\\uff54\\uff41\\uff4e\\uff48"), is_plain("if"), is_plain("x\\ny")
(True, False, False, False)
>>> escape('x\\nimport os\\u2028"')
'x\\\\nimport os\\\\u2028"'
"""

from __future__ import annotations

import builtins
import keyword
import re

# the generated code's own variables, and the builtins its lines call (float, abs in the
# guards; sum, max ... in the registry's code): no label or name of the user's takes them
RESERVED = frozenset({"args", "held", "carry", "chosen", "partials", "saved", *dir(builtins)})
# the shapes of the names the code makes (inputs, nodes, a loop's nodes, numbers and tables,
# the calls it makes again)
GENERATED = re.compile(r"(?:x|v|u|k|chain|rows|S|R|G|effect)\d+|carry")


def is_plain(text: str) -> bool:
    """Whether ``text`` may stand in the code as a name: an ASCII identifier, no keyword."""
    return text.isidentifier() and text.isascii() and not keyword.iskeyword(text)


def escape(text: str) -> str:
    """``text`` for a comment of the code: every character that is not printable escaped."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
