"""The public face: every name of ``tg.__all__`` exists and does what it says, and every
surface (methods, parser, CLI, playground, docs) is derived from the op registry."""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import micrograd.engine
import numpy as np
import pytest

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.cli.ops import markdown
from topograd.expr import functions, parse
from topograd.ops.methods import Methods
from topograd.playground.api import functions_reply

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _value() -> bool:
    x = tg.Value(3.0, label="x")
    (x * x).backward()
    return x.grad == 6.0 and x.label == "x"


def _tensor() -> bool:
    t = tg.Tensor([1.0, 2.0], requires_grad=True)
    (t * t).sum().backward()
    return t.grad.tolist() == [2.0, 4.0]


def _custom_op() -> bool:
    cube = tg.custom_op(lambda x: x**3, lambda x, out: (3 * x * x,), name="api cube")
    x = tg.Value(2.0)
    cube(x).backward()
    return x.grad == 12.0 and OPS["api cube"] is cube


def _anomaly() -> bool:
    x = tg.Value(0.0)
    with tg.detect_anomaly():
        y = x.sqrt() * 0
        try:
            y.backward()
        except tg.AnomalyError as error:
            return "'sqrt'" in str(error)
    return False


def _no_grad() -> bool:
    with tg.no_grad():
        recording = tg.is_grad_enabled()
        y = tg.Value(1.0) * 2
    return not recording and y.op == "" and tg.is_grad_enabled()


def _gradcheck_error() -> bool:
    wrong = tg.custom_op(math.sin, lambda x, out: (out,), name="api wrong sin")
    try:
        tg.gradcheck(lambda x: wrong(x), [0.5])
    except tg.GradcheckError as error:
        return error.fault is not None and error.fault.op == "api wrong sin"
    return False


def _tensor_gradcheck_error() -> bool:
    x = tg.Tensor([[0.5, -1.0]], requires_grad=True)
    try:
        tg.gradcheck(lambda t: t * t.data, [x])  # a gradient lost outside the graph
    except tg.TensorGradcheckError as error:
        return isinstance(error, tg.GradcheckError)
    return False


def _custom_op_error() -> bool:
    bad = tg.custom_op(lambda x: "no", lambda x, out: (1.0,), name="api stringy")
    try:
        bad(1.0)
    except tg.CustomOpError:
        return True
    return False


def _trace() -> bool:
    x = tg.Value(3.0, label="x")
    steps = tg.trace(x * x + x)
    return isinstance(steps, tg.Trace) and steps.steps[-1].grad == 7.0


def _optim() -> bool:
    names = ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad")
    made = all(issubclass(getattr(tg.optim, name), tg.optim.Optimizer) for name in names)
    w = tg.Value(1.0)
    (w * w).backward()
    opt = tg.optim.AdamW([w], lr=0.1)
    step = tg.optim.StepLR(opt, 1, 0.5)
    rest = [tg.optim.LinearLR(opt), tg.optim.CosineAnnealingLR(opt, 4)]
    opt.step()
    step.step()
    moved = w.data < 1.0 and step.get_last_lr() == [0.1 * (1 / 3) * 0.5]  # all three
    return made and moved and all(isinstance(s, tg.optim.LRScheduler) for s in rest)


