"""The ops' forwards on floats: IEEE 754 results where Python's would raise.

``math.log(0.0)``, ``math.sqrt(-1.0)``, ``1.0 / 0.0`` and ``math.exp(1000.0)`` raise, and
``(-8.0) ** (1 / 3)`` is a complex number. PyTorch (float64) returns -inf, nan, inf, inf and nan.
These functions do the same, so that no op of topograd ever raises on a domain problem.
The fast path is the plain ``math`` call; the exceptional cases are settled only when it raises.

>>> log(0.0), sqrt(-1.0), div(1.0, 0.0), exp(1000.0), power(-8.0, 1 / 3)
(-inf, nan, inf, inf, nan)
"""

import math
import operator
from collections.abc import Sequence

INF = math.inf
NAN = math.nan


def _is_odd_integer(y: float) -> bool:
    return math.isfinite(y) and y == int(y) and int(y) % 2 == 1


def div(x: float, y: float) -> float:
    """x / y, with x / ±0 = ±inf (the sign of x times the sign of the zero) and 0 / 0 = nan."""
    try:
        return x / y
    except ZeroDivisionError:
        if x == 0.0 or x != x:
            return NAN
        return math.copysign(INF, x) * math.copysign(1.0, y)


def power(x: float, y: float) -> float:
    """x ** y as C's pow: never complex, ±inf on overflow and at 0 ** negative."""
    try:
        return math.pow(x, y)
    except ValueError:  # 0 ** negative, or negative ** non-integer
        if x == 0.0:
            return math.copysign(INF, x) if _is_odd_integer(y) else INF
        return NAN
    except OverflowError:
        return -INF if x < 0.0 and _is_odd_integer(y) else INF


def exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def log(x: float) -> float:
    """Natural log: log(±0) = -inf, log(negative) = nan."""
    try:
        return math.log(x)
    except ValueError:
        return -INF if x == 0.0 else NAN


def log2(x: float) -> float:
    """Base-2 log: log2(±0) = -inf, log2(negative) = nan."""
    try:
        return math.log2(x)
    except ValueError:
        return -INF if x == 0.0 else NAN


def log10(x: float) -> float:
    """Base-10 log: log10(±0) = -inf, log10(negative) = nan."""
    try:
        return math.log10(x)
    except ValueError:
        return -INF if x == 0.0 else NAN


def sqrt(x: float) -> float:
    try:
        return math.sqrt(x)
    except ValueError:
        return NAN


def sin(x: float) -> float:
    try:
        return math.sin(x)
    except ValueError:  # sin(±inf)
        return NAN


def cos(x: float) -> float:
    try:
        return math.cos(x)
    except ValueError:  # cos(±inf)
        return NAN


def tan(x: float) -> float:
    try:
        return math.tan(x)
    except ValueError:  # tan(±inf)
        return NAN


def sinh(x: float) -> float:
    try:
        return math.sinh(x)
    except OverflowError:
        return math.copysign(INF, x)


def cosh(x: float) -> float:
    try:
        return math.cosh(x)
    except OverflowError:
        return INF


def log1p(x: float) -> float:
    """log(1 + x), exact near 0: log1p(-1) = -inf, below -1 nan."""
    try:
        return math.log1p(x)
    except ValueError:
        return -INF if x == -1.0 else NAN


def expm1(x: float) -> float:
    """e^x - 1, exact near 0."""
    try:
        return math.expm1(x)
    except OverflowError:
        return INF


def sigmoid(x: float) -> float:
    """1 / (1 + e^-x), computed on the side that cannot overflow."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)  # x < 0 or nan: cannot overflow
    return e / (1.0 + e)


def choose(cond: float, x: float, y: float) -> float:
    """x where cond holds (is non-zero), else y."""
    return x if cond else y


def sigmoid_backward(g: float, s: float) -> float:
    """g σ (1 - σ) from σ = s, as PyTorch computes it: (g (1 - s)) s."""
    return g * (1.0 - s) * s


def floor(x: float) -> float:
    """The largest whole number ≤ x, as a float: ±inf and nan as they are, -0.0 kept."""
    return x if not math.isfinite(x) else math.copysign(float(math.floor(x)), x)


def ceil(x: float) -> float:
    """The smallest whole number ≥ x, as a float: ceil(-0.5) = -0.0, as IEEE's."""
    return x if not math.isfinite(x) else math.copysign(float(math.ceil(x)), x)


