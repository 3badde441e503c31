"""gradcheck: passes right rules, catches and names wrong ones, tells bugs from noise."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from oracle import ON_VALUES, SCALAR_OPS

import topograd as tg
from topograd import cli
from topograd.autograd.registry import OPS
from topograd.ops import floats as ieee
from topograd.verify.numeric import STEP, central, derivative, richardson
from topograd.verify.scalar_rules import check_rule, draw_point
from topograd.verify.scalars import localise

# op, a wrong rule (in the registry's form: grad, inputs, out -> contributions), an expression
# that uses the op, and a point where the mutant is wrong.
MUTANTS = [
    ("sin", lambda g, x, out: (g * out,), lambda x: (x * 2).sin() + x, [0.7]),
    ("cos", lambda g, x, out: (g * ieee.sin(x),), lambda x: x.cos(), [0.7]),
    ("tan", lambda g, x, out: (g * (1 - out * out),), lambda x: x.tan(), [0.7]),
    ("sinh", lambda g, x, out: (g * out,), lambda x: x.sinh(), [0.7]),
    ("cosh", lambda g, x, out: (g * out,), lambda x: x.cosh(), [0.7]),
    ("tanh", lambda g, x, out: (g * (1 - out),), lambda x: (x * 0.5).tanh(), [0.8]),
    ("asinh", lambda g, x, out: (ieee.div(g, x * x + 1),), lambda x: x.asinh(), [0.7]),
    ("atan", lambda g, x, out: (ieee.div(g, ieee.sqrt(x * x + 1)),), lambda x: x.atan(), [0.7]),
    ("asin", lambda g, x, out: (ieee.div(g, x * x + 1),), lambda x: x.asin(), [0.5]),
    ("acos", lambda g, x, out: (ieee.div(g, ieee.sqrt(1 - x * x)),), lambda x: x.acos(), [0.5]),
    ("atanh", lambda g, x, out: (ieee.div(g, 1 + x * x),), lambda x: x.atanh(), [0.5]),
    ("acosh", lambda g, x, out: (ieee.div(g, ieee.sqrt(x * x + 1)),), lambda x: x.acosh(), [1.5]),
    ("exp", lambda g, x, out: (g,), lambda x: x.exp() * 2, [0.3]),
    ("expm1", lambda g, x, out: (g * out,), lambda x: x.expm1(), [0.3]),
    ("log", lambda g, x, out: (ieee.div(g, x * x),), lambda x: (x + 1).log(), [0.5]),
    ("log1p", lambda g, x, out: (ieee.div(g, x),), lambda x: x.log1p(), [0.5]),
    ("log2", lambda g, x, out: (ieee.div(g, x),), lambda x: x.log2(), [0.5]),  # no ln 2
    ("log10", lambda g, x, out: (ieee.div(g, x * 2.0),), lambda x: x.log10(), [0.5]),
    ("floor", lambda g, x, out: (g,), lambda x: x.floor() * x, [1.5]),  # a step as a slope
    ("ceil", lambda g, x, out: (g,), lambda x: x.ceil() * x, [1.5]),
    ("round", lambda g, x, out: (g,), lambda x: x.round() * x, [1.3]),
    ("sqrt", lambda g, x, out: (ieee.div(g, out),), lambda x: x.sqrt(), [2.0]),
    ("erf", lambda g, x, out: (g * ieee.exp(-x * x),), lambda x: x.erf(), [0.5]),
    ("sigmoid", lambda g, x, out: (g * out,), lambda x: x.sigmoid(), [0.4]),
    ("relu", lambda g, x, out: (g,), lambda x: x.relu() + x, [-0.5]),
    ("leaky_relu", lambda g, x, out: (g * 0.1,), lambda x: x.leaky_relu() + x, [-0.5]),
    ("abs", lambda g, x, out: (g,), lambda x: abs(x), [-1.5]),
    ("sign", lambda g, x, out: (g,), lambda x: x.sign() * x, [1.5]),
    ("neg", lambda g, x, out: (g,), lambda x: -x * x, [1.2]),
    ("softplus", lambda g, x, out: (g * out,), lambda x: x.softplus(), [0.3]),
    ("gelu", lambda g, x, out: (g * ieee.sigmoid(x),), lambda x: x.gelu(), [0.6]),
    ("gelu_tanh", lambda g, x, out: (g * ieee.sigmoid(x),), lambda x: x.gelu("tanh"), [0.6]),
    ("silu", lambda g, x, out: (g * ieee.sigmoid(x),), lambda x: x.silu(), [0.6]),  # σ alone
    (
        "gelu_backward",
        lambda g, a, x, out: (OPS["gelu_backward"](g, x), g * a),  # x's: not gelu''
        lambda a, x: OPS["gelu_backward"](a, x),
        [0.7, 0.4],
    ),
    (
        "gelu_tanh_backward",
        lambda g, a, x, out: (OPS["gelu_tanh_backward"](g, x), g * a),
        lambda a, x: OPS["gelu_tanh_backward"](a, x),
        [0.7, 0.4],
    ),
    (
        "maximum",
        lambda g, x, y, out: (g, g),  # both get it, not only the larger
        lambda x, y: OPS["maximum"](x, y) * y,
        [0.5, 1.5],
    ),
    (
        "minimum",
        lambda g, x, y, out: (0.0, 0.0),
        lambda x, y: OPS["minimum"](x, y) * y,
        [0.5, 1.5],
    ),
    ("add", lambda g, x, y, out: (g, 0.0), lambda x, y: (x + y) * y, [0.5, 1.5]),
    ("sub", lambda g, x, y, out: (g, g), lambda x, y: x - y, [0.5, 1.5]),
    ("mul", lambda g, x, y, out: (g * x, g * y), lambda x, y: x * y, [0.5, 1.5]),
    (
        "div",
        lambda g, x, y, out: (ieee.div(g, y), ieee.div(g * out, y)),
        lambda x, y: x / y,
        [0.5, 1.5],
    ),
    (
        "pow",
        lambda g, x, y, out: (g * y * ieee.power(x, y), g * out),
        lambda x, y: x**y,
        [1.5, 2.5],
    ),
    (
        "sum",
        lambda g, *a: (g,) * (len(a) - 2) + (0.0,),
        lambda *xs: tg.sum(xs),
        [0.5, 1.5, -1.0],
    ),
    (
        "dot",
        lambda g, w1, w2, x1, x2, out: (g * w1, g * w2, g * x1, g * x2),
        lambda *a: tg.dot(a[:2], a[2:]),
        [0.5, 1.5, -1.0, 2.0],
    ),
    (
        "affine",
        lambda g, w1, w2, x1, x2, b, out: (g * x1, g * x2, g * w1, g * w2, 0.0),
        lambda *a: tg.affine(a[:2], a[2:4], a[4]),
        [0.5, 1.5, -1.0, 2.0, 0.3],
    ),
    (
        "sigmoid_backward",
        lambda g, a, s, out: (g * s * (1.0 - s), g * a * (1.0 + 2.0 * s)),  # a sign wrong
        lambda a, x: OPS["sigmoid_backward"](a, x.sigmoid()),
        [0.7, 0.4],
    ),
    (
        "relu_backward",
        lambda g, a, out, result: (g, 0.0),  # no selection
        lambda a, x: OPS["relu_backward"](a, x.relu()) * a,
        [0.7, -0.4],
    ),
    (
        "leaky_relu_backward",
        lambda g, a, x, out: (g, 0.0),  # no slope below 0
        lambda a, x: OPS["leaky_relu_backward"](a, x) * a,
        [0.7, -0.4],
    ),
    (
        "where",
        lambda g, c, x, y, out: (0.0, g, g),  # both branches get the gradient
        lambda c, x, y: OPS["where"](c, x, y) * y,
        [1.5, 0.5, -1.0],
    ),
    (
        "logsumexp",
        lambda g, a, b, out: (g, g),  # 1 for each operand, not its share of the softmax
        lambda a, b: OPS["logsumexp"](a, b) * a,
        [0.3, -0.4],
    ),
    (
        "clamp_min",
        lambda g, x, low, out: (g, g),  # both get it, not only the one picked
        lambda x, low: OPS["clamp_min"](x, low) * x,
        [0.5, 1.0],
    ),
    (
        "clamp_max",
        lambda g, x, high, out: (g, g),
        lambda x, high: OPS["clamp_max"](x, high) * x,
        [2.0, 1.0],
    ),
    (
        "clamp_between",
        lambda g, x, low, high, out: (g, 0.0, g),  # x gets it beyond the limits
        lambda x, low, high: OPS["clamp_between"](x, low, high) * x,
        [2.0, 0.0, 1.0],
    ),
    (
        "neuron",
        lambda g, w1, w2, x1, x2, b, out: (g * x1, g * x2, g * w1, g * w2, 0.0),
        lambda *a: OPS["neuron"](*a),
        [0.5, 1.5, -1.0, 2.0, 0.3],
    ),
]


def test_mutants_cover_every_op() -> None:
    assert {m[0] for m in MUTANTS} == set(SCALAR_OPS)


@pytest.mark.parametrize(("op", "mutant", "fn", "point"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_a_wrong_rule_is_caught_and_named(op, mutant, fn, point, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert tg.gradcheck(fn, point)
    monkeypatch.setattr(OPS[op], "rule", mutant)
    with pytest.raises(tg.GradcheckError, match="Jacobian mismatch for output 0") as caught:
        tg.gradcheck(fn, point)
    assert caught.value.fault is not None
    assert caught.value.fault.op == op
    assert f"op {op!r}" in str(caught.value)


@pytest.mark.parametrize(("op", "mutant", "fn", "point"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_a_wrong_rule_fails_topograd_check(op, mutant, fn, point, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(OPS[op], "rule", mutant)
    assert not check_rule(OPS[op], points=50).passed
    assert cli.main(["check", "--points", "20"]) == 1
    out = capsys.readouterr().out
    assert re_line(out, op).endswith("FAIL")
    kinds = OPS[op].kinds  # one rule serves both kinds: it fails on each
    failed = ", ".join(f"{op} ({kind})" for kind in kinds)
    assert f"{len(kinds)} failed: {failed}" in out


def re_line(text: str, op: str) -> str:
    return next(line for line in text.splitlines() if line.split(" ")[0] == op).rstrip()


@pytest.mark.parametrize(("op", "mutant", "fn", "point"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_a_wrong_rule_in_a_custom_op_is_named(op, mutant, fn, point) -> None:  # type: ignore[no-untyped-def]
    partials = lambda *args: mutant(1.0, *args)  # noqa: E731 - the custom op's form
    broken = tg.custom_op(OPS[op].scalar, partials, name=f"my {op}")
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(lambda *xs: broken(*xs) * 1.5, point[: len(OPS[op].domain)])
    assert caught.value.fault is not None
    assert caught.value.fault.op == f"my {op}"


@pytest.mark.parametrize("op", SCALAR_OPS)
def test_every_builtin_op_passes_gradcheck_at_a_thousand_points(op: str) -> None:
    rng = random.Random(f"gradcheck {op}")
    for _ in range(1000):
        assert tg.gradcheck(ON_VALUES[op], draw_point(OPS[op], rng))


def test_every_builtin_rule_passes_topograd_check() -> None:
    assert cli.main(["check", "--points", "200"]) == 0


def test_the_fault_names_label_inputs_and_both_partials(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(OPS["sin"], "rule", lambda g, x, out: (g * out,))

    def fn(x):  # type: ignore[no-untyped-def]
        h = (x * 3).sin()
        h.label = "h"
        return h * x

    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(fn, [0.5])
    fault = caught.value.fault
    assert fault is not None
    assert (fault.op, fault.label, fault.inputs, fault.input_index) == ("sin", "h", (1.5,), 0)
    assert fault.expected == pytest.approx(math.cos(1.5), rel=1e-10)
    assert fault.given == math.sin(1.5)
    message = str(caught.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "\nanalytical:" in message
    assert "op 'sin' (label 'h') at inputs (1.5,)" in message


def test_a_gradient_lost_outside_the_graph_is_said_so() -> None:
    with pytest.raises(tg.GradcheckError, match="outside the graph") as caught:
        tg.gradcheck(lambda x: x * x.data, [1.5])  # d/dx is 2x, the graph says x
    assert caught.value.fault is None


def test_a_wrong_rule_is_located_even_behind_a_kink(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(OPS["exp"], "rule", lambda g, x, out: (2 * g * out,))
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(lambda x: (x * 0).relu() + x.exp(), [0.5])  # relu sits at its kink, 0
    assert caught.value.fault is not None
    assert caught.value.fault.op == "exp"


def test_raise_exception_false_returns_false(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(OPS["tanh"], "rule", lambda g, x, out: (g * out,))
    assert tg.gradcheck(lambda x: x.tanh(), [0.3], raise_exception=False) is False


def test_backward_that_is_not_reentrant_is_caught() -> None:
    noise = random.Random(0)
    jittery = tg.custom_op(
        math.sin, lambda x, out: (math.cos(x) + noise.uniform(-1e-12, 1e-12),), name="jittery"
    )
    with pytest.raises(tg.GradcheckError, match="not reentrant"):
        tg.gradcheck(jittery, [0.4])


@pytest.mark.parametrize("bad", [["1.0"], [None], [1j], [True]])
def test_gradcheck_refuses_inputs_that_are_not_numbers(bad: list[object]) -> None:
    with pytest.raises(TypeError, match="input 0"):
        tg.gradcheck(lambda x: x, bad)  # type: ignore[arg-type]


def test_gradcheck_refuses_a_function_that_returns_no_value() -> None:
    with pytest.raises(TypeError, match="must return a Value"):
        tg.gradcheck(lambda x: x.data, [1.0])


@pytest.mark.parametrize(
    ("f", "df"),
    [(math.exp, math.exp), (math.sin, math.cos), (math.tanh, lambda x: 1 - math.tanh(x) ** 2)],
)
def test_richardson_reaches_far_below_a_central_difference(f, df) -> None:  # type: ignore[no-untyped-def]
    xs = [0.1 + 0.05 * i for i in range(60)]

    def median_error(estimate):  # type: ignore[no-untyped-def]
        return statistics.median(abs(estimate(x) - df(x)) / abs(df(x)) for x in xs)

    plain = median_error(lambda x: central(f, x, STEP * max(1.0, abs(x))))
    extrapolated = median_error(lambda x: derivative(f, x, richardson_levels=4))
    assert extrapolated < 2e-13
    assert plain > 100 * extrapolated
    assert abs(richardson(f, 0.3, 1e-2, 4) - df(0.3)) < 1e-12


def test_richardson_tells_a_small_real_bug_from_noise(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    strict = {"atol": 0.0, "rtol": 1e-11, "richardson_levels": 4}
    assert tg.gradcheck(lambda x: (x * x).sin().exp(), [0.8], **strict)
    with pytest.raises(tg.GradcheckError):  # plain differences are too noisy for that tolerance
        tg.gradcheck(lambda x: (x * x).sin().exp(), [0.8], atol=0.0, rtol=1e-11)
    monkeypatch.setattr(OPS["exp"], "rule", lambda g, x, out: (g * out * (1 + 1e-9),))
    with pytest.raises(tg.GradcheckError) as caught:  # a 1e-9 error in a rule
        tg.gradcheck(lambda x: (x * x).sin().exp(), [0.8], **strict)
    assert caught.value.fault is not None
    assert caught.value.fault.op == "exp"


def test_scaled_step_follows_the_size_of_the_input() -> None:
    def cube(x):  # type: ignore[no-untyped-def]
        return x * x * x

    # at x = 1e4 a fixed step of 1e-6 drowns in the round-off of f = 1e12
    assert tg.gradcheck(cube, [1e4], scaled_step=True, atol=0, rtol=1e-9)
    assert not tg.gradcheck(cube, [1e4], atol=0, rtol=1e-9, raise_exception=False)


def test_localise_finds_nothing_in_a_sound_graph() -> None:
    x = tg.Value(0.3)
    assert localise((x * x).tanh() / (x + 2)) is None


def test_an_infinite_input_fails_instead_of_hanging() -> None:
    with pytest.raises(tg.GradcheckError):
        tg.gradcheck(lambda x: x.tanh(), [math.inf], scaled_step=True)
    broken = tg.custom_op(math.sin, lambda x, out: (out,), name="broken")
    with pytest.raises(tg.GradcheckError):
        tg.gradcheck(lambda x: tg.Value(-math.inf).exp() + broken(x), [0.5])


def test_a_step_below_the_spacing_of_floats_is_a_mismatch_not_a_crash() -> None:
    with pytest.raises(tg.GradcheckError, match=r"numerical:0\.0\n"):
        tg.gradcheck(lambda x: x * 2, [3e10])
    assert tg.gradcheck(lambda x: x * 2, [3e10], scaled_step=True)


def test_nan_and_infinity_are_never_close_to_a_wrong_gradient(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(OPS["sin"], "rule", lambda g, x, out: (g * out,))
    with pytest.raises(tg.GradcheckError):
        tg.gradcheck(lambda x: x.sin(), [math.nan])
    wrong_exp = tg.custom_op(ieee.exp, lambda x, out: (-5.0,), name="wrong_exp")
    with pytest.raises(tg.GradcheckError):
        tg.gradcheck(wrong_exp, [709.7827128933])


def test_gradcheck_of_a_function_that_differentiates_inside() -> None:
    def first_derivative(x):  # type: ignore[no-untyped-def]
        (d,) = tg.grad(x**3, [x], create_graph=True)
        return d

    assert tg.gradcheck(first_derivative, [2.0])


@pytest.mark.parametrize(
    ("op", "mutant", "fn", "point"),
    [
        (
            "div",
            lambda g, x, y, out: (ieee.div(g, y), ieee.div(g * out, y)),
            lambda x, y: x / y,
            [0.5, 0.01],
        ),
        ("log", lambda g, x, out: (ieee.div(2.0 * g, x),), lambda x: x.log(), [0.004]),
    ],
)
def test_a_wrong_rule_at_a_steep_point_is_still_named(op, mutant, fn, point, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(OPS[op], "rule", mutant)
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(fn, point)
    assert caught.value.fault is not None
    assert caught.value.fault.op == op


# One gradcheck for both kinds: the same options, the same errors, the faulty op named.


def cube_tensor(t):  # type: ignore[no-untyped-def]
    return t * t * t


def test_scaled_step_means_the_same_on_tensors() -> None:
    x = tg.tensor([1e4, -2e4], dtype=tg.float64, requires_grad=True)
    assert tg.gradcheck(cube_tensor, [x], scaled_step=True, atol=0, rtol=1e-9)
    assert not tg.gradcheck(cube_tensor, [x], atol=0, rtol=1e-9, raise_exception=False)


def test_richardson_means_the_same_on_tensors(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    x = tg.tensor([0.8, -0.3], dtype=tg.float64, requires_grad=True)
    strict = {"atol": 0.0, "rtol": 1e-11}
    assert tg.gradcheck(lambda t: (t * t).sin().exp(), [x], richardson_levels=4, **strict)
    assert not tg.gradcheck(lambda t: (t * t).sin().exp(), [x], raise_exception=False, **strict)
    monkeypatch.setattr(OPS["exp"], "rule", lambda g, x, out: (g * out * (1 + 1e-9),))
    with pytest.raises(tg.GradcheckError) as caught:
        tg.gradcheck(lambda t: (t * t).sin().exp(), [x], richardson_levels=4, **strict)
    assert caught.value.fault is not None and caught.value.fault.op == "exp"


@pytest.mark.parametrize("fast_mode", [False, True])
def test_the_faulty_op_is_named_on_tensors_too(monkeypatch, fast_mode: bool) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(OPS["sin"], "rule", lambda g, x, out: (g * out,))
    x = tg.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=tg.float64, requires_grad=True)
    with pytest.raises(tg.GradcheckError) as caught:  # a TensorGradcheckError is one
        tg.gradcheck(lambda t: (t * 2.0).sin() @ t, [x], fast_mode=fast_mode)
    assert isinstance(caught.value, tg.TensorGradcheckError)
    fault = caught.value.fault
    assert fault is not None
    assert (fault.op, fault.kind, fault.inputs, fault.input_index) == (
        "sin",
        "tensor",
        ((2, 2),),
        0,
    )
    assert "The faulty rule is op 'sin' at inputs of shapes ((2, 2),)" in str(caught.value)


def test_fast_mode_means_the_same_on_scalars(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    f = lambda x, y: (x * y).sin() + y.exp()  # noqa: E731
    assert tg.gradcheck(f, [0.4, -1.2], fast_mode=True, seed=3)
    monkeypatch.setattr(OPS["exp"], "rule", lambda g, x, out: (2 * g * out,))
    with pytest.raises(tg.GradcheckError, match=r"vJu \(fast mode\) mismatch") as caught:
        tg.gradcheck(f, [0.4, -1.2], fast_mode=True, seed=3)
    assert caught.value.fault is not None and caught.value.fault.op == "exp"


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"eps": 0.0}, ValueError, "eps must be > 0"),
        ({"atol": -1.0}, ValueError, "atol must be a number >= 0"),
        ({"rtol": "1e-3"}, ValueError, "rtol must be a number"),
        ({"richardson_levels": 1}, ValueError, "richardson_levels must be 0 or 2"),
        ({"richardson_levels": 2.5}, TypeError, "richardson_levels must be an int"),
        ({"seed": "7"}, TypeError, "seed must be an int"),
    ],
)
@pytest.mark.parametrize("kind", ["scalar", "tensor"])
def test_a_bad_option_is_refused_on_both_kinds(options, error, message, kind: str) -> None:  # type: ignore[no-untyped-def]
    inputs = [0.5] if kind == "scalar" else [tg.tensor([0.5], dtype=tg.float64, requires_grad=True)]
    with pytest.raises(error, match=message):
        tg.gradcheck(lambda x: x.tanh(), inputs, **options)


def test_values_are_accepted_as_inputs_too() -> None:
    assert tg.gradcheck(lambda x: x.tanh() * x, [tg.Value(0.5)])


def test_gradcheck_of_a_function_that_differentiates_inside_on_tensors() -> None:
    def first_derivative(x):  # type: ignore[no-untyped-def]
        (d,) = tg.grad((x**3).sum(), [x], create_graph=True)
        return d

    assert tg.gradcheck(
        first_derivative, [tg.tensor([0.5, 1.5], dtype=tg.float64, requires_grad=True)]
    )


def test_gradcheck_refuses_to_check_nothing() -> None:
    import numpy as np

    with pytest.raises(ValueError, match="no input Tensor requires a gradient"):
        tg.gradcheck(lambda a: a * 3, [tg.Tensor([1.0, 2.0])])
    with pytest.raises(TypeError, match="input 0 must be a real number"):
        tg.gradcheck(lambda a: a * 3, [np.array([1.0, 2.0])])  # an array is not a Tensor
    with pytest.raises(ValueError, match="no inputs"):
        tg.gradcheck(lambda: tg.Value(1.0), [])
    assert tg.gradcheck(lambda a: a * a, [np.float64(1.5)])  # a NumPy number is a number


def test_fast_mode_names_the_input_whose_gradient_is_wrong() -> None:
    wrong_y = tg.custom_op(lambda x, y: x * y, lambda x, y, out: (y, 2 * x), name="wrong y")
    with pytest.raises(tg.GradcheckError, match="with respect to input 1") as caught:
        tg.gradcheck(wrong_y, [0.5, 1.5], fast_mode=True)
    assert caught.value.input_index == 1


@pytest.mark.parametrize("fast_mode", [False, True])
def test_arrays_and_numbers_beside_tensors_reach_fn_as_they_are(fast_mode: bool) -> None:
    import numpy as np

    seen: list[object] = []

    def loss(z: tg.Tensor, targets: object, scale: object) -> tg.Tensor:
        seen.append((targets, scale))
        return tg.nn.functional.cross_entropy(z * scale, targets)

    z = tg.Tensor(np.random.default_rng(0).normal(size=(3, 4)), requires_grad=True)
    targets = np.array([1, 0, 3])  # class indices: integers, which a float Tensor would not be
    assert tg.gradcheck(loss, [z, targets, 2.5], fast_mode=fast_mode)
    assert all(t is targets and s == 2.5 for t, s in seen)


def test_the_rule_check_counts_only_what_it_checked_on_tensors() -> None:
    from topograd.verify import tensor_rules

    transpose = OPS["transpose"]  # no element-by-element check: only its cases, drawn twice
    report = tensor_rules.check_rule(transpose, points=200)
    assert report.passed and report.points == 2 * len(transpose.cases) + len(transpose.special)
    tanh = OPS["tanh"]  # elementwise: an array of 200 elements and the broadcast cases
    assert tensor_rules.check_rule(tanh, points=200).points >= 200