def _function() -> bool:
    class Twice(tg.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2.0

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2.0

    x = tg.Tensor([1.0], requires_grad=True)
    Twice.apply(x).sum().backward()
    return x.grad is not None and x.grad.tolist() == [2.0]


def _default_dtype() -> bool:
    tg.set_default_dtype(tg.float64)
    try:
        return tg.tensor([1.5]).dtype is tg.float64
    finally:
        tg.set_default_dtype(tg.float32)


def _printoptions() -> bool:
    tg.set_printoptions(precision=2)
    try:
        return str(tg.tensor([1.23456])) == "tensor([1.23])"
    finally:
        tg.set_printoptions(profile="default")


def _records_inside(mode: Any) -> bool:
    x = tg.ones(1, requires_grad=True)
    with mode:
        return bool((x * 2).requires_grad)


def _enable_grad() -> bool:
    with tg.no_grad():
        return _records_inside(tg.enable_grad())


def _saved_and_loaded() -> bool:
    import tempfile

    path = Path(tempfile.mkdtemp()) / "m.safetensors"
    tg.save({"w": tg.ones(2)}, path)
    return tg.load(path)["w"].tolist() == [1.0, 1.0]


def _refused(function: Callable[..., Any], feature: str) -> bool:
    with pytest.raises(NotImplementedError, match=feature):
        function(tg.zeros(2))
    return True


USES: dict[str, Callable[[], bool]] = {
    "AnomalyError": _anomaly,
    "CustomOpError": _custom_op_error,
    "GradcheckError": _gradcheck_error,
    "Tensor": _tensor,
    "TensorGradcheckError": _tensor_gradcheck_error,
    "Trace": _trace,
    "Value": _value,
    "affine": lambda: tg.affine([tg.Value(2.0)], [3.0], 1.0).data == 7.0,
    "backward": lambda: tg.backward([tg.Value(1.0) * 2], [1.0]) is None,
    "concatenate": lambda: tg.concatenate([np.ones(2), np.zeros(1)]).data.tolist() == [1, 1, 0],
    "custom_op": _custom_op,
    "datasets": lambda: len(tg.datasets.make_moons(10, seed=0)[0]) == 10,
    "detect_anomaly": _anomaly,
    "dot": lambda: tg.dot([tg.Value(2.0)], [4.0]).data == 8.0,
    "draw": lambda: tg.draw(tg.Value(1.0) * 2)._repr_svg_() == tg.to_svg(tg.Value(1.0) * 2),
    "func": lambda: tg.func.grad(lambda x: x * x)(3.0) == 6.0,
    "grad": lambda: tg.grad(tg.Value(2.0) ** 3, [tg.Value(1.0)]) == [0.0],
    "gradcheck": lambda: tg.gradcheck(lambda x: x.tanh(), [0.3]),
    "grade": lambda: tg.grade(micrograd.engine.Value).passed,  # the lesson's reference engine
    "is_grad_enabled": _no_grad,
    "nn": lambda: len(tg.nn.MLP(2, [3, 1], seed=0).parameters()) == 13,
    "no_grad": _no_grad,
    "ops": lambda: tg.ops.arithmetic.add is OPS["add"],
    "optim": _optim,
    "stack": lambda: tg.stack([np.ones(2), np.zeros(2)]).shape == (2, 2),
    "sum": lambda: tg.sum([tg.Value(1.0), 2.0]).data == 3.0,
    "to_dot": lambda: tg.to_dot(tg.Value(1.0) * 2).startswith("digraph"),
    "to_svg": lambda: tg.to_svg(tg.Value(1.0) * 2).startswith("<svg"),
    "trace": _trace,
    "where": lambda: (
        tg.where(tg.Value(1.0) > 0, tg.Value(2.0), 3.0).data == 2.0
        and tg.where(tg.ones(2) > tg.Tensor([0.0, 2.0]), tg.ones(2), 0.0).tolist() == [1.0, 0.0]
    ),
    "widget": lambda: tg.widget(tg.Value(1.0, label="x") * 2).data["names"] == ["x"],
    "Generator": lambda: (
        tg.rand(3, generator=tg.Generator().manual_seed(7)).tolist()
        == tg.rand(3, generator=tg.Generator().manual_seed(7)).tolist()
    ),
    "manual_seed": lambda: tg.manual_seed(3) is not None and tg.randn(2).shape == (2,),
    "rand": lambda: tg.rand(50).min().item() >= 0.0 and tg.rand(50).max().item() < 1.0,
    "randn": lambda: tg.randn(2, 3, requires_grad=True).requires_grad,
    "randint": lambda: set(tg.randint(0, 3, (200,)).tolist()) == {0, 1, 2},
    "randint_like": lambda: tg.randint_like(tg.zeros(4), 5, 6).tolist() == [5.0] * 4,
    "randperm": lambda: sorted(tg.randperm(6).tolist()) == list(range(6)),
    "rand_like": lambda: tg.rand_like(tg.zeros(2, 3, dtype=tg.float64)).dtype == np.float64,
    "randn_like": lambda: tg.randn_like(tg.zeros(4)).shape == (4,),
    "normal": lambda: tg.normal(tg.full((3,), 5.0), 0.0).tolist() == [5.0] * 3,
    "bernoulli": lambda: tg.bernoulli(tg.tensor([0.0, 1.0])).tolist() == [0.0, 1.0],
    "multinomial": lambda: tg.multinomial(tg.tensor([0.0, 1.0]), 3, True).tolist() == [1] * 3,
    "seed": lambda: tg.seed() == tg.initial_seed(),
    "initial_seed": lambda: tg.manual_seed(11).initial_seed() == tg.initial_seed() == 11,
    "default_generator": lambda: tg.manual_seed(1) is tg.default_generator,
    "get_rng_state": lambda: tg.get_rng_state().shape == (5056,),
    "set_rng_state": lambda: tg.set_rng_state(tg.get_rng_state()) is None,
    "random": lambda: tg.random.manual_seed(2) is tg.random.default_generator,
    "zeros": lambda: tg.zeros(2, 3).tolist() == [[0.0] * 3] * 2,
    "ones": lambda: tg.ones((2,), dtype=tg.float32).dtype == np.float32,
    "full": lambda: tg.full((2,), 1.5).tolist() == [1.5, 1.5],
    "eye": lambda: tg.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]],
    "arange": lambda: tg.arange(3).tolist() == [0.0, 1.0, 2.0],
    "linspace": lambda: tg.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0],
    "zeros_like": lambda: tg.zeros_like(np.ones((2, 1))).shape == (2, 1),
    "ones_like": lambda: tg.ones_like(tg.zeros(3)).tolist() == [1.0] * 3,
    "float16": lambda: tg.zeros(1, dtype=tg.float16).dtype == np.float16,
    "float32": lambda: tg.zeros(1).dtype is tg.float32 and tg.float32 == np.float32,
    "float64": lambda: tg.zeros(1, dtype=tg.float64).dtype is tg.float64,
    "int8": lambda: tg.tensor([-128], dtype=tg.int8).tolist() == [-128],
    "int16": lambda: tg.zeros(1, dtype=tg.int16).dtype == np.int16,
    "int32": lambda: tg.ones(3)[tg.tensor([2], dtype=tg.int32)].tolist() == [1.0],
    "int64": lambda: tg.tensor([1, 2]).dtype is tg.int64,
    "uint8": lambda: tg.tensor([255], dtype=tg.uint8).item() == 255,
    "dtype": lambda: isinstance(tg.float16, tg.dtype) and tg.float16.is_floating_point,
    "get_default_dtype": lambda: tg.get_default_dtype() is tg.float32,
    "set_default_dtype": _default_dtype,
    "promote_types": lambda: tg.promote_types(tg.int64, tg.float16) is tg.float16,
    "result_type": lambda: tg.result_type(tg.tensor([1]), 2.5) is tg.float32,
    "as_tensor": lambda: tg.as_tensor(np.arange(3)).dtype is tg.int64,
    "empty": lambda: tg.empty(2, 3).shape == (2, 3),
    "empty_like": lambda: tg.empty_like(tg.zeros(4, dtype=tg.int32)).dtype is tg.int32,
    "full_like": lambda: tg.full_like(tg.zeros(2), 7).tolist() == [7.0, 7.0],
    "is_tensor": lambda: tg.is_tensor(tg.zeros(1)) and not tg.is_tensor(np.zeros(1)),
    "numel": lambda: tg.numel(tg.zeros(2, 3)) == 6,
    "softmax": lambda: tg.softmax(tg.zeros(4), dim=0).tolist() == [0.25] * 4,
    "log_softmax": lambda: tg.log_softmax(tg.zeros(1), dim=0).tolist() == [0.0],
    "set_printoptions": _printoptions,
    "device": lambda: tg.zeros(1, device=tg.device("cpu")).device == tg.device("cpu"),
    "cuda": lambda: tg.cuda.is_available() is False,
    "backends": lambda: tg.backends.mps.is_available() is False,
    "sparse": lambda: not hasattr(tg.sparse, "mm"),
    "Size": lambda: tg.zeros(2, 3).shape == tg.Size([2, 3]) == (2, 3),
    "e": lambda: tg.e == math.e,
    "inf": lambda: tg.inf == math.inf,
    "nan": lambda: math.isnan(tg.nan),
    "pi": lambda: tg.pi == math.pi,
    "sparse_coo_tensor": lambda: _refused(tg.sparse_coo_tensor, "sparse Tensors"),
    "sparse_csr_tensor": lambda: _refused(tg.sparse_csr_tensor, "sparse Tensors"),
    "view_as_complex": lambda: _refused(tg.view_as_complex, "complex numbers"),
    "view_as_real": lambda: _refused(tg.view_as_real, "complex numbers"),
    "autograd": lambda: tg.autograd.grad is tg.grad and tg.autograd.Function is tg.Function,
    "enable_grad": _enable_grad,
    "inference_mode": lambda: _records_inside(tg.inference_mode()) is False,
    "set_grad_enabled": lambda: _records_inside(tg.set_grad_enabled(False)) is False,
    "utils": lambda: len(tg.utils.data.TensorDataset(tg.zeros(3, 2))) == 3,
    "einsum": lambda: tg.einsum("ij,j->i", np.eye(2), np.ones(2)).tolist() == [1.0, 1.0],
    "outer": lambda: tg.outer(np.ones(2), np.arange(3.0)).tolist() == [[0.0, 1.0, 2.0]] * 2,
    "tensordot": lambda: tg.tensordot(np.ones((2, 3)), np.ones(3), dims=1).tolist() == [3, 3],
    "Function": _function,
    "compile": lambda: tg.compile(lambda x: x * x)(tg.Value(3.0)) == 9.0,
    "GuardError": lambda: issubclass(tg.GuardError, RuntimeError),
    "TraceError": lambda: issubclass(tg.TraceError, TypeError),
    "cat": lambda: tg.cat([tg.ones(1, 2), tg.zeros(1, 2)], dim=0).tolist() == [[1, 1], [0, 0]],
    "concat": lambda: tg.concat([tg.ones(2), tg.zeros(1)]).tolist() == [1.0, 1.0, 0.0],
    "from_numpy": lambda: tg.from_numpy(np.arange(3.0)).tolist() == [0.0, 1.0, 2.0],
    "save": _saved_and_loaded,
    "load": _saved_and_loaded,
    "allclose": lambda: tg.allclose(tg.ones(2), tg.ones(2) + 1e-9),
    "isclose": lambda: tg.isclose(tg.ones(2), tg.tensor([1.0, 2.0])).tolist() == [True, False],
    "equal": lambda: tg.equal(tg.ones(2), tg.ones(2)) and not tg.equal(tg.ones(2), tg.zeros(2)),
    "histogram": lambda: (
        tg.histogram(tg.tensor([1.0, 2.0, 1.0]), bins=2).hist.tolist() == [2.0, 1.0]
    ),
    "meshgrid": lambda: tg.meshgrid(tg.arange(2), tg.arange(3), indexing="ij")[1].shape == (2, 3),
    "get_default_device": lambda: str(tg.get_default_device()) == "cpu",
    "set_default_device": lambda: tg.set_default_device("cpu") is None,
    "tensor": lambda: (
        tg.tensor([[1.0, 2]], requires_grad=True).requires_grad
        and tg.tensor(np.ones(2, np.float32)).dtype == np.float32
        and tg.tensor([1, 2]).dtype is tg.int64
    ),
}


