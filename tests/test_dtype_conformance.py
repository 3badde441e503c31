"""Every Tensor op of the registry on integer and boolean Tensors, against PyTorch 2.13,
generated from the registry: a new op is covered as it is added. Each op's cases (or, for an
op applied element by element, Tensors of shape (2, 3)) are run with every input of int64,
int32, uint8 and bool (and float16 for the ops applied element by element), and for an op of
several Tensors with mixed integer and float inputs, on numbers of the op's domain (integers
within it). Both libraries answer alike: both refuse, with the same kind of error (and
PyTorch's words, where they are a user's message rather than a kernel's name), or both give a
Tensor of one dtype and shape, its integers and booleans equal, its floats within a few units
in the last place of PyTorch's or no further from a float64 reference than PyTorch's is. Where
topograd deliberately answers otherwise, ``DIFFERENCES`` says why, and a test pins that it
still differs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from conformance import _torch_function, call_torch

import topograd as tg
from topograd.autograd.registry import AWAY_FROM_ZERO, OPS, Given, Op

WHOLE = ("int64", "int32", "uint8", "bool")
MIXED = (("int64", "float32"), ("float32", "int32"), ("bool", "float32"), ("uint8", "int64"))
ULPS = 4

# Registry ops this file leaves out, and why.
EXCLUDED = {
    "one_hot": "the registry's one_hot is the boolean mask inside cross_entropy's rule (it is "
    "subtracted from logits of any float dtype); the public tg.nn.functional.one_hot is "
    "PyTorch's, int64 and refusing other dtypes, and test_public_one_hot_is_pytorchs checks it",
}

# (op, input dtypes) where topograd deliberately answers otherwise, and why. ``pinned``: the
# difference shows on every CPU, and test_the_documented_differences_still_differ asserts it.
CONV_DILATED = (
    "PyTorch's dilated convolution (slow_conv_dilated) has no kernel for int32, uint8 and bool, "
    "its undilated one has, and so has its dilated one for int64; topograd computes every "
    "integer convolution alike (and refuses mixed dtypes in its own words before)",
    True,
)
EINSUM = (
    "PyTorch's einsum takes integers and booleans along its own paths: a letter of length 1 "
    "in one operand is summed first (PyTorch's sum: int64), then met by bmm, which refuses the "
    "mix (int32 with int64) or gives int64; mixed dtypes are promoted where its path "
    "multiplies and refused where it calls bmm. topograd keeps the operands' dtype, sums a "
    "lone operand as int64, refuses booleans summed between operands, and mixed dtypes as "
    "its matmul does",
    True,
)
WINDOWS_OF_BOOLS = (
    "PyTorch's im2col and col2im copy booleans (not integers); topograd's unfold and fold "
    "take floats only",
    True,
)
INTERNAL = (
    "an op of second-order rules (PyTorch's aten backward kernel): PyTorch's answer to "
    "operands of two dtypes depends on its oneDNN path and CPU; topograd's rules give it "
    "operands of one float dtype",
    False,
)
DIFFERENCES: dict[tuple[str, tuple[str, ...]], tuple[str, bool]] = {
    ("avg_pool2d", ("int64",)): (
        "PyTorch's avg_pool2d of int64 divides the window's sum in integers (truncated); "
        "topograd's takes floats, as PyTorch's does for every other integer dtype",
        True,
    ),
    ("avg_pool2d_backward", ("int64", "int64")): (INTERNAL[0], True),
    ("avg_pool2d_backward", ("int64", "float32")): INTERNAL,
    ("avg_pool2d_backward", ("float32", "int32")): INTERNAL,
    ("gelu_backward", ("int64", "float32")): INTERNAL,
    ("gelu_backward", ("bool", "float32")): INTERNAL,
    ("gelu_tanh_backward", ("int64", "float32")): INTERNAL,
    ("gelu_tanh_backward", ("bool", "float32")): INTERNAL,
    ("conv2d", ("int32", "int32", "int32")): CONV_DILATED,
    ("conv2d", ("uint8", "uint8", "uint8")): CONV_DILATED,
    ("conv2d", ("bool", "float32", "float32")): CONV_DILATED,
    ("conv2d", ("uint8", "int64", "int64")): CONV_DILATED,
    ("matmul", ("bool", "float32")): (
        "PyTorch refuses booleans met by floats in its words for the bmm kernel where the "
        "operands have batch axes, in its words for mixed dtypes otherwise; topograd refuses "
        "mixed dtypes first, always",
        True,
    ),
    ("fold", ("bool",)): WINDOWS_OF_BOOLS,
    ("unfold", ("bool",)): WINDOWS_OF_BOOLS,
    **{
        ("einsum", dtypes): EINSUM
        for dtypes in [("int32", "int32"), ("uint8", "uint8"), ("bool", "bool"), *MIXED]
    },
}
# Ops that refuse operands of two dtypes in topograd's own words ("expected both operands to
# have the same dtype ..."), where PyTorch's words name its kernels' operands (m1, mat2, bias)
OWN_WORDS = {"matmul", "linear", "conv2d", "einsum", "avg_pool2d_backward"}


def drawn_count(op: Op) -> int:
    return sum(not isinstance(s, Given) for s in _specs(op)[0][0]) or 1


def _specs(op: Op) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    if op.cases:
        return [(tuple(c.inputs), dict(c.params)) for c in op.cases]
    return [(((2, 3),) * op.arity, {})]


def combos(op: Op) -> list[tuple[str, ...]]:
    """The dtypes of the op's drawn inputs: each dtype for all, and mixes of two."""
    n = drawn_count(op)
    found = [(name,) * n for name in (*WHOLE, *(("float16",) if op.elementwise else ()))]
    if n > 1:
        found += [mix + (mix[-1],) * (n - 2) for mix in MIXED]
    return found


