"""A Tensor's text as PyTorch 2.13 prints it (tensors/printing.py): the same numbers built in
PyTorch and in NumPy, ``repr`` of the one compared with ``tensor_repr`` of the other, for every
dtype, shapes from 0-d and empty to summarised, special values, the suffixes and the print
options. The dtype's printed name is passed as PyTorch spells it (``torch.`` and NumPy's name,
the same for all nine dtypes), so that the lines wrap at the same places."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from topograd.tensors.printing import format_number, set_printoptions, tensor_repr

DTYPES = [
    np.float16,
    np.float32,
    np.float64,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.bool_,
]
FLOATS = DTYPES[:3]
TORCH_FLOATS = {np.float16: torch.float16, np.float32: torch.float32, np.float64: torch.float64}


@pytest.fixture(autouse=True)
def _options_as_they_were() -> Iterator[None]:
    """Each test leaves both libraries' print options and PyTorch's default dtype as found."""
    yield
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


def theirs(values: NDArray[Any], grad: str = "") -> str:
    """PyTorch's repr of the same numbers: ``grad`` "" (none), "leaf" or "node" (a clone)."""
    made = torch.from_numpy(values.copy())
    if grad:
        made.requires_grad_()
    return repr(made.clone() if grad == "node" else made)


def ours(values: NDArray[Any], grad: str = "", default: Any = np.float32) -> str:
    """tensor_repr with the suffixes ``theirs`` shows for ``grad``."""
    return tensor_repr(
        values,
        dtype_name=f"torch.{values.dtype.name}",
        default_float=default,
        requires_grad=grad == "leaf",
        grad_fn="CloneBackward0" if grad == "node" else None,
    )


