# PyTorch: a module whose forward takes a mask of 1 = blocked, returns (weights, out), float32.
import math

import torch


class Attention(torch.nn.Module):
    def forward(self, q, k, v, mask=None):
        q, k, v = q.float(), k.float(), v.float()
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(mask == 1, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights, weights @ v
