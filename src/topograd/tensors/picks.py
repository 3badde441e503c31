"""A max pool's forward, keeping what its rule needs (``Op.keeps``): the padded images and
the maxima, so that an ordinary backward sends each window's gradient to the pixel it picked
without pooling again, without folding a mask of its picks and without spreading the
gradient over the windows first.

Where the windows lie apart (a stride at least the kernel, no dilation) every pixel is in one
window at most: the gradient is written offset by offset onto zeros, each window's value
kept at its pick by the bits (``kernels.where``'s selection), as ``0.0 + grad``, which is what
the rule's fold adds there (a -0.0 comes out +0.0, as PyTorch's). Elsewhere, for integers or
for a batch of gradients, ``Picks.gradient`` gives None and the rule folds the kept picks
(``Picks.columns``), as it folded those it pooled again for before.

>>> import numpy as np
>>> x = np.array([[[[1.0, 3.0], [2.0, -0.0]]]])
>>> out, kept = max_pool2d_kept(x, 2)
>>> out.tolist(), kept.gradient(np.array([[[[-0.0]]]])).tolist()
([[[[3.0]]]], [[[[0.0, 0.0], [0.0, 0.0]]]])
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .kernels import BITS
from .windows import (
    Windows,
    chosen_pixels,
    images_first,
    images_last,
    max_pool2d,
    pick_columns,
    pooled_maxima,
)

Array = np.ndarray[Any, Any]

_BITS = {**BITS, np.dtype(np.float16): np.int16}  # (kernels' selection leaves float16 to NumPy)


class Picks(NamedTuple):
    """What a max pool's forward knew: its windows, the padded images (C, H, W, M), the
    maxima (C, windows down, across, M) and the input's shape."""

    grid: Windows
    images: Array
    best: Array
    shape: tuple[int, ...]

    def gradient(self, grad: Any) -> Array | None:
        """``grad`` (the output's shape) at the pixel each window picked, +0.0 elsewhere, in
        the input's shape; None where the rule must fold (see the module's docstring)."""
        grid = self.grid
        apart = all(s >= k for s, k in zip(grid.stride, grid.kernel, strict=True))
        if not apart or grid.dilation != (1, 1) or type(grad) is not np.ndarray:
            return None
        bits = _BITS.get(grad.dtype)
        if bits is None or grad.dtype != self.best.dtype or grad.ndim != len(self.shape):
            return None
        share = images_last(grad, 3)
        if share.shape != self.best.shape:
            return None
        share = (share + 0.0).view(bits)  # as the fold adds it onto zeros
        chosen = self.chosen()
        canvas = np.zeros(self.images.shape, grad.dtype)
        for k, i, j in grid.offsets():
            kept = np.negative(chosen[:, k], dtype=bits)  # every bit set at the pick
            np.bitwise_and(share, kept, out=grid.at(canvas.view(bits), i, j))
        (ph, pw), (h, w) = grid.padding, self.shape[-2:]
        return images_first(canvas[:, ph : ph + h, pw : pw + w], self.shape[:-3])

    def chosen(self) -> Array:
        """Which pixel each window picked, (C, kh·kw, windows down, across, M), True there."""
        views = [self.grid.at(self.images, i, j) for _, i, j in self.grid.offsets()]
        return chosen_pixels(views, self.best, self.grid)

    def columns(self) -> Array:
        """The picks as ``max_pool2d(..., picks=True)`` gives them, for the rule's fold."""
        return pick_columns(self.chosen(), self.shape[:-3])


def max_pool2d_kept(
    x: Array,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    picks: bool = False,
) -> tuple[Any, Picks | None]:
    """torch.nn.functional.max_pool2d's value (``windows.max_pool2d``'s), and its ``Picks``;
    with ``picks`` (the rule's fold asks), ``windows.max_pool2d``'s value and picks, and None."""
    if picks:
        found = max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode, picks=True)
        return found, None
    grid, images, _, best = pooled_maxima(x, kernel_size, stride, padding, dilation, ceil_mode)
    return images_first(best, x.shape[:-3]), Picks(grid, images, best, tuple(x.shape))
