"""Random numbers written in place into a Tensor, as PyTorch's methods: ``uniform_``,
``normal_``, ``random_``, ``bernoulli_``, ``exponential_``, ``geometric_``, ``cauchy_``,
``log_normal_``. Each draws PyTorch's numbers for the same generator (``tg.manual_seed``'s
unless ``generator=`` gives one: tensors/random) and counts as a write in place: refused on a
leaf that requires grad outside ``tg.no_grad()``, as PyTorch refuses it.

>>> import topograd as tg
>>> g = tg.Generator().manual_seed(0)
>>> tg.zeros(3, dtype=tg.int64).random_(10, generator=g).tolist()  # PyTorch's numbers
[4, 9, 3]
"""

from __future__ import annotations

from typing import Any, Self

from .inplace import DRAWS, InPlace

_RANDOM_FORMS = "random_() takes (), (to), (from, to) or (from, None), and generator="


class Draws(InPlace):
    """The random methods in place of a Tensor (a mixin over ``InPlace``)."""

    __slots__ = ()

    def _draw(self, name: str, *args: Any, generator: Any) -> Self:
        """The array function ``name`` of tensors/random on this Tensor's numbers."""
        self._allowed(name)
        DRAWS[name](self._writable(name), *args, generator=generator)
        return self._written(name)

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Self:
        """Numbers of N(mean, std²)."""
        return self._draw("normal_", mean, std, generator=generator)

    def uniform_(self, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Self:
        """Numbers drawn evenly from [from_, to) (PyTorch's ``from``)."""
        return self._draw("uniform_", from_, to, generator=generator)

    def random_(self, *bounds: Any, generator: Any = None, **named: Any) -> Self:
        """Whole numbers drawn evenly, of any dtype: ``random_()`` over [0, the dtype's max]
        (floats: [0, 2**digits]; bool: False or True), ``random_(to)`` over [0, to),
        ``random_(from, to)`` over [from, to), ``random_(from, None)`` over [from, the
        dtype's max]. ``to`` and ``from`` may be named (``random_(to=5)``)."""
        if "to" in named:
            bounds = (*bounds, named.pop("to"))
            if "from" in named:
                if len(bounds) != 1:
                    raise TypeError(_RANDOM_FORMS)
                bounds = (named.pop("from"), *bounds)
        if named or len(bounds) > 2 or any(isinstance(b, bool) for b in bounds):
            raise TypeError(_RANDOM_FORMS)
        return self._draw("random_", *bounds, generator=generator)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Self:
        """1 (True) with probability ``p``, else 0: one number, or a float Tensor of
        probabilities broadcast to this one's shape."""
        probabilities = getattr(p, "array", p)
        return self._draw("bernoulli_", probabilities, generator=generator)

    def exponential_(self, lambd: float = 1.0, *, generator: Any = None) -> Self:
        """Numbers of the exponential distribution of rate ``lambd``."""
        return self._draw("exponential_", lambd, generator=generator)

    def geometric_(self, p: float, *, generator: Any = None) -> Self:
        """The number of trials of probability ``p`` up to the first success (any dtype but
        bool)."""
        return self._draw("geometric_", p, generator=generator)

    def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Self:
        """Numbers of the Cauchy distribution of this median and scale."""
        return self._draw("cauchy_", median, sigma, generator=generator)

    def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Self:
        """exp of numbers of N(mean, std²)."""
        return self._draw("log_normal_", mean, std, generator=generator)
