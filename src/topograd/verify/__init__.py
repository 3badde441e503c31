"""Checking gradients: central differences and Richardson extrapolation, gradcheck that names
the faulty rule, and the check of every op of the registry."""
