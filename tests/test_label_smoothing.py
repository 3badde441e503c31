"""Label smoothing in cross_entropy and CrossEntropyLoss, as PyTorch 2.13 takes it: any value
up to 1 (a negative one, -inf or nan smooths nothing: the plain loss), above 1 refused in
PyTorch's words, with class indices and class probabilities, the function and the module,
against PyTorch's values and gradients. (Every option with every other: ``test_nn_losses``.)"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as TF  # noqa: N812 - PyTorch's own abbreviation
from hypothesis import given
from hypothesis import strategies as st
from test_nn_layers import against_torch
from test_nn_losses import SMOOTHINGS, Classes, call, classes, twin

import topograd as tg

F = tg.nn.functional


@given(
    smoothing=st.one_of(
        st.sampled_from([1.5, 2.0, 1e300, math.inf]), st.floats(1.0, 1e9, exclude_min=True)
    ),
    probabilities=st.booleans(),
    module=st.booleans(),
)
def test_a_label_smoothing_above_one_is_refused_as_pytorchs(
    smoothing: float, probabilities: bool, module: bool
) -> None:
    z = np.zeros((2, 3))
    target = np.full((2, 3), 1 / 3) if probabilities else np.array([0, 2])

    def loss(lib: Any, layers: Any) -> Any:
        if module:  # the module takes it, and refuses it when called, as PyTorch's
            return call(layers, "CrossEntropyLoss", label_smoothing=smoothing)(
                *(twin(a) if lib is TF else tg.Tensor(a) for a in (z, target))
            )
        return call(
            lib,
            "cross_entropy",
            twin(z) if lib is TF else tg.Tensor(z),
            target,
            label_smoothing=smoothing,
        )

    with pytest.raises(RuntimeError) as theirs:
        loss(TF, torch.nn)
    with pytest.raises(RuntimeError) as ours:
        loss(F, tg.nn)
    assert str(ours.value) == str(theirs.value)


@given(case=classes(), smoothing=SMOOTHINGS, probabilities=st.booleans())
def test_cross_entropy_loss_takes_pytorchs_label_smoothings(
    case: Classes, smoothing: float, probabilities: bool
) -> None:
    """The module, as its function: values and gradients, a negative smoothing too."""
    target = case.probabilities if probabilities else case.target
    ours = tg.nn.CrossEntropyLoss(label_smoothing=smoothing)
    theirs = torch.nn.CrossEntropyLoss(label_smoothing=smoothing)
    wanted = tg.Tensor(target) if probabilities else target
    against_torch(
        lambda z: ours(z, wanted),
        lambda z: theirs(z, torch.tensor(target)),
        [case.scores],
        second=False,
    )
