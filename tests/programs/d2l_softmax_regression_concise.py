# Dive into Deep Learning, 4.5 Concise Implementation of Softmax Regression:
# the code of the section's PyTorch tab, cell by cell (jupytext's percent format: each
# "# %%" line starts one), as d2l.ai shows it.
# Source: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_linear-classification/softmax-regression-concise.md
# (the book's source: d2lbook keeps a cell marked for pytorch or all, and the body of each
# `if tab.selected(...)` that names pytorch, as it builds the PyTorch notebook).
# Licence: the book's sample code, a modified MIT licence (no attribution required),
# Copyright 2019 Amazon.com, Inc. or its affiliates (LICENSE.d2l-samplecode).
# Changes, and nothing else:
# - the import lines (topograd in torch's place; "# was:" keeps the published line), and
#   %matplotlib inline left out; `from d2l import torch as d2l` finds d2l_torch.py beside
#   this file (d2l's library, the part of it these sections use: see its own header);
# - its data, Fashion-MNIST, cannot be downloaded here: d2l.FashionMNIST serves scikit-learn's
#   digits in its place, as 1x28x28 images (d2l_torch.py says how);
# tests/test_programs.py runs it as published (each "# was:" line put back) and as here, cell
# by cell as Jupyter does, and compares what each cell prints and shows, and the losses the
# book would plot (model.board.data).

# %%
from d2l import torch as d2l
import topograd as torch  # was: import torch
from topograd import nn  # was: from torch import nn
from topograd.nn import functional as F  # was: from torch.nn import functional as F

# %%
class SoftmaxRegression(d2l.Classifier):  #@save
    """The softmax regression model."""
    def __init__(self, num_outputs, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Flatten(),
                                 nn.LazyLinear(num_outputs))

    def forward(self, X):
        return self.net(X)

# %%
@d2l.add_to_class(d2l.Classifier)  #@save
def loss(self, Y_hat, Y, averaged=True):
    Y_hat = d2l.reshape(Y_hat, (-1, Y_hat.shape[-1]))
    Y = d2l.reshape(Y, (-1,))
    return F.cross_entropy(
        Y_hat, Y, reduction='mean' if averaged else 'none')

# %%
data = d2l.FashionMNIST(batch_size=256)
model = SoftmaxRegression(num_outputs=10, lr=0.1)
trainer = d2l.Trainer(max_epochs=10)
trainer.fit(model, data)
