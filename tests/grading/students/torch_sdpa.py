# PyTorch's own scaled_dot_product_attention with a boolean mask (True = may attend): a row whose
# every key is hidden gets weights and output 0 (PyTorch 2.5 and later).
import torch.nn.functional as F


def attention(q, k, v, attn_mask=None):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
