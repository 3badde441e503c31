"""Neural-network modules on scalar Values, compatible with micrograd's ``nn``.

``MLP(nin, nouts)``: ReLU hidden layers and a linear output, weights uniform(-1, 1), biases 0,
``parameters()`` layer by layer, neuron by neuron, weights then bias, and a call returns a
single Value when the last layer has one output: code written for micrograd runs unchanged.
Each neuron is one fused node instead of a chain of 2n + 1: ``neuron``, relu(w . x + b), or
``affine``, w . x + b, for the linear output.

>>> import topograd as tg
>>> model = tg.nn.MLP(2, [4, 1], seed=0)
>>> len(model.parameters()), model([1.0, -2.0]).op, model.layers[0]([1.0, -2.0])[0].op
(17, 'affine', 'neuron')
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..scalar.functions import neuron, neurons
from ..scalar.value import Real, Value, as_values
from .module import Module

Seed = int | random.Random | None


def _uniform(seed: Seed) -> random.Random | Any:
    """The source of initial weights: a Random, one seeded from an int, or (None) Python's
    global ``random`` module, as micrograd uses."""
    if seed is None:
        return random
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, int) and not isinstance(seed, bool):
        return random.Random(seed)
    raise TypeError(f"seed must be an int, a random.Random or None, got {type(seed).__name__}")


class Neuron(Module):
    """act = w . x + b, then ReLU unless ``nonlin=False``."""

    def __init__(self, nin: int, nonlin: bool = True, seed: Seed = None) -> None:
        uniform = _uniform(seed).uniform
        self.w = [Value(uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def forward(self, x: Sequence[Value | Real]) -> Value:
        """One fused node: ``neuron`` (w . x + b through ReLU), or ``affine`` for a linear one."""
        return neuron(self.w, as_values(x, "Neuron"), self.b, self.nonlin)

    def __repr__(self) -> str:
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons on the same inputs; one output is returned as a Value, not a list."""

    def __init__(self, nin: int, nout: int, **kwargs: Any) -> None:
        if kwargs.get("seed") is not None:  # one source for the layer, so that neurons differ
            kwargs["seed"] = _uniform(kwargs["seed"])
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def forward(self, x: Sequence[Value | Real]) -> Value | list[Value]:
        inputs = as_values(x, "Layer")  # numbers become constants once, not once per neuron
        # one node per neuron, the inputs' numbers read once
        out = neurons([(n.w, n.b, n.nonlin) for n in self.neurons], inputs)
        return out[0] if len(out) == 1 else out

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of sizes ``nin -> nouts[0] -> ... -> nouts[-1]``, ReLU between, linear output."""

    def __init__(self, nin: int, nouts: Sequence[int], seed: Seed = None) -> None:
        source = None if seed is None else _uniform(seed)  # None: the global random, as micrograd
        sizes = [nin, *nouts]
        self.layers = [
            Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1, seed=source)
            for i in range(len(nouts))
        ]

    def forward(self, x: Sequence[Value | Real]) -> Value | list[Value]:
        out: Value | list[Value] = list(x)  # type: ignore[arg-type]
        for layer in self.layers:
            out = layer(out if isinstance(out, list) else [out])
        return out

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
