"""The NumPy kernels of windows over images (the entries of ``ops/convolution.py``): unfold and
fold (im2col and col2im), conv2d, max_pool2d, avg_pool2d and avg_pool2d_backward.

Each works on the images laid out with the images last, (C, H, W, M), M for every axis in
front of C taken together: a window's pixels are then runs of M numbers side by side, so that
taking the windows out (im2col) and adding them back (col2im) copy long runs, where the usual
(M, C, H, W) would copy an 8 x 8 digit a few pixels at a time (about 20 times slower). Results
come back in the usual (..., C, H, W) order as views of such arrays; NumPy's elementwise ops
keep a layout, so the next layer of a network finds its input laid out as it wants it, at no
cost. A loop runs over the kh·kw offsets of a window, never over pixels.

>>> import numpy as np
>>> x = np.arange(16.0).reshape(1, 1, 4, 4)
>>> max_pool2d(x, 2).tolist()
[[[[5.0, 7.0], [13.0, 15.0]]]]
>>> unfold(x, 3).shape, fold(unfold(x, 3), (4, 4), 3)[0, 0, 1].tolist()
((1, 9, 4), [8.0, 20.0, 24.0, 14.0])
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from ..ops.geometry import Pair, counts, geometry, pair, pool_geometry, reach

Array = np.ndarray[Any, Any]


class Windows(NamedTuple):
    """Where the windows of an image lie: their size, step, padding, spacing and count."""

    kernel: Pair
    stride: Pair
    padding: Pair
    dilation: Pair
    counts: Pair  # windows down and across

    def at(self, canvas: Array, i: int, j: int) -> Array:
        """The pixel at offset (i, j) of every window, as a view of ``canvas`` (C, H, W, M),
        the padded images: (C, windows down, windows across, M)."""
        (sh, sw), (dh, dw), (oh, ow) = self.stride, self.dilation, self.counts
        return canvas[
            :, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw
        ]

    def offsets(self) -> Iterator[tuple[int, int, int]]:
        """(k, i, j) for every offset of a window, row by row, as PyTorch scans it."""
        kh, kw = self.kernel
        for k in range(kh * kw):
            yield k, k // kw, k % kw

    def canvas(self, size: Pair) -> Pair:
        """The padded size that holds every window, ceil_mode's overhang included."""
        spans = [
            max(n, reach(c, k, s, p, d)) + 2 * p
            for n, c, k, s, p, d in zip(
                size, self.counts, self.kernel, self.stride, self.padding, self.dilation
            )
        ]
        return spans[0], spans[1]


def windows(
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    size: Pair,
    ceil_mode: bool | None = None,
) -> Windows:
    """The windows over an image of ``size``: a convolution's (``ceil_mode`` None), or a
    pool's (stride None: the kernel's)."""
    pool = ceil_mode is not None
    window = (pool_geometry if pool else geometry)(kernel_size, stride, padding, dilation)
    kernel, steps, pads, spacing = window.values()  # in GEOMETRY's order
    return Windows(kernel, steps, pads, spacing, counts(size, window, ceil_mode))


def images_last(x: Array, trailing: int) -> Array:
    """``x`` (*lead, ...) as (..., M), its last ``trailing`` axes first and every axis in front
    of them in one axis M at the end (a view where x is laid out so already)."""
    flat = x.reshape((-1, *x.shape[x.ndim - trailing :]))
    return flat.transpose((*range(1, trailing + 1), 0))


def images_first(a: Array, lead: tuple[int, ...]) -> Array:
    """``a`` (..., M) back in the usual order, (*lead, ...): a view."""
    moved = a.transpose((a.ndim - 1, *range(a.ndim - 1)))
    return moved.reshape((*lead, *a.shape[:-1]))


