# Dive into Deep Learning, 4.4 Softmax Regression Implementation from Scratch:
# the code of the section's PyTorch tab, cell by cell (jupytext's percent format: each
# "# %%" line starts one), as d2l.ai shows it.
# Source: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_linear-classification/softmax-regression-scratch.md
# (the book's source: d2lbook keeps a cell marked for pytorch or all, and the body of each
# `if tab.selected(...)` that names pytorch, as it builds the PyTorch notebook).
# Licence: the book's sample code, a modified MIT licence (no attribution required),
# Copyright 2019 Amazon.com, Inc. or its affiliates (LICENSE.d2l-samplecode).
# Changes, and nothing else:
# - the import lines (topograd in torch's place; "# was:" keeps the published line), and
#   %matplotlib inline left out; `from d2l import torch as d2l` finds d2l_torch.py beside
#   this file (d2l's library, the part of it these sections use: see its own header);
# - its data, Fashion-MNIST, cannot be downloaded here: d2l.FashionMNIST serves scikit-learn's
#   digits in its place, as 1x28x28 images (d2l_torch.py says how), so num_inputs=784 holds;
# - the last cell's data.visualize(...) (a plot of the misclassified images) left out;
# tests/test_programs.py runs it as published (each "# was:" line put back) and as here, cell
# by cell as Jupyter does, and compares what each cell prints and shows, and the losses the
# book would plot (model.board.data).

# %%
from d2l import torch as d2l
import topograd as torch  # was: import torch

# %%
X = d2l.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
d2l.reduce_sum(X, 0, keepdims=True), d2l.reduce_sum(X, 1, keepdims=True)

# %%
def softmax(X):
    X_exp = d2l.exp(X)
    partition = d2l.reduce_sum(X_exp, 1, keepdims=True)
    return X_exp / partition  # The broadcasting mechanism is applied here

# %%
X = d2l.rand((2, 5))
X_prob = softmax(X)
X_prob, d2l.reduce_sum(X_prob, 1)

# %%
class SoftmaxRegressionScratch(d2l.Classifier):
    def __init__(self, num_inputs, num_outputs, lr, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.W = torch.normal(0, sigma, size=(num_inputs, num_outputs),
                              requires_grad=True)
        self.b = torch.zeros(num_outputs, requires_grad=True)

    def parameters(self):
        return [self.W, self.b]

# %%
@d2l.add_to_class(SoftmaxRegressionScratch)
def forward(self, X):
    X = d2l.reshape(X, (-1, self.W.shape[0]))
    return softmax(d2l.matmul(X, self.W) + self.b)

# %%
y = d2l.tensor([0, 2])
y_hat = d2l.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
y_hat[[0, 1], y]

# %%
def cross_entropy(y_hat, y):
    return -d2l.reduce_mean(d2l.log(y_hat[list(range(len(y_hat))), y]))

cross_entropy(y_hat, y)

# %%
@d2l.add_to_class(SoftmaxRegressionScratch)
def loss(self, y_hat, y):
    return cross_entropy(y_hat, y)

# %%
data = d2l.FashionMNIST(batch_size=256)
model = SoftmaxRegressionScratch(num_inputs=784, num_outputs=10, lr=0.1)
trainer = d2l.Trainer(max_epochs=10)
trainer.fit(model, data)

# %%
X, y = next(iter(data.val_dataloader()))
preds = d2l.argmax(model(X), axis=1)
preds.shape

# %%
wrong = d2l.astype(preds, y.dtype) != y
X, y, preds = X[wrong], y[wrong], preds[wrong]
labels = [a+'\n'+b for a, b in zip(
    data.text_labels(y), data.text_labels(preds))]
