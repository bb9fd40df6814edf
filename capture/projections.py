"""Taking a layer's recorded projections apart into heads, and its output projection into Wo:
what most families share. Imports PyTorch (through run_to_layer): only capture uses it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from attn_tui.capture.captured_layer import CapturedLayer
from attn_tui.capture.run_to_layer import Recorded, as_numpy, visible_from_mask, weights_of


@dataclass(frozen=True)
class Run:
    """What the model was run on, as the families need to know it."""

    part: str  # "decoder", "encoder" or "cross"
    padding: tuple[int, ...] | None = None  # per key of the text: 1 = padding, never attended


def by_head(columns: np.ndarray, d: int) -> np.ndarray:
    """(T, n·d) columns as (n, T, d): head h is columns h·d … (h + 1)·d."""
    T, width = columns.shape
    return columns.reshape(T, width // d, d).transpose(1, 0, 2)


def interleaved_qkv(columns: np.ndarray, heads: int, d: int) -> tuple[np.ndarray, ...]:
    """A fused projection laid out head by head, each head's q, k and v side by side (GPT-NeoX,
    Bloom: the (T, H, 3, d) view): Q, K and V as (H, T, d) each."""
    T = columns.shape[0]
    per_head = columns.reshape(T, heads, 3, d).transpose(2, 1, 0, 3)
    return per_head[0], per_head[1], per_head[2]


def linear_wo(linear: torch.nn.Module) -> tuple[np.ndarray, np.ndarray | None]:
    """An nn.Linear output projection (x·Wᵀ + b) as Wo = Wᵀ and bo."""
    bias = getattr(linear, "bias", None)
    return (
        as_numpy(linear.weight, batch=False).T,
        None if bias is None else as_numpy(bias, batch=False),
    )


def separate(recorded: Recorded, d: int, names=("q", "k", "v")) -> tuple[np.ndarray, ...]:
    """Q, K and V from three recorded projections, each split into heads of ``d`` columns."""
    return tuple(by_head(as_numpy(recorded.outputs[name]), d) for name in names)


def layer(
    family: str,
    recorded: Recorded,
    Q,
    K,
    V,
    wo: torch.nn.Module,
    divisor: float,
    inputs: str,
    mask=None,
    **fields,
) -> CapturedLayer:
    """A CapturedLayer with the model's own weights and output from ``recorded``; ``mask`` is
    the mask tensor the model gave the attention module (to compare the declared mask with)."""
    Wo, bo = linear_wo(wo)
    return CapturedLayer(
        family=family,
        Q=Q,
        K=K,
        V=V,
        Wo=Wo,
        bo=bo,
        divisor=divisor,
        model_weights=weights_of(recorded),
        model_output=as_numpy(recorded.attention_output),
        model_visible=visible_from_mask(mask),
        inputs=inputs,
        **fields,
    )


def given_mask(recorded: Recorded, name: str = "attention_mask"):
    """The mask the attention module was given, by keyword."""
    return recorded.attention_inputs.get(name)
