"""Convolution and pooling on Tensors of (N, C, H, W) or (C, H, W), as PyTorch's: the functions
``conv2d``, ``max_pool2d``, ``avg_pool2d``, ``unfold`` and ``fold`` (also in
``tg.nn.functional``) and the layer ``Conv2d``. Each function
checks its arguments and refuses bad ones as PyTorch does (a RuntimeError, which is also the
ValueError topograd raised before: ``errors.py``), naming the problem, then records one op of
the registry (``ops/convolution.py``). The pool layers are in ``pooling.py``.

>>> import numpy as np
>>> import topograd as tg
>>> conv, pool = tg.nn.Conv2d(1, 4, 3, padding=1, seed=0), tg.nn.MaxPool2d(2)
>>> pool(conv(np.ones((2, 1, 8, 8), dtype=np.float32)).relu()).shape
topograd.Size([2, 4, 4, 4])
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..autograd.errors import RuntimeTypeError, RuntimeValueError
from ..ops import convolution as ops
from ..ops.geometry import Pair, counts, geometry, pair, pool_geometry, positive
from ..tensors import Tensor
from ..tensors.creation import checked_shape
from ..tensors.dtypes import scalar_name
from ..tensors.functions import concatenate
from ..tensors.random import Generator
from ..tensors.tensor import as_tensor, constant
from ..tensors.windows import max_pool2d as pick_maxima
from . import init
from .layers import layer_init
from .module import Module
from .parameter import Parameter, as_input, factory_dtype

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_NUMPY_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


Found = TypeVar("Found")


def _refuse(failed: bool, message: str) -> None:
    if failed:
        raise RuntimeValueError(message)


def _images(x: Tensor, what: str) -> None:
    """Refuse anything but (N, C, H, W) or (C, H, W) with C, H and W not empty."""
    wrong = x.ndim not in (3, 4) or 0 in x.shape[-3:]
    _refuse(wrong, f"{what}: expected (N, C, H, W) or (C, H, W), C, H, W > 0, got {list(x.shape)}")


def conv2d(
    input: Any,  # noqa: A002 - PyTorch's names
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The 2-D cross-correlation of the images with the kernels ``weight`` (out_channels,
    in_channels / groups, kH, kW), plus ``bias``, as torch.nn.functional.conv2d. ``padding``
    is a size, a pair, or "valid" (none) or "same" (the output as large as the input, at
    stride 1; an odd total puts the extra row and column at the end, as PyTorch)."""
    w = as_tensor(weight)
    x = as_input(input, w)
    _check_convolution(x, w, bias, groups)
    pads = 0 if isinstance(padding, str) else padding
    window = geometry(w.shape[-2:], stride, pads, dilation)
    x, window["padding"] = _padded(x, padding, window)
    padded = [n + 2 * p for n, p in zip(x.shape[-2:], window["padding"])]
    kernel = f"{list(w.shape[-2:])} (dilation {window['dilation']})"
    small = min(counts(x.shape[-2:], window)) < 1
    _refuse(small, f"conv2d: the padded input {padded} is smaller than the kernel {kernel}")
    args = (x, w) if bias is None else (x, w, as_input(bias, w))
    del window["kernel_size"]
    return ops.conv2d(*args, **window, groups=groups)  # type: ignore[no-any-return]


def _check_convolution(x: Tensor, w: Tensor, bias: Any, groups: int) -> None:
    """Refuse a convolution whose shapes or dtypes do not fit, in PyTorch's terms."""
    xs, ws = list(x.shape), list(w.shape)
    _refuse(x.ndim not in (3, 4), f"Expected 3D (unbatched) or 4D (batched) input, got size {xs}")
    _refuse(w.ndim != 4 or 0 in ws, f"weight must be (out, in / groups, kH, kW), got size {ws}")
    _refuse(
        type(groups) is not int or groups < 1, f"non-positive groups is not supported: {groups}"
    )
    whole = f"expected weight to be divisible by {groups} at dimension 0, got size {ws}"
    _refuse(w.shape[0] % groups != 0, f"Given groups={groups}, {whole}")
    channels = w.shape[1] * groups
    wanted = f"expected input{xs} to have {channels} channels, but got {x.shape[-3]} channels"
    _refuse(x.shape[-3] != channels, f"Given groups={groups}, weight of size {ws}, {wanted}")
    b = None if bias is None else as_input(bias, w)
    bs = None if b is None else list(b.shape)
    one = f"expected bias to be 1-dimensional with {w.shape[0]} elements, got size {bs}"
    _refuse(bs is not None and bs != [w.shape[0]], f"Given weight of size {ws}, {one}")
    other = next((t for t in (w, b) if t is not None and t.dtype != x.dtype), None)
    if other is not None:  # PyTorch's words
        raise RuntimeTypeError(
            f"expected scalar type {scalar_name(x.array.dtype)} but found "
            f"{scalar_name(other.array.dtype)}"
        )


