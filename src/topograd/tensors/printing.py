"""A Tensor's text as PyTorch prints it: ``tensor([[1., 2.],\\n        [3., 4.]])``.

A pure function of the NumPy array and the suffixes to show, so that a program's printed
output reads the same under topograd as under PyTorch. The numbers share one column width and
one of PyTorch's formats, chosen from the values: whole numbers as ``1.`` (int mode), else a
fixed ``precision`` of decimals, or scientific notation when the values span more than three
decades, exceed 1e8 or fall below 1e-4. Rows wrap at ``linewidth``; above ``threshold``
elements only ``edgeitems`` at each end of each dimension are shown, around ``...``.

>>> import numpy as np
>>> print(tensor_repr(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), dtype_name="torch.float32"))
tensor([[1., 2.],
        [3., 4.]])
>>> tensor_repr(np.array(2.4544, np.float64), dtype_name="torch.float64", grad_fn="MulBackward0")
'tensor(2.4544, dtype=torch.float64, grad_fn=<MulBackward0>)'
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

PREFIX = "tensor("
PROFILES: dict[str, tuple[int, float, int, int]] = {
    # name: (precision, threshold, edgeitems, linewidth), PyTorch's presets
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


@dataclasses.dataclass
class PrintOptions:
    """How Tensors print; one module-level instance, ``print_options``, set by set_printoptions."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


print_options = PrintOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how Tensors print, as ``torch.set_printoptions``.

    A ``profile`` ("default", "short", "full") sets the first four options, then the options
    given override it. As in PyTorch, ``sci_mode`` is always set: a call without it returns
    to the automatic choice.

    >>> import numpy as np
    >>> set_printoptions(precision=2)
    >>> tensor_repr(np.array([1.12345]), dtype_name="torch.float64", default_float=np.float64)
    'tensor([1.12])'
    >>> set_printoptions(profile="default")
    >>> print_options.precision
    4
    """
    if profile in PROFILES:
        preset = PROFILES[profile]
        print_options.precision, print_options.threshold = preset[0], preset[1]
        print_options.edgeitems, print_options.linewidth = preset[2], preset[3]
    if precision is not None:
        print_options.precision = precision
    if threshold is not None:
        print_options.threshold = threshold
    if edgeitems is not None:
        print_options.edgeitems = edgeitems
    if linewidth is not None:
        print_options.linewidth = linewidth
    print_options.sci_mode = sci_mode


class NumberFormat:
    """One format and one column width for all the numbers a Tensor shows.

    Chosen from ``sample``, the numbers that will be shown. For floats only the nonzero finite
    ones decide (nan, inf and zeros fit any format); without any, int mode is kept.
    """

    __slots__ = ("floating", "int_mode", "precision", "sci_mode", "width")

    def __init__(self, sample: NDArray[Any]) -> None:
        self.floating = bool(np.issubdtype(sample.dtype, np.floating))
        self.precision = print_options.precision
        self.int_mode, self.sci_mode = True, False
        deciding = sample.reshape(-1)
        if self.floating:
            deciding = deciding[np.isfinite(deciding) & (deciding != 0)]
            if deciding.size:
                self.choose_float_mode(deciding)
        # the width counts only the deciding numbers: a longer nan or -0. is not padded
        self.width = max([1, *(len(self.core(number)) for number in deciding.tolist())])

    def choose_float_mode(self, deciding: NDArray[Any]) -> None:
        """Int mode if all are whole; scientific if they span over 1e3 or leave [1e-4, 1e8]."""
        self.int_mode = bool(np.all(deciding == np.ceil(deciding)))
        if print_options.sci_mode is not None:
            self.sci_mode = print_options.sci_mode
            return
        # in Python floats: float16 would round the ratio, and overflow
        magnitudes = np.abs(deciding)
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4

    def core(self, number: float | int | bool) -> str:
        """The number's text before padding to the column width."""
        if not self.floating:
            return str(number)
        if self.sci_mode:
            return f"{number:.{self.precision}e}"
        if self.int_mode:
            # the point tells a float from an int; nan and inf need none
            return f"{number:.0f}" + ("." if math.isfinite(number) else "")
        return f"{number:.{self.precision}f}"

    def text(self, number: float | int | bool) -> str:
        """The number's text right-aligned in the shared column."""
        return self.core(number).rjust(self.width)


def shown_sample(values: NDArray[Any]) -> NDArray[Any]:
    """The numbers a summarised print shows (the edges of each dimension), for NumberFormat."""
    edge = print_options.edgeitems
    if edge == 0:
        return values[..., :0] if values.ndim else values  # "[...]" shows no number
    for axis, size in enumerate(values.shape):
        if size > 2 * edge:
            values = np.take(values, [*range(edge), *range(size - edge, size)], axis=axis)
    return values


