"""Seeing the gradients flow: the backward trace and the graph as DOT or SVG."""
