"""One engine's side of the nn race, run in a fresh process by ``nn_race.py``.

micrograd's demo step, MLP(2, [16, 16, 1]) on 100 moons points, hinge loss + 1e-4 * L2, forward
+ backward + SGD update with the learning rate 1.0 -> 0.1, written the way each engine is used:

  micrograd  its demo notebook's code and its own nn.MLP;
  topograd   tg.nn.MLP (fused dot per neuron), tg.nn.hinge, tg.nn.l2, tg.optim.SGD;
  plain      tg.nn.MLP with micrograd's notebook code for the rest, as a micrograd user
             writes it: the loss in plain Python (sum() of (1 + -y*s).relu() terms,
             1e-4 * sum(p*p for p in params)), the update by hand;
  hand       plain Python floats: the forward and the backward written out by hand, no graph;
  compiled   topograd's step, the whole of it (loss, backward, SGD, schedule) by tg.compile;
  compiled-plain  plain's loss by tg.compile, the notebook's update by hand outside it.

All three start from micrograd's weights (random.seed(1337)), copied. Prints JSON: the loss
of every step and the seconds each took.

    python benchmarks/nn_step.py topograd --steps 20
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections.abc import Callable
from typing import Any

from demo_step import moons

SIZES = [2, 16, 16, 1]
COMPILED = ["compiled", "compiled-plain"]
ALPHA = 1e-4


def micrograd_weights() -> list[float]:
    from micrograd.nn import MLP

    random.seed(1337)
    return [p.data for p in MLP(2, SIZES[1:]).parameters()]


def micrograd_steps(xs: list[list[float]], ys: list[float]) -> Callable[[int], float]:
    from micrograd.engine import Value
    from micrograd.nn import MLP

    random.seed(1337)
    return notebook_steps(Value, MLP(2, SIZES[1:]), xs, ys)


def plain_steps(xs: list[list[float]], ys: list[float]) -> Callable[[int], float]:
    import topograd as tg

    random.seed(1337)
    return notebook_steps(tg.Value, tg.nn.MLP(2, SIZES[1:]), xs, ys)


def notebook_steps(
    value: Any, model: Any, xs: list[list[float]], ys: list[float]
) -> Callable[[int], float]:
    """micrograd's demo notebook, line for line, on the given Value class and model."""
    Value = value  # noqa: N806 - the notebook's name

    def step(k: int) -> float:
        inputs = [list(map(Value, xrow)) for xrow in xs]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(ys, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        reg_loss = ALPHA * sum(p * p for p in model.parameters())
        total_loss = data_loss + reg_loss
        model.zero_grad()
        total_loss.backward()
        learning_rate = 1.0 - 0.9 * k / 100
        for p in model.parameters():
            p.data -= learning_rate * p.grad
        return float(total_loss.data)

    return step


def topograd_steps(
    xs: list[list[float]], ys: list[float], compiled: bool = False
) -> Callable[[int], float]:
    """tg.nn's step; ``compiled``: the whole of it by tg.compile (its first call traces it, and
    steps; the others run the generated code, which calls zero_grad, the SGD step and the
    schedule around its backward pass)."""
    import topograd as tg

    model = tg.nn.MLP(2, SIZES[1:])
    for p, w in zip(model.parameters(), micrograd_weights(), strict=True):
        p.data = w
    optimizer = tg.optim.SGD(model.parameters(), lr=1.0)
    schedule = tg.optim.LinearDecay(optimizer, start=1.0, end=0.1, steps=100)
    labels = [int(y) for y in ys]

    def step(model: Any) -> Any:
        scores = [model(x) for x in xs]
        loss = tg.nn.hinge(scores, labels) + ALPHA * tg.nn.l2(model.parameters())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        return loss.data

    run = tg.compile(step) if compiled else step
    return lambda k: run(model)  # type: ignore[no-any-return]


def compiled_steps(xs: list[list[float]], ys: list[float]) -> Callable[[int], float]:
    return topograd_steps(xs, ys, compiled=True)


def compiled_plain_steps(xs: list[list[float]], ys: list[float]) -> Callable[[int], float]:
    """The notebook's loss compiled (tg.compile fills .grad as backward does); the notebook's
    own update by hand, outside the compiled function."""
    import topograd as tg

    random.seed(1337)
    model = tg.nn.MLP(2, SIZES[1:])
    value = tg.Value

    @tg.compile
    def loss(model: Any) -> Any:
        inputs = [list(map(value, xrow)) for xrow in xs]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(ys, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        return data_loss + ALPHA * sum(p * p for p in model.parameters())

    def step(k: int) -> float:
        model.zero_grad()
        total = loss(model)
        learning_rate = 1.0 - 0.9 * k / 100
        for p in model.parameters():
            p.data -= learning_rate * p.grad
        return float(total)

    return step


def hand_steps(xs: list[list[float]], ys: list[float]) -> Callable[[int], float]:
    """The same step with no graph: activations kept by hand, gradients by the chain rule."""
    flat = micrograd_weights()
    layers: list[list[list[float]]] = []  # per layer, per neuron: weights then bias
    at = 0
    for nin, nout in itertools.pairwise(SIZES):
        layers.append([flat[at + j * (nin + 1) : at + (j + 1) * (nin + 1)] for j in range(nout)])
        at += nout * (nin + 1)

    def step(k: int) -> float:
        grads = [[[0.0] * len(neuron) for neuron in layer] for layer in layers]
        data_loss = 0.0
        for x, y in zip(xs, ys):
            acts = [x]
            for depth, layer in enumerate(layers):
                last = depth == len(layers) - 1
                out = []
                for neuron in layer:
                    a = neuron[-1] + sum(w * v for w, v in zip(neuron, acts[-1]))
                    out.append(a if last or a > 0 else 0.0)
                acts.append(out)
            margin = 1 - y * acts[-1][0]
            if margin <= 0:
                continue
            data_loss += margin
            upstream = [-y / len(xs)]
            for depth in range(len(layers) - 1, -1, -1):
                below = acts[depth]
                back = [0.0] * len(below)
                for j, neuron in enumerate(layers[depth]):
                    g = upstream[j]
                    if depth < len(layers) - 1 and acts[depth + 1][j] <= 0:
                        continue
                    row = grads[depth][j]
                    for i, v in enumerate(below):
                        row[i] += g * v
                        back[i] += g * neuron[i]
                    row[-1] += g
                upstream = back
        reg = sum(p * p for layer in layers for neuron in layer for p in neuron)
        lr = 1.0 - 0.9 * k / 100
        for layer, layer_grads in zip(layers, grads):
            for neuron, row in zip(layer, layer_grads):
                for i, g in enumerate(row):
                    neuron[i] -= lr * (g + 2 * ALPHA * neuron[i])
        return data_loss / len(xs) + ALPHA * reg

    return step


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("engine", choices=["micrograd", "topograd", "plain", "hand", *COMPILED])
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    xs, ys = moons(100, 0.1, 1337)
    makers = {
        "micrograd": micrograd_steps,
        "topograd": topograd_steps,
        "plain": plain_steps,
        "hand": hand_steps,
        "compiled": compiled_steps,
        "compiled-plain": compiled_plain_steps,
    }
    step = makers[args.engine](xs, ys)
    losses, seconds = [], []
    for k in range(args.steps):
        start = time.perf_counter()
        losses.append(step(k))
        seconds.append(time.perf_counter() - start)
    result: dict[str, Any] = {"losses": losses, "seconds": seconds}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
