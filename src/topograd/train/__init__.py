"""Training: small 2-D datasets in pure Python (``datasets``, also ``tg.datasets``),
micrograd's demo recipe on either engine (``recipe``), the digits on Tensors (``digits``) and
the pictures of a run (``plots``, with matplotlib). Nothing is imported here, so that
``tg.datasets`` loads no NumPy."""
