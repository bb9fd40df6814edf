# PyTorch's own mask convention: a bool mask, True where a key is hidden, given to masked_fill.
import torch


def attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
