"""Functions of Tensors used by models and losses, as ``torch.nn.functional``."""

from ..tensor.functions import cross_entropy, linear, log_softmax, mse_loss, softmax

__all__ = ["cross_entropy", "linear", "log_softmax", "mse_loss", "softmax"]