def _padded(x: Tensor, padding: Any, window: dict[str, Pair]) -> tuple[Tensor, Pair]:
    """The padding as a pair for the op; for "same" with an odd total, the input with its
    extra zero row or column at the end already."""
    if not isinstance(padding, str) or _layer_padding(padding, window["stride"]) == "valid":
        return x, window["padding"]
    top, bottom, left, right = _same(window["kernel_size"], window["dilation"])
    for axis, extra in ((-2, bottom - top), (-1, right - left)):
        if extra:
            shape = list(x.shape)
            shape[axis] = 1
            x = concatenate([x, constant(np.zeros(shape, x.dtype))], axis=x.ndim + axis)
    return x, (top, left)


def _same(kernel: Pair, dilation: Pair) -> tuple[int, int, int, int]:
    """padding="same": rows before and after, columns before and after, the output as large
    as the input; an odd total puts the extra one at the end, as PyTorch."""
    th, tw = (d * (k - 1) for d, k in zip(dilation, kernel))
    return th // 2, th - th // 2, tw // 2, tw - tw // 2


def _pool(
    what: str, x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil: bool
) -> dict[str, Any]:
    """A pool's windows as pairs, checked as PyTorch checks them."""
    _images(x, what)
    window = pool_geometry(kernel_size, stride, padding, dilation)
    (oh, ow), (c, h, w) = counts(x.shape[-2:], window, ceil), x.shape[-3:]
    sizes = f"input size ({c}x{h}x{w}), output size ({c}x{oh}x{ow})"
    _refuse(min(oh, ow) < 1, f"{what}: Output size is too small: {sizes}")
    return {**window, "ceil_mode": bool(ceil)}