def compared_ops() -> list[str]:
    return sorted(
        name
        for name, op in OPS.items()
        if not op.custom and "tensor" in op.kinds and op.torch and name not in EXCLUDED
    )


PARAMS = [(name, dtypes) for name in compared_ops() for dtypes in combos(OPS[name])]


def numbers(interval: tuple[float, float], shape: Any, name: str, rng: Any) -> np.ndarray:
    """Numbers of the op's domain in this dtype: integers within it (the nearest to its middle
    where it holds none, 0 for acos's), booleans, or floats."""
    if name == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    low, high = interval
    if name.startswith("float"):
        x = rng.uniform(low, high, shape)
        signs = rng.choice([-1.0, 1.0], shape) if interval == AWAY_FROM_ZERO else 1.0
        return np.asarray(x * signs).astype(name)
    a, b = (1 if interval == AWAY_FROM_ZERO else math.ceil(low)), math.floor(high)
    a = max(a, 0) if name == "uint8" else a
    if a > b:
        a = b = max(round((low + high) / 2), 0)
    x = rng.integers(a, b + 1, shape)
    if interval == AWAY_FROM_ZERO and name != "uint8":
        x = x * rng.choice([-1, 1], shape)
    return x.astype(name)


def calls(op: Op, dtypes: tuple[str, ...]) -> list[tuple[str, list[np.ndarray], dict[str, Any]]]:
    """Each case of the op: its inputs (drawn in ``dtypes``, or given) and its parameters."""
    rng, found = np.random.default_rng(len(op.name)), []
    for number, (specs, params) in enumerate(_specs(op)):
        drawn, arrays = iter(dtypes), []
        domain = op.domain or ((-3.0, 3.0),) * len(specs)
        for spec, interval in zip(specs, domain):
            if isinstance(spec, Given):
                arrays.append(np.asarray(spec.value))
            else:
                arrays.append(numbers(interval, spec, next(drawn, dtypes[-1]), rng))
        found.append((f"case {number} {params}", arrays, params))
    return found


def outcome(call: Any) -> Any:
    try:
        return call()
    except Exception as error:
        return error


def torch_call(op: Op, arrays: list[np.ndarray], params: dict[str, Any], cast: Any = None) -> Any:
    args = [torch.from_numpy(a.copy()) for a in arrays]
    if cast is not None:
        args = [
            a.to(cast) if not (a.dtype == torch.bool and op.name == "where") else a for a in args
        ]
    return call_torch(op, args, params) if op.cases else _torch_function(op)(*args)


