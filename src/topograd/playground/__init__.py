"""The playground: a page served by topograd itself where a user types an expression and its
values and watches the gradients flow."""
