"""The Python overhead of a Tensor training step, held by a count that does not move with the
machine: the Python function calls of one step of benchmarks/tensor_step.py's MLP (784-256-10,
ReLU, batch 128, float32, cross-entropy, SGD), counted by ``sys.setprofile``.

Every op of a step pays its calls (``Op.__call__``, dispatch, the Tensor kind's apply, the
kernel, ``make``), and so does every rule in the backward and every parameter in the step of
the optimizer: a call more on that path shows here as 4, 8 or 16 more. The budget is a little
above what the step needs now (see docs/performance.md, "The Tensor step"): a change that needs
more must say why, and raise it.
"""

from __future__ import annotations

import gc
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

BUDGET = 212  # Python calls of one step, NumPy's own Python functions included (204 now)


def benchmarked_step() -> Callable[[], float]:
    """benchmarks/tensor_step.py's own topograd step (its data, weights and optimizer)."""
    path = Path(__file__).parent.parent / "benchmarks" / "tensor_step.py"
    spec = importlib.util.spec_from_file_location("tensor_step", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    step: Callable[[], float] = module.topograd_step()
    return step


def python_calls(f: Callable[[], Any]) -> list[str]:
    """Each Python function that ``f()`` calls, once per call (C functions are not counted)."""
    calls: list[str] = []

    def seen(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            calls.append(f"{code.co_filename}:{code.co_firstlineno} {code.co_name}")

    gc.collect()  # (earlier tests' garbage, whose finalizers would run inside the step)
    gc.disable()
    sys.setprofile(seen)
    try:
        f()
    finally:
        sys.setprofile(None)
        gc.enable()
    return calls[1:]  # (f itself)


def test_a_tensor_training_step_stays_within_its_budget_of_python_calls() -> None:
    step = benchmarked_step()
    losses = [step() for _ in range(3)]  # warmed up: kernels looked up, kinds found
    assert losses[-1] < losses[0]  # (it trains)
    calls = python_calls(step)
    assert len(calls) == len(python_calls(step))  # deterministic, step after step
    shown = "\n".join(sorted(set(calls), key=calls.count, reverse=True)[:25])
    assert len(calls) <= BUDGET, (
        f"{len(calls)} Python calls, over {BUDGET}; the most called:\n{shown}"
    )
