"""The safe expression parser: what it accepts, what it refuses and how it says so."""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from topograd.autograd.engine import topological_order
from topograd.expr import MAX_DEPTH, MAX_LENGTH, MAX_NODES, ExpressionError, parse
from topograd.scalar.value import Value
from topograd.viz.graph import describe

ACCEPTED = [
    ("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10}, math.tanh(4.0)),
    ("x*x + x", {"x": 3}, 12.0),
    ("-x ** 2", {"x": 3}, -9.0),
    ("+x - -y", {"x": 1, "y": 2}, 3.0),
    ("2 ** 3 ** 2", {}, 512.0),
    ("sqrt(abs(x)) / 2", {"x": -16}, 2.0),
    ("relu(x) + sigmoid(0) + exp(0) + log(1) + sin(0) + cos(0)", {"x": -1}, 2.5),
    ("1e3 * 0.5 + .25", {}, 500.25),
    ("  x + 1  ", {"x": 1}, 2.0),
    ("(x\n + 1)", {"x": 1}, 2.0),
    ("(x\n+ y)", {"x": 1, "y": 2}, 3.0),
    ("(éééééé\n+ y)", {"éééééé": 1, "y": 2}, 3.0),
    ("\tx\r\n", {"x": 1}, 1.0),
    ("9**9**9", {}, math.inf),
    ("1/0", {}, math.inf),
    ("log(0)", {}, -math.inf),
    ("λ * 2", {"λ": 1.5}, 3.0),
]


@pytest.mark.parametrize(("text", "values", "expected"), ACCEPTED)
def test_accepted_expressions_evaluate_as_maths_says(text, values, expected) -> None:  # type: ignore[no-untyped-def]
    out, _ = parse(text).build(values)
    assert out.data == pytest.approx(expected, rel=1e-15)


ITALIC_X = "\U0001d465"  # folds to x
ITALIC_TANH = "\U0001d461\U0001d44e\U0001d45b\u210e"  # folds to tanh
REFUSED = [
    ("a.b", "attributes (a.b) are not allowed (at column 1)"),
    ("x.__class__", "attributes"),
    ("x[0]", "subscripts"),
    ("lambda: 1", "lambdas"),
    ("a < b", "comparisons"),
    ("a and b", "and / or"),
    ("a if b else c", "conditional expressions"),
    ("(y := 1)", "assignments (:=)"),
    ("'text'", "only numbers are allowed, not str literals"),
    ("b'x'", "bytes"),
    ("f'{x}'", "f-strings"),
    ("True", "not bool"),
    ("None", "not NoneType"),
    ("1j", "not complex"),
    ("...", "not ellipsis"),
    ("[x]", "lists"),
    ("(x, y)", "tuples"),
    ("{x: 1}", "dicts"),
    ("[x for x in y]", "comprehensions"),
    ("tanh(x, y)", "tanh() takes exactly one argument, got 2"),
    ("tanh()", "takes exactly one argument, got 0"),
    ("tanh(*x)", "starred arguments"),
    ("tanh(x=1)", "tanh() takes no keyword arguments"),
    ("foo(x)", "unknown function 'foo'"),
    ("__import__('os')", "unknown function '__import__'"),
    ("eval('1')", "unknown function 'eval'"),
    ("exp(x)(y)", "only the built-in functions can be called"),
    ("x.exp()", "methods are not allowed; write exp(...)"),
    ("x.real()", "attributes"),
    ("tanh", "tanh is a function: call it as tanh(...)"),
    ("tanh + 1", "tanh is a function"),
    ("a // b", "the operator // is not allowed"),
    ("a % b", "the operator % is not allowed"),
    ("a @ b", "the operator @ is not allowed"),
    ("~a", "the operator ~ is not allowed"),
    ("not a", "the operator not is not allowed"),
    ("a ^ b", "the operator ^ is not allowed"),
    ("x = 1", "x names a number"),
    ("import os", "syntax error"),
    ("x +", "syntax error"),
    ("(x", "syntax error: '(' was never closed (at column 1)"),
    ("x\0y", "syntax error"),
    ("", "empty"),
    ("   ", "empty"),
    ("x" * (MAX_LENGTH + 1), f"at most {MAX_LENGTH}"),
    ("-" * (MAX_DEPTH + 5) + "x", f"nested more than {MAX_DEPTH} levels"),
    ("(" * 300 + "x" + ")" * 300, "syntax error"),
    ("+".join(["x"] * (MAX_NODES // 2 + 1)), f"more than {MAX_NODES} parts"),
    ("-" * 990 + "x", "nested"),
    ("   a.b", "(at column 4)"),
    # columns count characters, not the UTF-8 bytes ast counts
    ("é + f(x)", "unknown function 'f'; the functions are: sign, abs, exp, log, "),
    ("é + f(x)", "(at column 5)"),
    ("ééé.b", "(at column 1)"),
    (" λ + μ.b", "(at column 6)"),
    ("é + é é", "syntax error: invalid syntax (at column 7)"),
    ("x +", "syntax error: invalid syntax"),
    # names are not silently folded: a mathematical italic x would be bound as x
    (f"{ITALIC_X} * 2", f"the name {ITALIC_X} would be read as x (Python folds names with NFKC)"),
    (f"{ITALIC_X} * 2", "NFKC): write x, or a name without such letters (at column 1)"),
    ("y + ﬁ", "the name ﬁ would be read as fi (Python folds names with NFKC): write fi, "),
    ("y + ﬁ", "(at column 5)"),
    (f"{ITALIC_TANH}(x)", f"the name {ITALIC_TANH} would be read as tanh"),
    ("e\u0301 + 1", "the name e\u0301 (U+0065 U+0301) would be read as \u00e9 (U+00E9)"),
    ("\U0001d5c2\U0001d5bf + 1", "would be read as if, a keyword: choose another name"),
    # what Python's tokenizer only warns about is refused, not a line on stderr
    ("1if 1else 2", "syntax error: the number 1 runs into if; put an operator or a space"),
    ("1if 1else 2", "between them (at column 1)"),
    ("0x1for", "the number 0x1f runs into or"),
    ("x + 2y", "the number 2 runs into y; put an operator or a space between them (at column 5)"),
    ("'\\d'", "only numbers are allowed, not strings (at column 1)"),
    # in text of several lines, a place is a line and a column
    (f"(x\n+ {ITALIC_X})", f"the name {ITALIC_X} would be read as x"),
    (f"(x\n+ {ITALIC_X})", "(at line 2, column 3)"),
    ("(x+\n1 $ 2)", "syntax error: invalid syntax (at line 2, column 3)"),
    ("\n\n  x.b", "attributes (a.b) are not allowed (at line 3, column 3)"),
]


@pytest.mark.parametrize(("text", "message"), REFUSED)
def test_refusals_say_what_and_where(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse(text)
    assert message in str(caught.value)


def test_anything_but_text_is_refused() -> None:
    with pytest.raises(ExpressionError, match="text"):
        parse(3)  # type: ignore[arg-type]


def test_a_name_used_twice_is_one_node_a_subexpression_written_twice_two() -> None:
    out, inputs = parse("tanh(x*y) + tanh(x*y)").build({"x": 1.0, "y": 2.0})
    nodes = topological_order([out])
    assert sum(1 for n in nodes if n.label == "x") == 1
    assert sum(1 for n in nodes if n.op == "tanh") == 2
    assert sum(1 for n in nodes if n.op == "mul") == 2
    out.backward()
    assert inputs["x"].grad == pytest.approx(2 * 2.0 * (1 - math.tanh(2.0) ** 2))


def named(out: Value) -> list[tuple[str, str]]:
    """Each operation of the graph and its name, as the drawings and the trace give it."""
    return [(n.op, n.label) for n in describe(out)[0] if n.op]


def test_names_in_order_of_appearance_and_operations_named_as_the_lesson_names_them() -> None:
    expression = parse("tanh(b*a + c) * a")
    assert expression.names == ("b", "a", "c")
    out, _ = expression.build({"a": 1, "b": 2, "c": 3})
    assert [v.label for v in topological_order([out]) if v.op] == ["", "", "", ""]  # untouched
    # as drawn and traced: the output e, tanh's operand n (the lesson's net input), the
    # others d, f, ... in forward order
    assert named(out) == [("*", "d"), ("+", "n"), ("tanh", "f"), ("*", "e")]


def test_the_lesson_written_in_lines_is_the_lesson_in_one_expression() -> None:
    values = {"a": 2.0, "b": -3.0, "c": 10.0}
    graphs = [
        parse(text).build(values)
        for text in (
            "tanh(a*b + c)",
            "d = a*b; n = d + c; e = tanh(n)",
            "d = a*b\nn = d + c\ntanh(n)",
            "  d = a*b;\ne = tanh(d + c)  ",
        )
    ]
    for out, inputs in graphs:
        out.backward()
        assert named(out) == [("*", "d"), ("+", "n"), ("tanh", "e")]
        assert (out.data, [v.grad for v in inputs.values()]) == (
            graphs[0][0].data,
            [v.grad for v in graphs[0][1].values()],
        )
    assert parse("d = a*b; n = d + c; e = tanh(n)").formula == "tanh(n)"
    assert parse("tanh(a*b + c)").formula == "tanh(a*b + c)"


def test_names_the_user_chose_are_kept_and_never_given_twice() -> None:
    out, _ = parse("n = a*b; d = tanh(n + e) * d2").build({"a": 1, "b": 2, "e": 3, "d2": 4})
    assert [v.label for v in topological_order([out]) if v.op] == ["n", "", "", "d"]
    # n and d are the user's; e and d2 are inputs: the lesson's letters skip them all
    assert named(out) == [("*", "n"), ("+", "n2"), ("tanh", "f"), ("*", "d")]
    wide = "-".join(f"x{k}" for k in range(40))  # (a difference: a chain of sums is one Σ)
    out, _ = parse(wide).build({f"x{k}": 1.0 for k in range(40)})
    labels = [label for _, label in named(out)]
    assert len(set(labels)) == len(labels) == 39 and labels[-1] == "e" and "d2" in labels


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("d = a", "d = a computes nothing: write a itself (at column 5)"),
        ("d = +a; e = d*2", "d = +a computes nothing"),
        ("k = 2; e = k*x", "k names a number"),
        ("d = a*b; e = c*2", "d is never used: every line but the last must be used by a later"),
        ("d = a*b; d = d*2", "give each value its own name (at column 10)"),
        ("a = a*2", "a is an input (used before this line)"),
        ("e = a*b; f = e + a; a = f*2", "a is an input"),
        ("tanh = a*b", "tanh is a function: choose another name"),
        ("d = a*b; d*2; e = d", "only the last line may be an expression without a name"),
        ("a, b = c*d", "a line assigns one name"),
        ("x = y = a*b", "a line assigns one name"),
        ("d = a*b; import os", "only lines of the form name = expression"),
        ("d = a*b; d += 1", "a name is assigned once"),
        ("d = a*b; e = d +", "syntax error: invalid syntax (at column 17)"),
        ("d = a*b\ne = tanh(d", "'(' was never closed (at line 2, column 9)"),
        ("d = a.b; e = d*2", "attributes (a.b) are not allowed (at column 5)"),
        (f"{ITALIC_X} = a*b; e = x*2", "would be read as x"),
    ],
)
def test_lines_are_refused_saying_why_and_where(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse(text)
    assert message in str(caught.value)


def test_missing_and_unknown_values_are_refused() -> None:
    expression = parse("x + y")
    with pytest.raises(ExpressionError, match="no value given for y"):
        expression.build({"x": 1})
    with pytest.raises(ExpressionError, match="z not in the expression"):
        expression.build({"x": 1, "y": 2, "z": 3})


def test_a_long_sum_is_fine() -> None:
    out, inputs = parse("+".join(["x"] * 190)).build({"x": 0.5})
    out.backward()
    assert (out.data, inputs["x"].grad) == (95.0, 190.0)


def test_huge_powers_and_literals_finish_at_once() -> None:
    start = time.perf_counter()
    for text in ["9**9**9**9", "9" * 900 + " ** 99", "(" * 30 + "99**99" + ")**99" * 30]:
        out, _ = parse(text).build({})
        assert out.data == math.inf
    assert time.perf_counter() - start < 5  # generous: the point is that nothing hangs


ALPHABET = "abxyz0123456789.+-*/()e eE tanhsqrtlogexpabs,=[]:;'\"_!@#%^&|~<>{}\\\n\t"


@given(st.text(max_size=60))
def test_arbitrary_text_raises_nothing_but_expression_error(text: str) -> None:
    _parse_and_build(text)


ANY_CODE_POINT = st.characters(codec=None, categories=None)  # surrogates too
SURROGATE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=None)


@given(
    st.text(alphabet=st.one_of(ANY_CODE_POINT, SURROGATE, st.sampled_from("x+*()1")), max_size=30)
)
def test_text_with_any_code_point_raises_nothing_but_expression_error(text: str) -> None:
    _parse_and_build(text)


@given(st.text(alphabet=ALPHABET, max_size=80))
def test_text_near_the_grammar_raises_nothing_but_expression_error(text: str) -> None:
    _parse_and_build(text)


def _parse_and_build(text: str) -> None:
    try:
        expression = parse(text)
        out, _ = expression.build(dict.fromkeys(expression.names, 0.5))
    except ExpressionError:
        return
    out.backward()
    assert isinstance(out.data, float)


FLAT = [  # long to read, but not nested: chains of one precedence, as the user writes them
    " + ".join(f"x{k}" for k in range(1, 501)),
    " - ".join(f"x{k}" for k in range(1, 301)) + " + y",
    "*".join(["x"] * 400) + "/y",
    " + ".join(f"tanh(x{k})*2" for k in range(1, 150)),
]


@pytest.mark.parametrize("text", FLAT)
def test_a_long_flat_chain_is_not_refused_as_nested(text: str) -> None:
    expression = parse(text)
    out, inputs = expression.build(dict.fromkeys(expression.names, 0.5))
    out.backward()
    assert math.isfinite(out.data) and all(math.isfinite(v.grad) for v in inputs.values())


NESTED = [  # what the user nests: each level counts, chains inside them or not
    "tanh(-" * (MAX_DEPTH // 2 + 1) + "x" + ")" * (MAX_DEPTH // 2 + 1),
    "**".join(["x"] * (MAX_DEPTH + 2)),  # right to left: x ** (x ** (...))
    "-" * (MAX_DEPTH + 1) + "x",
    "+".join(["x"] * 50) + "+" + "x**-" * (MAX_DEPTH // 2 + 1) + "x",  # x ** -(x ** ...)
]


@pytest.mark.parametrize("text", NESTED)
def test_nesting_the_user_writes_is_still_bounded(text: str) -> None:
    with pytest.raises(ExpressionError, match=f"nested more than {MAX_DEPTH} levels deep"):
        parse(text)


def test_a_500_term_sum_has_pytorchs_gradients_from_the_command_line() -> None:
    torch = pytest.importorskip("torch")
    import json
    import subprocess
    import sys

    names = [f"x{k}" for k in range(1, 501)]
    values = [0.5 + k / 7 for k in range(500)]
    text = "+".join(f"{n}*{n}" if k % 2 else n for k, n in enumerate(names))
    given = [f"{n}={v!r}" for n, v in zip(names, values)]
    result = subprocess.run(
        [sys.executable, "-m", "topograd", "grad", text, *given, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(result.stdout)
    xs = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    total = sum((xs[k] * xs[k] if k % 2 else xs[k]) for k in range(500))
    total.backward()
    assert report["grads"] == dict(zip(names, xs.grad.tolist()))
    assert abs(report["value"] - total.item()) <= 1e-12 * abs(total.item())


def test_a_product_of_negated_factors_is_one_chain() -> None:
    """x * -x * -x groups as (x * -x) * -x: each sign nests once, the chain does not."""
    parse("*-".join(["x"] * (MAX_DEPTH + 50)))
