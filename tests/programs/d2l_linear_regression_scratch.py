# Dive into Deep Learning, 3.4 Linear Regression Implementation from Scratch:
# the code of the section's PyTorch tab, cell by cell (jupytext's percent format: each
# "# %%" line starts one), as d2l.ai shows it.
# Source: https://github.com/d2l-ai/d2l-en/blob/23d7a5aecceee57d1292c56e90cce307f183bb0a/chapter_linear-regression/linear-regression-scratch.md
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
import topograd as torch  # was: import torch

# %%
class LinearRegressionScratch(d2l.Module):  #@save
    """The linear regression model implemented from scratch."""
    def __init__(self, num_inputs, lr, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.w = d2l.normal(0, sigma, (num_inputs, 1), requires_grad=True)
        self.b = d2l.zeros(1, requires_grad=True)

# %%
@d2l.add_to_class(LinearRegressionScratch)  #@save
def forward(self, X):
    return d2l.matmul(X, self.w) + self.b

# %%
@d2l.add_to_class(LinearRegressionScratch)  #@save
def loss(self, y_hat, y):
    l = (y_hat - y) ** 2 / 2
    return d2l.reduce_mean(l)

# %%
class SGD(d2l.HyperParameters):  #@save
    """Minibatch stochastic gradient descent."""
    def __init__(self, params, lr):
        self.save_hyperparameters()

    def step(self):
        for param in self.params:
            param -= self.lr * param.grad

    def zero_grad(self):
        for param in self.params:
            if param.grad is not None:
                param.grad.zero_()

# %%
@d2l.add_to_class(LinearRegressionScratch)  #@save
def configure_optimizers(self):
    return SGD([self.w, self.b], self.lr)

# %%
@d2l.add_to_class(d2l.Trainer)  #@save
def prepare_batch(self, batch):
    return batch

# %%
@d2l.add_to_class(d2l.Trainer)  #@save
def fit_epoch(self):
    self.model.train()        
    for batch in self.train_dataloader:        
        loss = self.model.training_step(self.prepare_batch(batch))
        self.optim.zero_grad()
        with torch.no_grad():
            loss.backward()
            if self.gradient_clip_val > 0:  # To be discussed later
                self.clip_gradients(self.gradient_clip_val, self.model)
            self.optim.step()
        self.train_batch_idx += 1
    if self.val_dataloader is None:
        return
    self.model.eval()
    for batch in self.val_dataloader:
        with torch.no_grad():            
            self.model.validation_step(self.prepare_batch(batch))
        self.val_batch_idx += 1

# %%
model = LinearRegressionScratch(2, lr=0.03)
data = d2l.SyntheticRegressionData(w=d2l.tensor([2, -3.4]), b=4.2)
trainer = d2l.Trainer(max_epochs=3)
trainer.fit(model, data)

# %%
with torch.no_grad():
    print(f'error in estimating w: {data.w - d2l.reshape(model.w, data.w.shape)}')
    print(f'error in estimating b: {data.b - model.b}')
