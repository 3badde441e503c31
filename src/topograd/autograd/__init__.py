"""The autograd core, data-agnostic: the op registry (``registry``), the data kinds that run
its ops (``kinds``), the backward engine (``engine``) and the grad modes (``modes``)."""