class Scratch(threading.local):
    """Arrays a kernel fills and drops within one call (a convolution's columns and padded
    images), kept per thread for its next call of the same shapes: a fresh array of a
    megabyte costs the zeroing of its pages by the operating system (glibc gives large blocks
    back between training steps), about as much as the work done in it."""

    def __init__(self) -> None:
        self.arrays: dict[tuple[Any, ...], Array] = {}

    def get(self, role: str, shape: tuple[int, ...], dtype: Any) -> Array:
        """An array of ``shape`` to overwrite, whatever it holds."""
        key = (role, shape, np.dtype(dtype))
        found = self.arrays.get(key)
        if found is None:
            if len(self.arrays) >= 16:  # shapes come and go (another batch size): start over
                self.arrays.clear()
            found = self.arrays[key] = np.empty(shape, dtype)
        return found


SCRATCH = Scratch()


def padded(images: Array, grid: Windows, fill: float, scratch: bool = False) -> Array:
    """The images (C, H, W, M) on a canvas holding every window (``fill`` around them), in
    ``SCRATCH`` where the caller drops it; the images themselves where no padding is needed."""
    (c, h, w, m), (ph, pw) = images.shape, grid.padding
    ch, cw = grid.canvas((h, w))
    if (ch, cw) == (h, w):
        return images
    shape = (c, ch, cw, m)
    canvas = (
        SCRATCH.get("canvas", shape, images.dtype) if scratch else np.empty(shape, images.dtype)
    )
    canvas.fill(fill)
    canvas[:, ph : ph + h, pw : pw + w] = images
    return canvas


def columns(x: Array, grid: Windows, scratch: bool = False) -> Array:
    """Every window of the images x (*lead, C, H, W): (C, kh, kw, windows down, across, M),
    in ``SCRATCH`` where the caller drops it (the padded images always are)."""
    images = padded(images_last(x, 3), grid, 0.0, scratch=True)
    (kh, kw), (oh, ow) = grid.kernel, grid.counts
    shape = (images.shape[0], kh, kw, oh, ow, images.shape[-1])
    found = SCRATCH.get("columns", shape, x.dtype) if scratch else np.empty(shape, x.dtype)
    for _, i, j in grid.offsets():
        found[:, i, j] = grid.at(images, i, j)
    return found