def as_dtype(numbers: NDArray[np.float64], dtype: Any) -> NDArray[Any]:
    """The float64 numbers cast to ``dtype`` (beyond float16's range: inf, as NumPy casts)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return numbers.astype(dtype)


# --- drawn arrays ---------------------------------------------------------------------------

SPECIALS = [math.nan, math.inf, -math.inf, -0.0, 0.0]
UNEVEN = [1e-5, 1e10, 0.1, -123456.789, 1e-300, 5e-324, 1e300]


def float_elements(family: str) -> st.SearchStrategy[float]:
    """One family of numbers (each picks another format), with specials sprinkled in."""
    if family == "whole":
        base: st.SearchStrategy[float] = st.integers(-(10**12), 10**12).map(float)
        return st.one_of(base, st.integers(-9, 9).map(float), st.sampled_from(SPECIALS))
    families = {
        "plain": st.floats(-100, 100),
        "tiny": st.floats(-1e-3, 1e-3),
        "spread": st.floats(-1e6, 1e6),
        "any": st.floats(allow_nan=True, allow_infinity=True),
    }
    return st.one_of(families[family], st.sampled_from(SPECIALS + UNEVEN))


SMALL_SHAPES = st.one_of(
    st.just(()),
    hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4),
    st.tuples(st.integers(5, 60)),  # vectors long enough to wrap
    st.tuples(st.integers(1, 8), st.integers(5, 30)),
)


@st.composite
def small_arrays(draw: st.DrawFn, dtype: Any) -> NDArray[Any]:
    """Up to a few hundred elements, each drawn: printed in full."""
    shape = draw(SMALL_SHAPES)
    if dtype in FLOATS:
        family = draw(st.sampled_from(["whole", "plain", "tiny", "spread", "any"]))
        numbers = draw(hnp.arrays(np.float64, shape, elements=float_elements(family)))
        return as_dtype(numbers, dtype)
    if dtype is np.bool_:
        return draw(hnp.arrays(np.bool_, shape))
    limits = np.iinfo(dtype)
    wide = st.integers(int(limits.min), int(limits.max))
    narrow = st.integers(max(int(limits.min), -9), 9)
    return draw(hnp.arrays(dtype, shape, elements=st.one_of(wide, narrow)))


BIG_SHAPES = [
    (1001,),
    (3000,),
    (40, 30),
    (5, 300),
    (300, 4),
    (3, 7, 50),
    (11, 11, 11),
    (2, 3, 2, 90),
]


@st.composite
def big_arrays(draw: st.DrawFn, dtype: Any) -> NDArray[Any]:
    """Over 1000 elements from a drawn seed, with specials at drawn places: summarised."""
    shape = draw(st.sampled_from(BIG_SHAPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    size = math.prod(shape)
    if dtype is np.bool_:
        return rng.random(shape) < draw(st.sampled_from([0.0, 0.5, 1.0]))
    if dtype not in FLOATS:
        limits = np.iinfo(dtype)
        high = draw(st.sampled_from([int(limits.max), 9]))
        return rng.integers(max(int(limits.min), -high), high, shape, dtype, endpoint=True)
    scale = 10.0 ** draw(st.integers(-8, 12))
    numbers = rng.normal(0, scale, size)
    if draw(st.booleans()):
        numbers = np.round(numbers)
    places = draw(st.lists(st.integers(0, size - 1), max_size=6))
    numbers[places] = draw(st.lists(st.sampled_from(SPECIALS + UNEVEN), min_size=len(places)))[
        : len(places)
    ]
    return as_dtype(numbers.reshape(shape), dtype)


def arrays_of_any_dtype(draw: st.DrawFn) -> NDArray[Any]:
    dtype = draw(st.sampled_from(DTYPES))
    return draw(st.one_of(small_arrays(dtype), small_arrays(dtype), big_arrays(dtype)))


@given(st.data())
def test_drawn_arrays_print_as_pytorch(data: st.DataObject) -> None:
    values = arrays_of_any_dtype(data.draw)
    grad = data.draw(st.sampled_from(["", "leaf", "node"])) if values.dtype in FLOATS else ""
    assert ours(values, grad) == theirs(values, grad)


OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 8),
        "threshold": st.sampled_from([0, 1, 5, 50, 1000, math.inf]),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(1, 160),
        "sci_mode": st.booleans(),
        "profile": st.sampled_from(["default", "short", "full"]),
    },
)


@given(st.data(), OPTIONS)
def test_print_options_as_pytorch(data: st.DataObject, options: dict[str, Any]) -> None:
    torch.set_printoptions(**options)
    set_printoptions(**options)
    values = arrays_of_any_dtype(data.draw)
    grad = data.draw(st.sampled_from(["", "leaf", "node"])) if values.dtype in FLOATS else ""
    assert ours(values, grad) == theirs(values, grad)


@pytest.mark.parametrize("default", FLOATS)
@given(data=st.data())
def test_the_default_float_goes_without_dtype(default: Any, data: st.DataObject) -> None:
    torch.set_default_dtype(TORCH_FLOATS[default])
    try:
        dtype = data.draw(st.sampled_from(DTYPES))
        values = data.draw(small_arrays(dtype))
        assert ours(values, default=default) == theirs(values)
    finally:
        torch.set_default_dtype(torch.float32)


# --- named cases ----------------------------------------------------------------------------

f32, f64 = np.float32, np.float64
CASES: dict[str, NDArray[Any]] = {
    "0-d loss": np.array(2.4544, f32),
    "0-d -0.": np.array(-0.0, f32),
    "0-d nan": np.array(math.nan, f64),
    "0-d -inf": np.array(-math.inf, f32),
    "0-d whole": np.array(-3.0, f32),
    "0-d int": np.array(7, np.int64),
    "0-d bool": np.array(False),
    "0-d tiny": np.array(1e-5, f32),
    "0-d huge whole": np.array(1e10, f32),
    "whole": np.array([1.0, -2.0, 30.0], f32),
    "whole with nan and -0.": np.array([math.nan, -0.0, 1.0, -math.inf], f32),
    "decimals": np.array([0.12345, -1.5, 10.0], f32),
    "decimals with nan": np.array([0.5, math.nan, math.inf], f64),
    "1e-5 and 1: scientific": np.array([1e-5, 1.0], f32),
    "span of exactly 1000": np.array([1.0, 1000.0, 0.5], f64),
    "span just over 1000": np.array([1.0, 1000.5], f64),
    "1e8 is not scientific": np.array([1e8, 2.5], f64),
    "just over 1e8": np.array([100000001.0, 2.0], f64),
    "float32 1e-4 is below 1e-4": np.array([1e-4, 2e-4], f32),
    "float64 1e-4 is not": np.array([1e-4, 2e-4], f64),
    "whole above 1e8": np.array([1e10, 1.0, -3.0], f32),
    "float16 span over 1000 only in float64": np.array([1001.0, 1.0009765625], np.float16),
    "float16 extremes": np.array([65504.0, 6e-8, -0.0, 1.0], np.float16),
    "subnormal float64": np.array([5e-324, 1.0], f64),
    "all zeros": np.zeros(4, f32),
    "all nan": np.full(3, math.nan, f64),
    "nan and zero": np.array([math.nan, 0.0, -0.0], f32),
    "int64 extremes": np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max], np.int64),
    "int8 extremes": np.array([-128, 5, 127], np.int8),
    "uint8": np.array([0, 255, 7], np.uint8),
    "int32": np.arange(-3, 3, dtype=np.int32),
    "bools": np.array([True, False, True]),
    "all True": np.ones((2, 2), bool),
    "empty float32": np.zeros(0, f32),
    "empty float64": np.zeros(0, f64),
    "empty int64": np.zeros(0, np.int64),
    "empty bool": np.zeros((0,), bool),
    "empty (0, 3)": np.zeros((0, 3), f32),
    "empty (2, 0, 1) int16": np.zeros((2, 0, 1), np.int16),
    "wrapping vector": np.linspace(-1, 1, 37, dtype=f32),
    "wrapping ints": np.arange(100, dtype=np.int64) * 10**9,
    "2-D": np.array([[1.0, 2.0], [3.0, 4.0]], f32),
    "2-D wrapping rows": np.linspace(0, 1, 60, dtype=f64).reshape(2, 30),
    "3-D": np.arange(24, dtype=f32).reshape(2, 3, 4) / 3,
    "4-D": np.arange(16, dtype=np.int8).reshape(2, 2, 2, 2),
    "1001 summarised": np.arange(1001, dtype=f32),
    "1000 in full": np.arange(1000, dtype=f32) / 7,
    "100 x 100 summarised": np.arange(10_000, dtype=f64).reshape(100, 100) / 3,
    "5 x 300: rows in full, columns summarised": np.arange(1500, dtype=np.int32).reshape(5, 300),
    "summarised: the middle's 1e-9 is not shown": np.concatenate(
        [np.ones(500, f32), [1e-9], np.ones(500, f32)]
    ),
    "summarised 3-D": np.linspace(-5, 5, 7 * 8 * 20, dtype=f32).reshape(7, 8, 20),
}


@pytest.mark.parametrize("grad", ["", "leaf", "node"])
@pytest.mark.parametrize("name", list(CASES))
def test_named_cases_as_pytorch(name: str, grad: str) -> None:
    values = CASES[name]
    if grad and values.dtype not in FLOATS:
        pytest.skip("only floating Tensors can require a gradient")
    assert ours(values, grad) == theirs(values, grad)


def test_the_issue_loss_prints_as_pytorch() -> None:
    loss = np.array(2.4544, np.float32)
    assert tensor_repr(loss, dtype_name="torch.float32") == "tensor(2.4544)"
    named = tensor_repr(loss, dtype_name="torch.float32", grad_fn="NllLossBackward0")
    assert named == repr(
        torch.nn.functional.nll_loss(torch.tensor([[-2.4544]]).requires_grad_(), torch.tensor([0]))
    )


def test_a_suffix_passing_the_line_width_goes_to_a_new_line() -> None:
    """Rows 78 characters wide: PyTorch puts ``dtype=`` and ``grad_fn=`` on lines of their own."""
    values = np.linspace(0.5, 9.5, 22, dtype=np.float64).reshape(2, 11)
    shown = ours(values, "node")
    assert shown.count("\n") == 3
    assert shown == theirs(values, "node")


@pytest.mark.parametrize("linewidth", range(30, 100))
@pytest.mark.parametrize("size", [3, 9])
def test_suffixes_wrap_at_the_same_column(linewidth: int, size: int) -> None:
    """One line or several, at every width: each suffix joins the line or starts its own."""
    torch.set_printoptions(linewidth=linewidth)
    set_printoptions(linewidth=linewidth)
    values = np.linspace(-1, 1, size, dtype=np.float64)
    assert ours(values, "node") == theirs(values, "node")


@pytest.mark.parametrize(
    "options",
    [
        {"sci_mode": True},
        {"sci_mode": False},
        {"precision": 2},
        {"precision": 0},
        {"profile": "short"},
        {"profile": "full"},
        {"threshold": 5},
        {"edgeitems": 0, "threshold": 5},
        {"edgeitems": 0, "threshold": 0},
        {"edgeitems": 1, "threshold": 5},
        {"linewidth": 30},
        {"linewidth": 1},
    ],
    ids=repr,
)
@pytest.mark.parametrize("name", list(CASES))
def test_named_cases_with_options_as_pytorch(options: dict[str, Any], name: str) -> None:
    torch.set_printoptions(**options)
    set_printoptions(**options)
    assert ours(CASES[name]) == theirs(CASES[name])


def test_set_printoptions_without_sci_mode_returns_to_the_automatic_choice() -> None:
    values = np.array([1.0, 2.0], np.float32)
    for setter in (torch.set_printoptions, set_printoptions):
        setter(sci_mode=True)
        setter(precision=3)
    assert ours(values) == theirs(values) == "tensor([1., 2.])"


# --- format ---------------------------------------------------------------------------------

SPECS = ["", ".4f", "f", ".2e", "10.3g", ">12", "+.1%", "d", "x", ",", "s", ".0f", "e", "n"]


def outcome(call: Any) -> tuple[str, str]:
    """The text, or the error's type and message."""
    try:
        return "text", call()
    except (TypeError, ValueError) as error:
        return type(error).__name__, str(error)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    "values",
    [
        np.array(2.4544, np.float32),
        np.array(0.1, np.float64),
        np.array(-0.0, np.float16),
        np.array(math.nan, np.float32),
        np.array(-7, np.int64),
        np.array(200, np.uint8),
        np.array(True),
    ],
    ids=lambda values: f"{values.dtype}({values})",
)
def test_format_of_a_0d_tensor_is_its_numbers(values: NDArray[Any], spec: str) -> None:
    tensor = torch.from_numpy(values.copy())
    assert outcome(lambda: format_number(values, spec)) == outcome(lambda: format(tensor, spec))


@pytest.mark.parametrize("spec", [".4f", "f", "s", ">3"])
@pytest.mark.parametrize("shape", [(1,), (1, 1), (3,), (0,)])
def test_format_of_another_tensor_with_a_spec_raises_as_pytorch(
    shape: tuple[int, ...], spec: str
) -> None:
    values = np.full(shape, 2.5, np.float32)
    tensor = torch.from_numpy(values.copy())
    assert outcome(lambda: format_number(values, spec)) == outcome(lambda: format(tensor, spec))


@pytest.mark.parametrize("shape", [(1,), (2, 2), (0,)])
def test_format_of_another_tensor_without_a_spec_is_its_str(shape: tuple[int, ...]) -> None:
    values = np.full(shape, 2.5, np.float32)
    assert format_number(values, "") is None
    assert format(torch.from_numpy(values.copy()), "") == ours(values)


def test_a_0d_parameter_formats_as_pytorch() -> None:
    parameter = torch.nn.Parameter(torch.tensor(2.5))
    values = np.array(2.5, np.float32)
    found = outcome(lambda: format_number(values, ".2f", type_name="Parameter"))
    assert found == outcome(lambda: format(parameter, ".2f"))
    assert format_number(values, "", type_name="Parameter") is None