def test_every_public_name_is_used_here() -> None:
    assert sorted(USES) == sorted(tg.__all__)


@pytest.mark.parametrize("name", sorted(USES))
def test_every_public_name_works(name: str) -> None:
    assert hasattr(tg, name)
    assert USES[name]() is True


def test_the_registry_functions_are_listed_and_take_arrays_first() -> None:
    # a fresh interpreter: tg.exp on an ndarray before any Tensor was made finds its kind
    code = "import numpy as np, topograd as tg; print('exp' in dir(tg), tg.exp(np.zeros(2)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "[1.", "1.]"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Tenser'"):
        tg.Tenser  # noqa: B018


FUNCTIONS = sorted(name for name, op in OPS.items() if op.function and not op.custom)


def test_every_function_of_one_number_is_a_method_of_both_kinds() -> None:
    methods = {name for name in vars(Methods) if not name.startswith("_")}
    assert methods == set(FUNCTIONS)
    for name in FUNCTIONS:
        value, tensor = (
            getattr(tg.Value(0.5), name)(),
            getattr(tg.tensor([0.5], dtype=tg.float64, requires_grad=True), name)(),
        )
        assert value.op == tensor.op == name
        assert value.data == pytest.approx(float(tensor.data[0]), rel=1e-15, nan_ok=True)


