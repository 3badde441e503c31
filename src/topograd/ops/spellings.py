"""PyTorch's functions of a Tensor that are its methods, by name: ``torch.tril(x, 1)`` is
``x.tril(1)``. Kept apart from the Tensor kind (standard library only), so that the package
can tell its names without importing NumPy; ``tensors/functions.py`` makes each a function.

>>> AS_FUNCTIONS["tril"], AS_FUNCTIONS["matmul"]
('tril', '__matmul__')
"""

from __future__ import annotations

# the name as a function -> the method's name
AS_FUNCTIONS = {
    **{
        name: name
        for name in [
            "all",
            "amax",
            "amin",
            "any",
            "argmax",
            "argmin",
            "chunk",
            "clamp",
            "clip",
            "clone",
            "cumsum",
            "diagonal",
            "flatten",
            "flip",
            "gather",
            "log_softmax",
            "logsumexp",
            "masked_fill",
            "max",
            "mean",
            "min",
            "numel",
            "permute",
            "pow",
            "prod",
            "reshape",
            "roll",
            "softmax",
            "split",
            "squeeze",
            "std",
            "t",
            "transpose",
            "tril",
            "triu",
            "unsqueeze",
            "var",
        ]
    },
    "matmul": "__matmul__",
    "mm": "__matmul__",
    "bmm": "__matmul__",
}