def round_even(x: float) -> float:
    """x to the nearest whole number, halves to even: round(-0.4) = -0.0, as IEEE's rint."""
    return x if not math.isfinite(x) else math.copysign(float(round(x)), x)


def sign(x: float) -> float:
    """-1.0, 0.0 or 1.0; 0.0 at nan, as PyTorch."""
    return 1.0 if x > 0.0 else -1.0 if x < 0.0 else 0.0


def relu(x: float) -> float:
    """max(x, 0) as PyTorch: relu(-0.0) = -0.0 and relu(nan) = nan."""
    return 0.0 if x < 0.0 else x


def relu_backward(g: float, out: float) -> float:
    """g where relu's output is positive, else +0.0 (whatever g is: inf, nan)."""
    return 0.0 if out <= 0.0 else g


LEAKY_SLOPE = 0.01  # leaky_relu's slope below 0, PyTorch's default


def leaky_relu(x: float) -> float:
    """x where x > 0, else LEAKY_SLOPE x."""
    return x if x > 0.0 else x * LEAKY_SLOPE


def leaky_relu_backward(g: float, x: float) -> float:
    """g where x > 0, else LEAKY_SLOPE g (at nan too)."""
    return g if x > 0.0 else g * LEAKY_SLOPE


def softplus(x: float) -> float:
    """log(1 + e^x) as max(x, 0) + log1p(e^-|x|): no overflow, and exact to the last bits."""
    return (0.0 if x < 0.0 else x) + math.log1p(math.exp(-abs(x)))


# GELU's constants as PyTorch writes them: 1/√2, 2/√π · 1/√2 · ½, and the tanh form's √2 · 2/√π · ½
GELU_ALPHA = 0.7071067811865476
GELU_BETA = 1.1283791670955126 * 0.7071067811865476 * 0.5
GELU_TANH_BETA = 1.4142135623730951 * 1.1283791670955126 * 0.5
GELU_KAPPA = 0.044715


def gelu(x: float) -> float:
    """x Φ(x) = x · ½ (1 + erf(x / √2)), as PyTorch's x * 0.5 * (1 + erf(x * (1/√2)))."""
    return x * 0.5 * (1.0 + math.erf(x * GELU_ALPHA))


def gelu_tanh(x: float) -> float:
    """GELU's tanh form: ½ x (1 + tanh(√(2/π) (x + 0.044715 x³))), in PyTorch's order."""
    inner = GELU_TANH_BETA * (x + GELU_KAPPA * (x * x * x))
    return 0.5 * x * (1.0 + math.tanh(inner))


def gelu_backward(g: float, x: float) -> float:
    """g (Φ(x) + x φ(x)), as PyTorch's g * (cdf + x * pdf)."""
    cdf = 0.5 * (1.0 + math.erf(x * GELU_ALPHA))
    pdf = GELU_BETA * exp(x * x * -0.5)
    return g * (cdf + x * pdf)


def gelu_tanh_backward(g: float, x: float) -> float:
    """g times the derivative of GELU's tanh form, in PyTorch's order."""
    x_sq = x * x
    t = math.tanh(GELU_TANH_BETA * (x + GELU_KAPPA * (x_sq * x)))
    left, right = 0.5 * x, 1.0 + t
    inner_derivative = GELU_TANH_BETA * (1.0 + 3.0 * GELU_KAPPA * x_sq)
    return g * (0.5 * right + left * (1.0 - t * t) * inner_derivative)


