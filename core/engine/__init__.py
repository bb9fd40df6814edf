"""The computation: the stage registry, attention by blocks, the backward pass, training,
float64's range."""