def disagreement(op: Op, arrays: list[np.ndarray], params: dict[str, Any]) -> str | None:
    """What differs between topograd's answer and PyTorch's (None: nothing)."""
    ours = outcome(lambda: op(*[tg.from_numpy(a.copy()) for a in arrays], **params))
    theirs = outcome(lambda: torch_call(op, arrays, params))
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        return refusals(op, ours, theirs)
    dtype = str(theirs.dtype).removeprefix("torch.")
    if ours.dtype.name != dtype or tuple(ours.shape) != tuple(theirs.shape):
        return f"{ours.dtype.name}{tuple(ours.shape)}, PyTorch's {dtype}{tuple(theirs.shape)}"
    mine, expected = ours.numpy(), theirs.numpy()
    if not theirs.dtype.is_floating_point:
        return None if np.array_equal(mine, expected) else f"{mine} != PyTorch's {expected}"
    reference = outcome(lambda: torch_call(op, arrays, params, torch.float64))
    if floats_agree(mine, expected, reference):
        return None
    return f"{mine} not within {ULPS} ulps of PyTorch's {expected}"


def refusals(op: Op, ours: Any, theirs: Any) -> str | None:
    """Both refuse, ours of PyTorch's kind (NotImplementedError, RuntimeError, ...), and in
    PyTorch's words: a kernel's refusal by what follows its name ("not implemented for
    'Long'", which topograd may follow with why), a user's message whole."""
    if not (isinstance(theirs, Exception) and isinstance(ours, Exception)):
        return f"topograd: {ours!r:.200}; PyTorch: {theirs!r:.200}"
    if not isinstance(ours, type(theirs)):
        return f"topograd refuses with {ours!r}, PyTorch with {theirs!r}"
    if isinstance(theirs, NotImplementedError):
        words = str(theirs).partition('" ')[2]
        return None if str(ours).partition('" ')[2].startswith(words) else f"{ours} / {theirs}"
    if op.name in OWN_WORDS or str(ours) == str(theirs):
        return None
    return f"topograd says {str(ours)!r}, PyTorch {str(theirs)!r}"


def floats_agree(mine: np.ndarray, expected: np.ndarray, reference: Any) -> bool:
    """Within ``ULPS`` of PyTorch's, element by element (nan with nan, infinities equal), or
    no further from the float64 reference than PyTorch's is, give or take one unit."""
    ulp = np.spacing(np.abs(expected)).astype(np.float64)
    a, b = mine.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore"):  # (inf - inf: equal already)
        near = np.isnan(a) & np.isnan(b) | (a == b) | (np.abs(a - b) <= ULPS * ulp)
        if near.all() or not isinstance(reference, torch.Tensor):
            return bool(near.all())
        truth = reference.numpy()
        return bool((near | (np.abs(a - truth) <= np.abs(b - truth) + ulp)).all())


@pytest.mark.parametrize(("name", "dtypes"), PARAMS)
def test_an_op_on_integers_and_booleans_is_pytorchs(name: str, dtypes: tuple[str, ...]) -> None:
    op = OPS[name]
    found = [(c, disagreement(op, a, p)) for c, a, p in calls(op, dtypes)]
    wrong = [f"{case}: {why}" for case, why in found if why is not None]
    if (name, dtypes) in DIFFERENCES:
        return  # (test_the_documented_differences_still_differ pins them)
    assert not wrong, f"{name} on {dtypes}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("key", sorted(DIFFERENCES))
def test_the_documented_differences_still_differ(key: tuple[str, tuple[str, ...]]) -> None:
    name, dtypes = key
    assert name in OPS and dtypes in combos(OPS[name]), key
    if DIFFERENCES[key][1]:
        op = OPS[name]
        assert any(disagreement(op, a, p) for _, a, p in calls(op, dtypes)), key


def test_every_tensor_op_is_compared_or_excluded_with_a_reason() -> None:
    built_in = {n for n, op in OPS.items() if not op.custom and "tensor" in op.kinds}
    assert built_in == set(compared_ops()) | set(EXCLUDED)
    assert all(OPS[n].torch for n in built_in)
    assert all(len(why) > 40 for why in EXCLUDED.values())


@pytest.mark.parametrize("name", [*WHOLE, "float16", "float32"])
def test_public_one_hot_is_pytorchs(name: str) -> None:
    values = [1, 0, 3] if name != "bool" else [True, False, True]
    found = [
        outcome(
            lambda lib=lib: lib.nn.functional.one_hot(
                lib.tensor(values, dtype=getattr(lib, name)), 4
            )
        )
        for lib in (tg, torch)
    ]
    if isinstance(found[1], Exception):
        assert isinstance(found[0], type(found[1])) and str(found[0]) == str(found[1])
    else:
        assert found[0].dtype.name == str(found[1].dtype).removeprefix("torch.")
        assert np.array_equal(found[0].numpy(), found[1].numpy())
