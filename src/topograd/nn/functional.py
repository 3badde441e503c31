"""Functions of Tensors used by models and losses, as ``torch.nn.functional``."""

from .activations import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    sigmoid,
    silu,
    softmax,
    softplus,
    tanh,
)
from .conv import avg_pool2d, conv2d, fold, max_pool2d, unfold
from .dropout import dropout
from .embedding import embedding
from .encoding import one_hot
from .layers import linear
from .normalization import batch_norm, layer_norm
from .tensor_losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    mse_loss,
    nll_loss,
)

__all__ = [
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv2d",
    "cross_entropy",
    "dropout",
    "elu",
    "embedding",
    "fold",
    "gelu",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "tanh",
    "unfold",
]
