"""PyTorch's spelling: each program below is written as a PyTorch user writes it, against a
module named ``torch``, and runs twice: with PyTorch 2.13, and with ``topograd`` in its place.
The numbers (and the gradients) must agree. Only the inputs are made outside, since
``torch.tensor`` has no topograd twin yet (``tg.Tensor(data, requires_grad=True)``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch as real_torch

import topograd

X = np.array([[1.0, 5.0, 2.0, -1.5], [3.0, -2.0, 4.0, 0.5], [0.25, 2.0, 2.0, -3.0]])


def reductions(torch: Any, x: Any) -> list[Any]:
    parts = [
        x.sum(dim=0),
        x.sum(dim=1, keepdim=True),
        x.mean(dim=-1),
        x.var(dim=1),
        x.std(dim=0, correction=0),
        x.logsumexp(dim=1),
        x.cumsum(dim=1),
        x.max(dim=1).values,
        x.min(dim=0, keepdim=True).values,
        x.max(),
        x.min(),
        x.sum(),
    ]
    loss = sum((p * (k + 1)).sum() for k, p in enumerate(parts))
    loss.backward()
    return [*parts, x.grad]


def indices_and_truths(torch: Any, x: Any) -> list[Any]:
    return [
        x.max(dim=1).indices,
        x.min(dim=0)[1],
        x.argmax(),
        x.argmin(dim=0),
        x.argmax(dim=1, keepdim=True),
        (x > 2).any(dim=1),
        (x > -5).all(),
        x == x,
        x != 2.0,
        x.numel(),
        x.size(1),
        tuple(x.size()),
    ]


def creation(torch: Any, x: Any) -> list[Any]:
    z = torch.zeros(2, 3)
    w = torch.ones(3).requires_grad_()
    (w * 2.0).sum().backward()
    return [
        z,
        torch.ones((2,)),
        torch.full((2, 2), 1.5),
        torch.eye(3),
        torch.arange(5.0),  # (whole numbers give int64 in PyTorch, float64 here)
        torch.arange(1, 2, 0.25),
        torch.linspace(0, 1, 5),
        torch.zeros_like(z),
        torch.ones_like(x),
        w.grad,
        torch.randn(2, 3).shape,
        torch.rand(4, generator=torch.Generator().manual_seed(0)).shape,
    ]


def shapes(torch: Any, x: Any) -> list[Any]:
    cube = x.view(3, 2, 2)
    picks = PICKS if torch is topograd else real_torch.tensor(PICKS)
    parts = [
        cube.permute(2, 0, 1),
        x.view(-1, 6),
        cube.flatten(1),
        x.flatten(),
        x.unsqueeze(1).squeeze(),
        x.unsqueeze(-1),
        x[:1].expand(3, -1),
        x.repeat(2, 1, 2),
        x.flip(0),
        x.flip(0, 1),
        x.roll(1, 1),
        x.roll((1, -2), (0, 1)),
        x.roll(5),
        *x.split(3, dim=1),
        *x.split([1, 2], dim=0),
        *x.chunk(3, dim=1),
        x.tril(),
        x.triu(1),
        x.tril(-1),
        cube.diagonal(),
        x.diagonal(1),
        cube.diagonal(0, 1, 2),
        x.gather(1, picks),
    ]
    loss = sum((p * (k + 1)).sum() for k, p in enumerate(parts))
    loss.backward()
    return [*parts, x.grad]


PICKS = np.array([[0, 0, 3], [1, 2, 2], [3, 3, 0]])


def functions(torch: Any, x: Any) -> list[Any]:
    """Elementwise functions, pairwise ops, products and contractions, casts."""
    F = torch.nn.functional  # noqa: N806 - PyTorch's own abbreviation
    y = x[:, :2]
    parts = [
        torch.maximum(x, x.flip(0)),
        torch.minimum(x, torch.zeros_like(x)),
        x.maximum(x.roll(1, 1)),
        torch.exp(x * 0.1),
        torch.sin(x) + torch.tanh(x),
        torch.asin(x * 0.2) + torch.acos(x * 0.1) + torch.atanh(x * 0.15),
        torch.acosh(x.abs() + 1.5) + torch.asinh(x) + torch.atan(x),
        F.gelu(x),
        F.gelu(x, approximate="tanh"),
        F.silu(x),
        F.elu(x),
        F.elu(x, alpha=0.5),
        F.softplus(x),
        x.sign() * x.abs(),
        x.prod(),
        x.prod(dim=1),
        x.prod(0, keepdim=True),
        torch.einsum("ij,jk->ik", y.t(), x),
        torch.einsum("ij->j", x),
        torch.einsum("ii", x[:, :3]),
        torch.einsum("ii->i", x[:, :3]),
        torch.einsum("...j,j->...", x, x[0]),
        torch.einsum("bi,oij,bj->bo", y, x.reshape(2, 2, 3)[:, :, :2], y),
        torch.einsum("i,j", x[0], x[1]),
        torch.outer(x[0], x[1]),
        torch.tensordot(x, x.t(), dims=1),
        torch.tensordot(x, x, dims=2),
        torch.tensordot(x, x, dims=([0], [0])),
        x.double() * 2,
        x.to(torch.float64).clamp(min=-1.0),
    ]
    loss = sum((p * (k + 1)).sum() for k, p in enumerate(parts))
    loss.backward()
    return [*parts, x.grad]


def network(torch: Any, x: Any) -> list[Any]:
    """A small network of nn's layers, initialised, trained one step and evaluated: Embedding,
    Linear, LayerNorm, BatchNorm1d, GELU, Dropout, the losses, init, train/eval, state_dict."""
    nn, F = torch.nn, torch.nn.functional  # noqa: N806 - PyTorch's own abbreviation

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(5, 4, padding_idx=0)
            self.fc1 = nn.Linear(4, 6)
            self.norm = nn.LayerNorm(6)
            self.bn = nn.BatchNorm1d(6)
            self.act = nn.GELU()
            self.drop = nn.Dropout(p=0.0)
            self.fc2 = nn.Linear(6, 3)

        def forward(self, x: Any, ids: Any) -> Any:
            h = self.norm(self.fc1(x + self.embed(ids)))
            return self.fc2(self.drop(self.act(self.bn(h))))

    def init(m: Any) -> None:
        if isinstance(m, (nn.Linear, nn.Embedding)):
            with torch.no_grad():
                m.weight.copy_(torch.linspace(-1.0, 1.0, m.weight.numel()).reshape(m.weight.shape))
        if isinstance(m, nn.Linear):
            nn.init.zeros_(m.bias)

    net = Net().double()
    net.apply(init)
    nn.init.constant_(net.norm.weight, 1.5)
    # (torch.tensor of integers gives int64; topograd's tensor asks for it by dtype)
    ids, targets = (
        topograd.tensor(a, dtype=topograd.int64) if torch is topograd else real_torch.tensor(a)
        for a in (IDS, TARGETS)
    )
    inputs = x * 0.5
    logits = net(inputs, ids)
    probabilities = torch.sigmoid(x[:, 0].detach())
    loss = (
        nn.CrossEntropyLoss(label_smoothing=0.1)(logits, targets)
        + F.nll_loss(F.log_softmax(logits, dim=1), targets, reduction="sum") * 0.5
        + F.binary_cross_entropy_with_logits(logits[:, 0], probabilities)
        + nn.MSELoss()(logits, torch.zeros_like(logits))
    )
    loss.backward()
    grads = [net.fc1.weight.grad, net.embed.weight.grad, net.bn.weight.grad, x.grad]
    torch.optim.SGD(net.parameters(), lr=0.1).step()
    net.eval()
    evaluated = F.softmax(net(inputs, ids), dim=1)
    running = [net.bn.running_mean, net.bn.running_var, net.bn.num_batches_tracked]
    return [loss, logits, *grads, *running, evaluated, tuple(net.state_dict())]


def attention(torch: Any, x: Any) -> list[Any]:
    """Causal self-attention and a custom autograd.Function, in torch's function spellings:
    torch.tril, torch.matmul, torch.softmax, torch.cat, torch.sum(x, dim), torch.max(a, b),
    masked_fill, var(dim, unbiased), torch.autograd.Function and torch.autograd.grad."""

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (a,) = ctx.saved_tensors
            return 2 * a * grad

    q, k = x[:, :2], x[:, 2:]
    scores = torch.matmul(q, k.transpose(0, 1)) / 2.0
    mask = torch.tril(torch.ones(3, 3)) == 0
    weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    mixed = torch.cat([weights @ k, torch.max(q, k)], dim=1)
    spread = mixed.var(1, False) + torch.sum(Square.apply(mixed), dim=0).mean()
    (g,) = torch.autograd.grad(spread.sum(), x, create_graph=True)
    (g * g).sum().backward()
    return [weights, mixed, spread, g, x.grad, torch.triu(x, 1), torch.t(k), torch.mean(x, 0)]


IDS, TARGETS = np.array([1, 0, 3]), np.array([2, 0, 1])


def numbers(found: Any) -> Any:
    if hasattr(found, "detach"):  # PyTorch's
        return found.detach().numpy()
    if isinstance(found, topograd.Tensor):
        return found.data
    return found


@pytest.mark.parametrize(
    "program", [reductions, indices_and_truths, creation, shapes, functions, network, attention]
)
def test_a_program_in_pytorchs_spelling_runs_on_topograd(program: Any) -> None:
    theirs = program(real_torch, real_torch.tensor(X, requires_grad=True))
    ours = program(topograd, topograd.Tensor(X, requires_grad=True))
    assert len(ours) == len(theirs)
    for k, (mine, their) in enumerate(zip(ours, theirs, strict=True)):
        a, b = numbers(mine), numbers(their)
        if isinstance(b, (int, tuple, real_torch.Size)):
            assert a == tuple(b) if isinstance(b, real_torch.Size) else a == b, (k, a, b)
            continue
        assert np.shape(a) == np.shape(b), (program.__name__, k)
        if np.asarray(b).dtype == bool or np.asarray(b).dtype.kind == "i":
            assert np.asarray(a).dtype == np.asarray(b).dtype, (program.__name__, k)
            np.testing.assert_array_equal(a, b)
        else:  # PyTorch's float32 where no dtype is given, topograd's float64: float32's
            # rounding (6e-8) over a network's sums of up to 32 terms, in whatever order the
            # CPU's kernels add them: 1e-5 relative, 1e-6 where the sums cancel toward 0
            np.testing.assert_allclose(
                a, b, rtol=1e-5, atol=1e-6, err_msg=f"{program.__name__} {k}"
            )


def test_variance_with_no_degrees_of_freedom_left_is_pytorchs() -> None:
    x = np.array([1.0, 2.0, 4.0])
    theirs = real_torch.tensor(x, requires_grad=True)
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        their_var = real_torch.var(theirs, dim=0, correction=3)
    their_var.backward()
    ours = topograd.Tensor(x, requires_grad=True)
    found = ours.var(dim=0, correction=3)
    found.backward()
    assert found.item() == their_var.item() == float("inf")
    assert ours.grad is not None and theirs.grad is not None
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())  # -inf, -inf, inf


def test_both_spellings_at_once_are_refused() -> None:
    x = topograd.Tensor(X)
    with pytest.raises(TypeError, match=r"give axis .* or dim .*, not both"):
        x.sum(axis=0, dim=1)
    with pytest.raises(TypeError, match=r"give keepdims .* or keepdim .*, not both"):
        x.mean(keepdims=True, keepdim=True)


SHAPE_REFUSALS = [
    (lambda x: x.permute(0, 0), ValueError, r"permute\(\): \(0, 0\) is not an order of 2 axes"),
    (lambda x: x.split([1, 1], dim=0), ValueError, r"sizes \[1, 1\] do not add up to 3"),
    (lambda x: x.gather(1, np.full((3, 1), 0.5)), RuntimeError, "Expected dtype int32/int64"),
    (lambda x: x.gather(1, np.zeros(3, dtype=int)), ValueError, "as many axes as the Tensor"),
    (lambda x: x.expand(4), ValueError, r"expand\(\): 1 sizes for a Tensor of 2 axes"),
    (lambda x: x.repeat(2), ValueError, "at least as many repeats as the Tensor has axes"),
    (lambda x: x[0].tril(), ValueError, "two axes or more"),
    (lambda x: x.diagonal(0, 1, 1), ValueError, "dim1 and dim2 must differ"),
    (lambda x: x.flatten(1, 0), ValueError, "start_dim cannot come after end_dim"),
    (lambda x: x.unsqueeze(3), np.exceptions.AxisError, "axis 3 is out of bounds"),
]


@pytest.mark.parametrize(("call", "error", "message"), SHAPE_REFUSALS)
def test_shape_methods_refuse_what_pytorch_refuses(call: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call(topograd.Tensor(X))


def test_std_of_constant_data_has_a_zero_gradient_as_in_pytorch() -> None:
    """sqrt's derivative at 0 is inf; PyTorch's std gives 0 there, and so does topograd's."""
    data = np.array([[1.0, 1.0, 1.0], [2.0, 0.5, 1.0]])
    ours = topograd.Tensor(data, requires_grad=True)
    theirs = real_torch.tensor(data, requires_grad=True)
    ours.std(dim=1).sum().backward()
    theirs.std(dim=1).sum().backward()
    assert ours.grad is not None and theirs.grad is not None
    np.testing.assert_array_equal(ours.grad[0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-15)


def test_pytorchs_spellings_that_numpy_reads_otherwise() -> None:
    """x.max(1) is PyTorch's (values, indices); dim=() is every axis; out-of-range dims and
    indices are refused, as PyTorch refuses them."""
    x = topograd.Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    values, indices = x.max(1)
    assert values.tolist() == [2.0, 5.0] and indices.tolist() == [2, 2]
    assert x.max(axis=1).tolist() == [2.0, 5.0]  # NumPy's spelling: the values
    assert x.sum(dim=()).item() == 15.0 == real_torch.arange(6.0).reshape(2, 3).sum(dim=()).item()
    with pytest.raises(np.exceptions.AxisError):
        x.max(dim=2)
    with pytest.raises(IndexError, match="index -1 is out of bounds for dim 0 of size 2"):
        x.gather(0, np.array([[-1, 0, 0]]))
    picks = topograd.tensor([[2], [0]], dtype=topograd.int64)  # as torch.tensor([[2], [0]])
    assert x.gather(1, picks).tolist() == [[2.0], [3.0]]
    assert np.isnan(topograd.Tensor([0.5, 2.0]).clamp(float("nan"), 1.0).data).all()
