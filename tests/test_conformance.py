"""The conformance suite: every op of the registry on both kinds against PyTorch 2.13 float64,
generated from the registry (see ``conformance.py``): at random points of each op's domain, at
its special points and at the edges of the floats, for upstream gradients 1, -1, ±0, ±inf,
nan, 1e-310 and 1e308, first and second order. Equal to the bit (the sign of a zero, nan with
nan) where the formulas are PyTorch's, else within 1e-12; where topograd deliberately differs,
the op's registry entry says so (``Op.differs``, listed in docs/ops.md) and a test below pins
each difference on both sides."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from conformance import (
    UPSTREAMS,
    close,
    differentiable,
    differs_as_documented,
    documents,
    elementwise,
    in_scope,
    op_kinds,
    results,
    topograd_side,
)
from oracle import same

from topograd.autograd.registry import OPS
from topograd.ops.helpers import SUM_OF_ZEROS, SUM_OVERFLOW

DOCUMENTED = [name for name, op in sorted(OPS.items()) if op.differs]


@pytest.mark.parametrize(("name", "kind"), op_kinds())
def test_op_equals_pytorch_everywhere(name: str, kind: str) -> None:
    compared, wrong = 0, []
    for result in results(OPS[name], kind):
        compared += 1
        if not close(result.ours, result.theirs) and not differs_as_documented(result):
            wrong.append(str(result))
    assert compared > 0
    assert not wrong, f"{len(wrong)} of {compared} differ from PyTorch:\n" + "\n".join(wrong[:20])


def test_every_op_is_compared() -> None:
    compared = {name for name, _ in op_kinds()}
    built_in = {name for name, op in OPS.items() if not op.custom}
    assert built_in - compared == {n for n in built_in if not differentiable(OPS[n])}
    assert all(kinds == len(OPS[n].kinds) for n, kinds in _count(op_kinds()).items())


def _count(pairs: list[tuple[str, str]]) -> dict[str, int]:
    return {name: len(list(group)) for name, group in itertools.groupby(pairs, lambda p: p[0])}


BOTH = sorted(
    name for name, op in OPS.items() if op.elementwise and op.kinds == ("scalar", "tensor")
)


@pytest.mark.parametrize("name", BOTH)
def test_values_and_tensors_agree(name: str) -> None:
    """The same op on a Value and on a 0-d Tensor: the same numbers, to 1e-12 (libm's and
    NumPy's functions may round differently), nan with nan, infinities and zeros' signs."""
    op = OPS[name]
    scalars, tensors = elementwise(op, "scalar"), elementwise(op, "tensor")
    # where the forms differ in PyTorch itself (pow's number and tensor exponents)
    documented = {repr(d.point) for d in op.differs if d.any_kind and not d.anywhere}
    for (point, case, on_values, _), (_, _, on_tensors, _) in zip(scalars, tensors, strict=True):
        if repr(point) in documented:
            continue
        for upstream in UPSTREAMS:
            a, b = topograd_side(on_values)(upstream), topograd_side(on_tensors)(upstream)
            pairs = [(a.value, b.value)]
            pairs += [p for route in a.first for p in zip(a.first[route], b.first[route])]
            pairs += [p for ra, rb in zip(a.second, b.second) for p in zip(ra, rb)]
            for x, y in pairs:
                assert close(float(x), float(np.asarray(y))), (name, case, upstream, x, y)


# What a difference real only on some CPUs (``Difference.kernel``) speaks of, where it does not
# show: the situation itself, in its scope (by default, any result there)
SITUATIONS = {
    SUM_OVERFLOW: lambda r: not (math.isfinite(r.ours) or math.isfinite(r.theirs)),
    SUM_OF_ZEROS: lambda r: r.ours == 0.0 == r.theirs,
}


@pytest.mark.parametrize("name", DOCUMENTED)
def test_each_documented_difference_is_real(name: str) -> None:
    """Pinned on both sides: for each difference an op's entry documents, topograd gives
    ``ours`` and PyTorch ``theirs`` in a case the difference covers; if either changes, the
    docs must too. A difference that comes from a CPU's vectorised kernels (``kernel``: the
    order of a sum's additions, a function's last bits) shows only on the CPUs whose kernels
    answer so: elsewhere the test asserts that its scope holds the situation it speaks of (a
    sum that overflows, a sum of zeros), where both sides then agree."""
    op = OPS[name]
    compared = [r for kind in op.kinds for r in results(op, kind)]
    for difference in op.differs:
        found = [
            (r.ours, r.theirs)
            for r in compared
            if documents(difference, r) and not close(r.ours, r.theirs)
        ]
        if difference.kernel and not found:
            situation = SITUATIONS.get(difference.why, lambda r: True)
            assert any(situation(r) for r in compared if in_scope(difference, r)), difference
        elif difference.any_kind:  # any two kinds: which ones is the sum's order
            assert found, difference
        else:
            assert any(
                same(ours, difference.ours) and same(theirs, difference.theirs)
                for ours, theirs in found
            ), (difference, found[:5])
