# "Learning PyTorch with Examples": PyTorch: Tensors (a polynomial fit, gradients by hand).
# Source: https://github.com/pytorch/tutorials/blob/4fe88118795089fb1d5d4b1e91834ea6e31f67e4/beginner_source/examples_tensor/polynomial_tensor.py
# Licence: BSD 3-Clause, Copyright (c) 2017-2022, Pytorch contributors (LICENSE.pytorch-tutorials).
# Changes: the import line (topograd in torch's place; "# was:" keeps the published line).
# tests/test_programs.py runs it as published and as here, and compares what it prints.
# -*- coding: utf-8 -*-
"""
PyTorch: Tensors
----------------

A third order polynomial, trained to predict :math:`y=\sin(x)` from :math:`-\pi`
to :math:`\pi` by minimizing squared Euclidean distance.

This implementation uses PyTorch tensors to manually compute the forward pass,
loss, and backward pass.

A PyTorch Tensor is basically the same as a numpy array: it does not know
anything about deep learning or computational graphs or gradients, and is just
a generic n-dimensional array to be used for arbitrary numeric computation.

The biggest difference between a numpy array and a PyTorch Tensor is that
a PyTorch Tensor can run on either CPU or GPU. To run operations on the GPU,
just cast the Tensor to a cuda datatype.

.. note::
    This example is designed to demonstrate the mechanics of gradient descent and
    backpropagation, not to achieve a perfect fit. A third-degree polynomial has
    fundamental limitations in approximating :math:`\sin(x)` over the range
    :math:`[-\pi, \pi]`. The Taylor series for sine requires higher-order terms
    (5th, 7th degree, etc.) for better accuracy. The resulting polynomial will
    fit reasonably well near zero but will diverge from :math:`\sin(x)` as you
    approach :math:`\pm\pi`. This is expected and illustrates the importance of
    choosing an appropriate model architecture for your problem.
"""

import topograd as torch  # was: import torch
import math


dtype = torch.float
device = torch.device("cpu")
# device = torch.device("cuda:0") # Uncomment this to run on GPU

# Create random input and output data
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

# Randomly initialize weights
a = torch.randn((), device=device, dtype=dtype)
b = torch.randn((), device=device, dtype=dtype)
c = torch.randn((), device=device, dtype=dtype)
d = torch.randn((), device=device, dtype=dtype)

learning_rate = 1e-6
for t in range(2000):
    # Forward pass: compute predicted y
    y_pred = a + b * x + c * x ** 2 + d * x ** 3

    # Compute and print loss
    loss = (y_pred - y).pow(2).sum().item()
    if t % 100 == 99:
        print(t, loss)

    # Backprop to compute gradients of a, b, c, d with respect to loss
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()

    # Update weights using gradient descent
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d


print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
