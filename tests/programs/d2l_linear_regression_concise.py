# Dive into Deep Learning, 3.5 Concise Implementation of Linear Regression:
# the code of the section's PyTorch tab, cell by cell (jupytext's percent format: each
# "# %%" line starts one), as d2l.ai shows it.
# Source: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_linear-regression/linear-regression-concise.md
# (the book's source: d2lbook keeps a cell marked for pytorch or all, and the body of each
# `if tab.selected(...)` that names pytorch, as it builds the PyTorch notebook).
# Licence: the book's sample code, a modified MIT licence (no attribution required),
# Copyright 2019 Amazon.com, Inc. or its affiliates (LICENSE.d2l-samplecode).
# Changes, and nothing else:
# - the import lines (topograd in torch's place; "# was:" keeps the published line), and
#   %matplotlib inline left out; `from d2l import torch as d2l` finds d2l_torch.py beside
#   this file (d2l's library, the part of it these sections use: see its own header);
# tests/test_programs.py runs it as published (each "# was:" line put back) and as here, cell
# by cell as Jupyter does, and compares what each cell prints and shows, and the losses the
# book would plot (model.board.data).

# %%
from d2l import torch as d2l
import numpy as np
import topograd as torch  # was: import torch
from topograd import nn  # was: from torch import nn

# %%
class LinearRegression(d2l.Module):  #@save
    """The linear regression model implemented with high-level APIs."""
    def __init__(self, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.LazyLinear(1)
        self.net.weight.data.normal_(0, 0.01)
        self.net.bias.data.fill_(0)

# %%
@d2l.add_to_class(LinearRegression)  #@save
def forward(self, X):
    return self.net(X)

# %%
@d2l.add_to_class(LinearRegression)  #@save
def loss(self, y_hat, y):
    fn = nn.MSELoss()
    return fn(y_hat, y)

# %%
@d2l.add_to_class(LinearRegression)  #@save
def configure_optimizers(self):
    return torch.optim.SGD(self.parameters(), self.lr)

# %%
model = LinearRegression(lr=0.03)
data = d2l.SyntheticRegressionData(w=d2l.tensor([2, -3.4]), b=4.2)
trainer = d2l.Trainer(max_epochs=3)
trainer.fit(model, data)

# %%
@d2l.add_to_class(LinearRegression)  #@save
def get_w_b(self):
    return (self.net.weight.data, self.net.bias.data)

w, b = model.get_w_b()

# %%
print(f'error in estimating w: {data.w - d2l.reshape(w, data.w.shape)}')
print(f'error in estimating b: {data.b - b}')