def vector_text(values: NDArray[Any], indent: int, summarize: bool, style: NumberFormat) -> str:
    """``[a, b, c,\\n d]``: one dimension, wrapped to fit the line width after ``indent``."""
    edge, size = print_options.edgeitems, values.shape[0]
    per_line = max(1, (print_options.linewidth - indent) // (style.width + 2))
    if summarize and edge == 0:
        items = ["..."]
    elif summarize and size > 2 * edge:
        head, tail = values[:edge].tolist(), values[size - edge :].tolist()
        items = [*map(style.text, head), " ...", *map(style.text, tail)]
    else:
        items = [style.text(number) for number in values.tolist()]
    lines = [", ".join(items[start : start + per_line]) for start in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def nested_text(values: NDArray[Any], indent: int, summarize: bool, style: NumberFormat) -> str:
    """The brackets of all dimensions; a blank line between blocks per dimension above two."""
    if values.ndim == 0:
        return style.text(values.item())
    if values.ndim == 1:
        return vector_text(values, indent, summarize, style)
    edge, size = print_options.edgeitems, values.shape[0]
    rows: list[int | None] = list(range(size))
    if summarize and size > 2 * edge:
        rows = [*range(edge), None, *range(size - edge, size)]
    blocks = [
        "..." if row is None else nested_text(values[row], indent + 1, summarize, style)
        for row in rows
    ]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(blocks) + "]"


def body_text(values: NDArray[Any], indent: int) -> str:
    """The numbers in their brackets, without the prefix and suffixes."""
    if values.size == 0:
        return "[]"
    summarize = values.size > print_options.threshold
    style = NumberFormat(shown_sample(values) if summarize else values)
    return nested_text(values, indent, summarize, style)


def suffixes(
    values: NDArray[Any],
    dtype_name: str,
    default_float: np.dtype[Any],
    requires_grad: bool,
    grad_fn: str | None,
) -> list[str]:
    """``size=``, ``dtype=``, then ``grad_fn=`` or ``requires_grad=``, where PyTorch shows them."""
    shown = []
    if values.size == 0:
        # no numbers tell the dtype: only the default float goes without saying
        if values.ndim != 1:
            shown.append(f"size={values.shape}")
        if values.dtype != default_float:
            shown.append(f"dtype={dtype_name}")
    else:
        if print_options.edgeitems == 0:
            shown.append(f"size={values.shape}")
        if values.dtype not in (default_float, np.dtype(np.int64), np.dtype(np.bool_)):
            shown.append(f"dtype={dtype_name}")
    if grad_fn is not None:
        shown.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        shown.append("requires_grad=True")
    return shown


def with_suffixes(text: str, shown: list[str], indent: int) -> str:
    """Append ``, suffix`` for each, on a new line where it would pass the line width."""
    # PyTorch's count: two more than the last line's length when the text has one line
    line_length = len(text) - text.rfind("\n") + 1
    parts = [text]
    for suffix in shown:
        if line_length + len(suffix) + 2 > print_options.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_length += len(suffix) + 2
    return "".join([*parts, ")"])


def tensor_repr(
    values: NDArray[Any],
    *,
    dtype_name: str,
    default_float: DTypeLike = np.float32,
    requires_grad: bool = False,
    grad_fn: str | None = None,
) -> str:
    """PyTorch's ``repr(t)`` (and ``str(t)``) for a Tensor holding ``values``.

    ``dtype_name`` is what ``dtype=`` shows when the dtype is not the default of its kind
    (``default_float``, int64 or bool); ``grad_fn`` is the name of the node that made the
    Tensor, shown in place of ``requires_grad=True``.

    >>> import numpy as np
    >>> tensor_repr(np.array([1, 2, 3], np.int32), dtype_name="torch.int32")
    'tensor([1, 2, 3], dtype=torch.int32)'
    >>> tensor_repr(np.zeros((0, 3)), dtype_name="torch.float64", default_float=np.float64)
    'tensor([], size=(0, 3))'
    >>> tensor_repr(np.array([1e-5, 1.0], np.float32), dtype_name="torch.float32",
    ...             requires_grad=True)
    'tensor([1.0000e-05, 1.0000e+00], requires_grad=True)'
    """
    indent = len(PREFIX)
    shown = suffixes(values, dtype_name, np.dtype(default_float), requires_grad, grad_fn)
    return with_suffixes(PREFIX + body_text(values, indent), shown, indent)


def format_number(values: NDArray[Any], spec: str, *, type_name: str = "Tensor") -> str | None:
    """What ``f"{t:{spec}}"`` gives in PyTorch for a Tensor ``t`` holding ``values``.

    A 0-d Tensor formats its Python number (``.item()``: an int, a bool or the float's exact
    value), whatever the spec. Any other Tensor, and a 0-d subclass such as a Parameter, falls
    back to ``object.__format__``: None here, for the caller to show ``str(t)``, when the spec
    is empty; the TypeError PyTorch raises otherwise (one element is not enough).

    >>> import numpy as np
    >>> format_number(np.array(2.4544, np.float32), ".4f"), format_number(np.array(2.5), "")
    ('2.4544', '2.5')
    >>> format_number(np.array([2.5]), ".4f")
    Traceback (most recent call last):
    TypeError: unsupported format string passed to Tensor.__format__
    """
    if values.ndim == 0 and type_name == "Tensor":
        number: float | int | bool = values.item()
        return format(number, spec)
    if spec:
        raise TypeError(f"unsupported format string passed to {type_name}.__format__")
    return None
