"""Neural-network modules on scalar Values, compatible with micrograd's ``nn``.

``MLP(nin, nouts)``: ReLU hidden layers and a linear output, weights uniform(-1, 1), biases 0,
``parameters()`` layer by layer, neuron by neuron, weights then bias, and a call returns a
single Value when the last layer has one output: code written for micrograd runs unchanged.
Each neuron is one fused ``affine`` node (w . x + b) instead of a chain of 2n nodes.

>>> import topograd as tg
>>> model = tg.nn.MLP(2, [4, 1], seed=0)
>>> len(model.parameters()), model([1.0, -2.0]).op
(17, 'affine')
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..value import Real, Value, affine, as_values

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


class Module:
    """Something with parameters: ``parameters()``, ``zero_grad()``, and its state."""

    def named_parameters(self) -> Iterator[tuple[str, Value]]:
        yield from ()

    def parameters(self) -> list[Value]:
        return [p for _, p in self.named_parameters()]

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = 0.0

    def state_dict(self) -> dict[str, float]:
        """Every parameter's value by name, e.g. ``layers.0.neurons.3.w.1``."""
        return {name: p.data for name, p in self.named_parameters()}

    def load_state_dict(self, state: Mapping[str, object]) -> None:
        """Set every parameter from ``state``; all of it is checked before anything changes."""
        names = dict(self.named_parameters())
        missing = [n for n in names if n not in state]
        unexpected = [n for n in state if n not in names]
        if missing or unexpected:
            raise ValueError(
                f"the state does not fit this {type(self).__name__}: "
                + "; ".join(
                    f"{what} {', '.join(keys[:3])}{' ...' if len(keys) > 3 else ''}"
                    for what, keys in (("missing", missing), ("unexpected", unexpected))
                    if keys
                )
            )
        values = {name: _number(name, state[name]) for name in names}
        for name, p in names.items():
            p.data = values[name]

    def save(self, path: str | Path) -> None:
        """Write the state as JSON: readable, exact to the last bit, never pickle."""
        state = {k: v if math.isfinite(v) else repr(v) for k, v in self.state_dict().items()}
        document = {"format": FORMAT, "model": repr(self), "state": state}
        Path(path).write_text(json.dumps(document, indent=1) + "\n")

    def load(self, path: str | Path) -> None:
        """Read a state written by ``save``; a file of the wrong shape or a corrupt one is
        refused with the reason, and the model is left as it was."""
        try:
            document = json.loads(Path(path).read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{path} is not a topograd state file: {error}") from None
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ValueError(f'{path} is not a topograd state file (no "format": "{FORMAT}")')
        state = document.get("state")
        if not isinstance(state, dict):
            raise ValueError(f'{path} has no "state" object')
        self.load_state_dict(state)


FORMAT = "topograd.state/1"
_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _number(name: str, value: object) -> float:
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the value of {name} must be a number, got {value!r}")
    return float(value)


class Neuron(Module):
    """act = w . x + b, then ReLU unless ``nonlin=False``."""

    def __init__(self, nin: int, nonlin: bool = True, seed: Seed = None) -> None:
        uniform = _uniform(seed).uniform
        self.w = [Value(uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x: Sequence[Value | Real]) -> Value:
        act = affine(self.w, x, self.b)
        return act.relu() if self.nonlin else act

    def named_parameters(self) -> Iterator[tuple[str, Value]]:
        for i, w in enumerate(self.w):
            yield f"w.{i}", w
        yield "b", self.b

    def __repr__(self) -> str:
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons on the same inputs; one output is returned as a Value, not a list."""

    def __init__(self, nin: int, nout: int, **kwargs: Any) -> None:
        if kwargs.get("seed") is not None:  # one source for the layer, so that neurons differ
            kwargs["seed"] = _uniform(kwargs["seed"])
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x: Sequence[Value | Real]) -> Value | list[Value]:
        inputs = as_values(x, "Layer")  # numbers become constants once, not once per neuron
        out = [n(inputs) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def named_parameters(self) -> Iterator[tuple[str, Value]]:
        for i, neuron in enumerate(self.neurons):
            for name, p in neuron.named_parameters():
                yield f"neurons.{i}.{name}", p

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

    def __call__(self, x: Sequence[Value | Real]) -> Value | list[Value]:
        out: Value | list[Value] = list(x)  # type: ignore[arg-type]
        for layer in self.layers:
            out = layer(out if isinstance(out, list) else [out])
        return out

    def named_parameters(self) -> Iterator[tuple[str, Value]]:
        for i, layer in enumerate(self.layers):
            for name, p in layer.named_parameters():
                yield f"layers.{i}.{name}", p

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