def test_the_parser_the_cli_and_the_playground_offer_every_function() -> None:
    assert sorted(functions()) == FUNCTIONS
    for name in FUNCTIONS:
        out, _ = parse(f"{name}(x)").build({"x": 0.5})
        assert out.op == name
    help_text = subprocess.run(
        [sys.executable, "-m", "topograd", "grad", "--help"], capture_output=True, text=True
    ).stdout
    assert all(name in help_text for name in FUNCTIONS)
    reply = functions_reply()
    assert sorted(reply["functions"]) == FUNCTIONS
    assert reply["operators"] == ["+", "-", "*", "/", "**"]
    assert reply["maths"]["erf"][0] == OPS["erf"].maths


def test_the_docs_table_is_the_registry() -> None:
    page = (DOCS / "ops.md").read_text()
    assert page == markdown(), "docs/ops.md is stale: topograd ops --markdown > docs/ops.md"
    for op in OPS.values():
        if not op.custom:
            assert f"| `{op.name}`" in page


@pytest.mark.parametrize("name", sorted(n for n, op in OPS.items() if op.elementwise))
def test_an_op_runs_on_numbers_arrays_values_and_tensors_alike(name: str) -> None:
    op = OPS[name]
    xs = [(lo + 0.37 * (hi - lo)) for lo, hi in op.domain]
    on_numbers = op(*xs)
    on_arrays = op(*[np.array([x]) for x in xs])
    on_values = op(*[tg.Value(x) for x in xs])
    on_tensors = op(*[tg.tensor([x], dtype=tg.float64, requires_grad=True) for x in xs])
    assert isinstance(on_values, tg.Value) and isinstance(on_tensors, tg.Tensor)
    assert on_values.op == on_tensors.op == name
    for other in (float(on_arrays[0]), on_values.data, float(on_tensors.data[0])):
        assert other == pytest.approx(on_numbers, rel=1e-15)


def test_custom_ops_join_the_registry_and_its_checks() -> None:
    from topograd.verify.rules import check_rules

    square = tg.custom_op(lambda x: x * x, lambda x, out: (2 * x,), name="api square")
    assert OPS["api square"] is square and square.custom
    report = next(r for r in check_rules(50, kinds=("scalar",)) if r.op == "api square")
    assert report.passed
    wrong = tg.custom_op(lambda x: x * x, lambda x, out: (x,), name="api square")  # redefined
    assert OPS["api square"] is wrong
    report = next(r for r in check_rules(50, kinds=("scalar",)) if r.op == "api square")
    assert not report.passed
    with pytest.raises(ValueError, match="'tanh' exists already"):
        tg.custom_op(math.tanh, lambda x, out: (1 - out * out,), name="tanh")