def max_pool2d(
    input: Any,  # noqa: A002 - PyTorch's names
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The largest element of each window, as torch.nn.functional.max_pool2d (the first of
    equal maxima; nan where a window holds one); with ``return_indices``, also where each
    lies (h·W + w in its image, as PyTorch's), a Tensor of int64."""
    x = as_tensor(input)
    params = _pool("max_pool2d", x, kernel_size, stride, padding, dilation, ceil_mode)
    out = ops.max_pool2d(x, **params)
    if not return_indices:
        return out
    _, picked = pick_maxima(x.array, **params, return_indices=True)
    return out, constant(picked)


def avg_pool2d(
    input: Any,  # noqa: A002 - PyTorch's names
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each window, as torch.nn.functional.avg_pool2d: its sum over the window's
    size in the padded image (``count_include_pad``), or in the image alone, or over
    ``divisor_override``."""
    x = as_tensor(input)
    params = _pool("avg_pool2d", x, kernel_size, stride, padding, 1, ceil_mode)
    del params["dilation"]
    _refuse(divisor_override is not None and divisor_override == 0, "divisor must be not zero")
    params["count_include_pad"] = bool(count_include_pad)
    return ops.avg_pool2d(x, **params, divisor_override=divisor_override)  # type: ignore[no-any-return]


def unfold(
    input: Any,  # noqa: A002 - PyTorch's names
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """Every window of the images as a column, (N, C·kH·kW, windows), as
    torch.nn.functional.unfold (im2col)."""
    x = as_tensor(input)
    _images(x, "unfold")
    window = geometry(kernel_size, stride, padding, dilation)
    found, size = counts(x.shape[-2:], window), tuple(x.shape[-2:])
    given = f"spatial size {size}, {_described(window)}: sliding blocks {found}"
    _refuse(min(found) < 1, f"unfold: {given}, but the array of sliding blocks must not be empty")
    return ops.unfold(x, **window)  # type: ignore[no-any-return]


def fold(
    input: Any,  # noqa: A002 - PyTorch's names
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """Columns (N, C·kH·kW, windows) added back onto images of ``output_size`` where their
    windows lie, as torch.nn.functional.fold (col2im): overlapping windows add up."""
    x = as_tensor(input)
    window = geometry(kernel_size, stride, padding, dilation)
    size = positive(output_size, "output_size")
    wrong = x.ndim not in (2, 3) or 0 in x.shape[-2:]
    _refuse(wrong, f"fold: expected (N, C·kH·kW, L) or (C·kH·kW, L), got size {list(x.shape)}")
    (kh, kw), (oh, ow) = window["kernel_size"], counts(size, window)
    given = f"got input.size(1)={x.shape[-2]} and kernel_size={(kh, kw)}"
    _refuse(
        x.shape[-2] % (kh * kw) != 0,
        f"fold: divisible by the product of kernel_size expected, {given}",
    )
    given = f"output_size={size}, {_described(window)}: {oh} * {ow} = {oh * ow} sliding blocks"
    _refuse(x.shape[-1] != oh * ow, f"fold: {given}, but input.size(2)={x.shape[-1]}")
    return ops.fold(x, output_size=size, **window)  # type: ignore[no-any-return]


def _described(window: dict[str, Pair]) -> str:
    return ", ".join(f"{name}={value}" for name, value in window.items())


class Conv2d(Module):
    """A 2-D convolution layer, as torch.nn.Conv2d: ``weight`` (out_channels, in_channels /
    groups, kH, kW) and ``bias`` (out_channels), both uniform in ±1/√fan_in, PyTorch's
    initialisation (kaiming_uniform_ with a = √5), drawn from ``seed`` or else from topograd's
    generator (``seed`` by name only: PyTorch's next argument is ``device``); float32 unless
    ``dtype`` says otherwise, on the CPU. Its arguments are attributes of PyTorch's names and
    types (``kernel_size``, ``stride``, ``dilation``: pairs). ``padding_mode`` "reflect",
    "replicate" or "circular" pads by those rules instead of zeros."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
        *,
        seed: int | None = None,
    ) -> None:
        kind = factory_dtype(device, dtype)
        _refuse(type(groups) is not int or groups < 1, "groups must be a positive integer")
        _refuse(in_channels % groups != 0, "in_channels must be divisible by groups")
        _refuse(out_channels % groups != 0, "out_channels must be divisible by groups")
        modes = f"{set(PADDING_MODES)}, but got padding_mode={padding_mode!r}"
        _refuse(padding_mode not in PADDING_MODES, f"padding_mode must be one of {modes}")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = pair(kernel_size, "kernel_size"), pair(stride, "stride")
        self.dilation, self.padding_mode = pair(dilation, "dilation"), padding_mode
        self.padding: Any = _layer_padding(padding, self.stride)
        generator = None if seed is None else Generator().manual_seed(seed)
        shape = checked_shape((out_channels, in_channels // groups, *self.kernel_size))
        self.weight = Parameter(np.empty(shape, kind))
        self.bias = Parameter(np.zeros(out_channels, kind)) if bias else None
        fan_in = layer_init(self.weight, generator)  # (PyTorch's order: weight, then bias)
        if self.bias is not None and fan_in:
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound, generator)

    def forward(self, input: Any) -> Tensor:  # noqa: A002 - PyTorch's names
        x, padding = input, self.padding
        if self.padding_mode != "zeros":
            x = _padded_by_mode(as_input(x, self.weight), self._sides(), self.padding_mode)
            padding = 0
        return conv2d(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)

    if TYPE_CHECKING:  # (called through Module.__call__, which runs forward: its type)

        def __call__(self, input: Any) -> Tensor: ...  # noqa: A002

    def _sides(self) -> tuple[int, int, int, int]:
        """Rows before and after, columns before and after."""
        if self.padding == "valid":
            return 0, 0, 0, 0
        if self.padding == "same":
            return _same(self.kernel_size, self.dilation)
        ph, pw = self.padding
        return int(ph), int(ph), int(pw), int(pw)

    def __repr__(self) -> str:
        shown = [f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}"]
        shown += [f"stride={self.stride}"] + [f"padding={self.padding}"] * (self.padding != (0, 0))
        shown += [f"dilation={self.dilation}"] * (self.dilation != (1, 1))
        shown += [f"groups={self.groups}"] * (self.groups != 1)
        shown += ["bias=False"] * (self.bias is None)
        shown += [f"padding_mode={self.padding_mode}"] * (self.padding_mode != "zeros")
        return f"Conv2d({', '.join(shown)})"


def _layer_padding(padding: Any, stride: Pair) -> Any:
    """A Conv2d's padding: a pair, or "same" (at stride 1 only) or "valid"."""
    if not isinstance(padding, str):
        return pair(padding, "padding")
    unknown = padding not in ("same", "valid")
    _refuse(unknown, f"Invalid padding string {padding!r}, should be one of 'valid', 'same'")
    strided = padding == "same" and stride != (1, 1)
    _refuse(strided, "padding='same' is not supported for strided convolutions")
    return padding


def _padded_by_mode(x: Tensor, sides: tuple[int, int, int, int], mode: str) -> Tensor:
    """The images padded by reflection, by their edges, or around (as torch.nn.functional.pad):
    each padded pixel is a pixel of the image, picked by index, so the gradient adds up
    where one pixel is picked more than once."""
    _images(x, f"Conv2d with padding_mode={mode!r}")
    top, bottom, left, right = sides
    for size, (before, after), axis in zip(x.shape[-2:], ((top, bottom), (left, right)), (-2, -1)):
        wraps = mode == "circular" and max(before, after) > size
        too_large = wraps or (mode == "reflect" and max(before, after) >= size)
        given = f"an input of size {size} along dimension {x.ndim + axis}"
        _refuse(
            too_large, f"padding ({before}, {after}) is too large for {mode} padding of {given}"
        )
    rows = np.pad(np.arange(x.shape[-2]), (top, bottom), mode=_NUMPY_MODES[mode])  # type: ignore[call-overload]
    columns = np.pad(np.arange(x.shape[-1]), (left, right), mode=_NUMPY_MODES[mode])  # type: ignore[call-overload]
    return x[..., rows[:, None], columns[None, :]]