def silu(x: float) -> float:
    """x σ(x), as PyTorch's x / (1 + e^-x): nan at -inf (-inf / inf)."""
    return div(x, 1.0 + exp(-x))


def elu(x: float, alpha: float = 1.0) -> float:
    """alpha (e^x - 1) where x < 0, else x itself (±0.0 and nan as they are, as PyTorch's)."""
    return alpha * math.expm1(x) if x < 0.0 else x


def maximum(x: float, y: float) -> float:
    """The larger, nan if either is; at a tie of -0.0 and 0.0 the first, x, always (PyTorch's
    choice there depends on its code path: the first for a few elements, the second in its
    vectorised loop)."""
    if x != x or y != y:
        return NAN
    return y if x < y else x


def minimum(x: float, y: float) -> float:
    """The smaller, nan if either is; at a tie of -0.0 and 0.0 the first, x, always (PyTorch's
    choice there depends on its code path, as for maximum)."""
    if x != x or y != y:
        return NAN
    return y if y < x else x


def clamp_min(x: float, low: float) -> float:
    """x, or low where x < low; nan where low is (x's nan passes), as PyTorch's clamp with
    a tensor limit: std::max(x, low), x itself at a tie."""
    return NAN if low != low else low if x < low else x


def clamp_max(x: float, high: float) -> float:
    """x, or high where high < x; nan where high is, as PyTorch's std::min(x, high)."""
    return NAN if high != high else high if high < x else x


def clamp_between(x: float, low: float, high: float) -> float:
    """x limited to [low, high]: high where low > high, nan where a limit is nan, as PyTorch's
    std::min(std::max(x, low), high)."""
    if low != low or high != high:
        return NAN
    return clamp_max(clamp_min(x, low), high)


def asin(x: float) -> float:
    """arcsin, nan outside [-1, 1]."""
    return math.asin(x) if -1.0 <= x <= 1.0 else NAN


def acos(x: float) -> float:
    """arccos, nan outside [-1, 1]."""
    return math.acos(x) if -1.0 <= x <= 1.0 else NAN


def atanh(x: float) -> float:
    """artanh: ±inf at ±1, nan beyond."""
    if -1.0 < x < 1.0:
        return math.atanh(x)
    return math.copysign(INF, x) if abs(x) == 1.0 else NAN


def acosh(x: float) -> float:
    """arcosh, nan below 1."""
    return math.acosh(x) if x >= 1.0 else NAN


# Sums of many floats, as the built-in sum adds them (left to right as a chain of + would; from
# Python 3.12 with compensation, a little more accurate), from -0.0: adding it changes nothing,
# not even the sign of a zero. In C, so that a fused node costs little more than its operands.


def total(*xs: float) -> float:
    """x1 + x2 + ... + xn."""
    return sum(xs, -0.0)


def log_sum_exp(*xs: float) -> float:
    """log(e^x1 + ... + e^xn), shifted by the largest x (by 0 where that is infinite), as
    PyTorch's logsumexp: no overflow for x of ±1000; nan if any x is."""
    if any(x != x for x in xs):
        return NAN
    top = max(xs, default=-INF)
    shift = 0.0 if math.isinf(top) else top
    return log(total(*[exp(x - shift) for x in xs])) + shift


def dot_of(ws: Sequence[float], xs: Sequence[float]) -> float:
    """w1 x1 + ... + wn xn."""
    return sum(map(operator.mul, ws, xs), -0.0)


def dot(*args: float) -> float:
    """w1 x1 + ... + wn xn for args w1 ... wn, x1 ... xn."""
    n = len(args) // 2
    return dot_of(args[:n], args[n:])


def affine(*args: float) -> float:
    """w1 x1 + ... + wn xn + b for args w1 ... wn, x1 ... xn, b."""
    n = len(args) // 2
    return dot_of(args[:n], args[n:-1]) + args[-1]


def neuron(*args: float) -> float:
    """relu(w1 x1 + ... + wn xn + b) for args w1 ... wn, x1 ... xn, b."""
    return relu(affine(*args))