def unfold(
    x: Array, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Array:
    """Every window as a column, (*lead, C·kh·kw, windows), as torch.nn.functional.unfold."""
    grid = windows(kernel_size, stride, padding, dilation, x.shape[-2:])
    found = columns(x, grid)
    c, kh, kw, oh, ow, m = found.shape
    return images_first(found.reshape((c * kh * kw, oh * ow, m)), x.shape[:-3])


def fold(
    x: Array,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Array:
    """Columns (*lead, C·kh·kw, windows) added onto images of ``output_size`` where their
    windows lie, as torch.nn.functional.fold: overlapping windows add up, in PyTorch's order."""
    size = pair(output_size, "output_size")
    grid = windows(kernel_size, stride, padding, dilation, size)
    (kh, kw), (oh, ow), (ph, pw) = grid.kernel, grid.counts, grid.padding
    found = images_last(x, 2)
    c, m = found.shape[0] // (kh * kw), found.shape[-1]
    cols = found.reshape((c, kh, kw, oh, ow, m))
    canvas = np.zeros((c, *grid.canvas(size), m), x.dtype)
    for _, i, j in grid.offsets():
        spot = grid.at(canvas, i, j)
        spot += cols[:, i, j]
    return images_first(canvas[:, ph : ph + size[0], pw : pw + size[1]], x.shape[:-2])


def conv2d(
    x: Array,
    weight: Array,
    bias: Array | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Array:
    """Σ over each window of W · x, + b: the columns times the weights, one matrix product per
    group, as torch.nn.functional.conv2d."""
    grid = windows(weight.shape[-2:], stride, padding, dilation, x.shape[-2:])
    found = columns(x, grid, scratch=True)
    out_channels, per_group, kh, kw = weight.shape
    (oh, ow), m = grid.counts, found.shape[-1]
    flat = found.reshape((groups, per_group * kh * kw, oh * ow * m))
    out = np.matmul(weight.reshape((groups, out_channels // groups, per_group * kh * kw)), flat)
    out = out.reshape((out_channels, oh, ow, m))
    if bias is not None:
        out += bias.reshape((out_channels, 1, 1, 1))
    return images_first(out, x.shape[:-3])


def max_pool2d(
    x: Array,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
    picks: bool = False,
) -> Any:
    """The largest element of each window, as torch.nn.functional.max_pool2d: the element
    PyTorch's scan picks, which takes an element greater than the best so far, or a nan (so:
    the first of equal maxima, the last nan; the first pixel inside the image where all are
    -inf). With ``return_indices``, also where each pick lies (h·W + w, PyTorch's); with
    ``picks``, which pixel each window picked, as unfold would lay out its windows: columns
    (*lead, C·kH·kW, windows) of booleans, True at the pick (what max_pool2d's rule folds)."""
    w = x.shape[-1]
    grid, _, views, best = pooled_maxima(x, kernel_size, stride, padding, dilation, ceil_mode)
    out = images_first(best, x.shape[:-3])
    if not (return_indices or picks):
        return out
    chosen = chosen_pixels(views, best, grid)  # (C, kh·kw, windows down, across, M)
    if picks:
        return out, pick_columns(chosen, x.shape[:-3])
    offsets = np.argmax(chosen, axis=1)
    return out, images_first(_flat_index(offsets, grid, w), x.shape[:-3])


def pooled_maxima(
    x: Array, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool
) -> tuple[Windows, Array, list[Array], Array]:
    """A max pool's windows, its padded images (C, H, W, M; -inf around), each offset's view
    of them and the maxima (C, windows down, across, M), as PyTorch's scan picks them."""
    grid = windows(kernel_size, stride, padding, dilation, x.shape[-2:], ceil_mode)
    lowest = -math.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min  # (integers too)
    images = padded(images_last(x, 3), grid, lowest)
    views = [grid.at(images, i, j) for _, i, j in grid.offsets()]
    best = _maxima(views)
    if (
        x.dtype.kind == "f" and _has_negative_zero(x) and (best == 0).any()
    ):  # a tie of -0.0 and +0.0, maybe
        best = _scanned(views)
    return grid, images, views, best


def _has_negative_zero(x: Array) -> bool:
    """Whether ``x`` holds a -0.0 (its bits: the sign bit alone)."""
    bits = np.dtype(f"i{x.dtype.itemsize}")
    return bool((x.view(bits) == np.iinfo(bits).min).any())


def _maxima(views: list[Array]) -> Array:
    """The elementwise maximum of the windows' pixels, nan where any is nan: PyTorch's pick
    exactly, since equal numbers are the same number, except at a tie of -0.0 and +0.0,
    which np.maximum may break either way."""
    best = views[0].copy()
    for view in views[1:]:
        np.maximum(best, view, out=best)
    return best


def _scanned(views: list[Array]) -> Array:
    """PyTorch's scan itself: an element greater than the best so far, or a nan, is the best."""
    best = np.full(views[0].shape, -math.inf, views[0].dtype)
    for view in views:
        best = np.where((view > best) | np.isnan(view), view, best)
    return best


def chosen_pixels(views: list[Array], best: Array, grid: Windows) -> Array:
    """Which pixel each window picked, (C, kh·kw, windows down, across, M), True there: the
    first element equal to the maximum; the last nan; where all are -inf, the first pixel
    inside the image (the padding is -inf too)."""
    c, oh, ow, m = best.shape
    chosen = np.empty((c, len(views), oh, ow, m), bool)
    taken = np.zeros(best.shape, bool)
    for k, view in enumerate(views):
        hit = view == best
        np.greater(hit, taken, out=chosen[:, k])  # hit and not taken
        taken |= hit
    nan = np.isnan(best)
    if nan.any():  # the last nan of each window where there is one
        taken = ~nan
        for k in range(len(views) - 1, -1, -1):
            hit = np.isnan(views[k])
            chosen[:, k] = np.where(nan, hit > taken, chosen[:, k])
            taken |= hit
    lowest = best == -math.inf
    if lowest.any():
        first = _first_inside(grid)[:, :, None]
        for k in range(len(views)):
            chosen[:, k] = np.where(lowest, first == k, chosen[:, k])
    return chosen


def pick_columns(chosen: Array, lead: tuple[int, ...]) -> Array:
    """``chosen_pixels``' picks as unfold lays out its windows: (*lead, C·kh·kw, windows)."""
    c, k, oh, ow, m = chosen.shape
    return images_first(chosen.reshape((c * k, oh * ow, m)), lead)


def _first_inside(grid: Windows) -> Array:
    """The offset of each window's first pixel inside the image (not in its padding): what
    PyTorch picks where no element beats -inf. (windows down, across)"""
    firsts = []
    for count, step, pad, spacing in zip(grid.counts, grid.stride, grid.padding, grid.dilation):
        starts = np.arange(count) * step - pad
        firsts.append(np.where(starts < 0, -(starts // spacing), 0))  # ceil(-start / spacing)
    return firsts[0][:, None] * grid.kernel[1] + firsts[1][None, :]


def _flat_index(offset: Array, grid: Windows, width: int) -> Array:
    """PyTorch's index h·W + w of the pixel at each window's offset."""
    (sh, sw), (ph, pw), (dh, dw), (oh, ow) = grid.stride, grid.padding, grid.dilation, grid.counts
    rows = (np.arange(oh) * sh - ph)[:, None, None] + (offset // grid.kernel[1]) * dh
    cols = (np.arange(ow) * sw - pw)[:, None] + (offset % grid.kernel[1]) * dw
    return np.asarray(rows * width + cols, dtype=np.int64)


def _divisors(grid: Windows, size: Pair, count_include_pad: bool, override: int | None) -> Array:
    """What each window's sum is divided by, (windows down, across), as PyTorch's: the
    override; else the window's size inside the padded image (count_include_pad), or inside
    the image alone; 1 for a window of no pixel (its mean is 0)."""
    if override is not None:
        return np.full(grid.counts, float(override))
    spans = []
    for n, count, k, s, p in zip(size, grid.counts, grid.kernel, grid.stride, grid.padding):
        start = np.arange(count) * s - p
        end = np.minimum(start + k, n + p)
        inner = np.minimum(end, n) - np.maximum(start, 0)
        spans.append((end - start) if count_include_pad else inner)
    found = spans[0][:, None] * spans[1][None, :]
    return np.where(found > 0, found, 1).astype(np.float64)


def avg_pool2d(
    x: Array,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Array:
    """The mean of each window, as torch.nn.functional.avg_pool2d: its sum, added in PyTorch's
    order (row by row), over the divisor."""
    size = (x.shape[-2], x.shape[-1])
    grid = windows(kernel_size, stride, padding, 1, size, ceil_mode)
    images = padded(images_last(x, 3), grid, 0.0)
    total = np.zeros((images.shape[0], *grid.counts, images.shape[-1]), x.dtype)
    for _, i, j in grid.offsets():
        total += grid.at(images, i, j)
    divisors = _divisors(grid, size, count_include_pad, divisor_override).astype(x.dtype)
    return images_first(total / divisors[:, :, None], x.shape[:-3])


def avg_pool2d_backward(
    grad_output: Array,
    x: Array,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Array:
    """avg_pool2d's gradient in x's shape: each window's grad / divisor added to its pixels,
    window after window, as PyTorch's avg_pool2d_backward (so, offsets from the last)."""
    size = (x.shape[-2], x.shape[-1])
    grid = windows(kernel_size, stride, padding, 1, size, ceil_mode)
    divisors = _divisors(grid, size, count_include_pad, divisor_override)
    share = images_last(grad_output, 3) / divisors.astype(grad_output.dtype)[:, :, None]
    canvas = np.zeros((share.shape[0], *grid.canvas(size), share.shape[-1]), grad_output.dtype)
    for _, i, j in reversed(list(grid.offsets())):
        spot = grid.at(canvas, i, j)
        spot += share
    (ph, pw), lead = grid.padding, grad_output.shape[:-3]
    return images_first(canvas[:, ph : ph + size[0], pw : pw + size[1]], lead)
