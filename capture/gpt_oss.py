"""gpt-oss: Llama's attention (see capture.llama) with learned attention sinks, biases on every
projection, and every other layer sliding (``layer_types``: ``sliding_attention`` on the even
layers by default, ``sliding_window`` tokens).

Each head h has a learned sink logit s_h (the module's ``sinks``): the model appends it to every
row of that head's scaled, masked scores, softmaxes the row with it and drops its column, so a
row's weights sum to less than 1 and the rest blends no value. The scenario writes them as
``sinks:``, the Softmax stage's extra column. The model's rotary cos and sin have one column per
pair (d/2, not d as Llama's): rotate-half pairs all the same, so they are widened to Llama's
layout before capture.rotary reads them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from attn_tui.capture import llama
from attn_tui.capture.projections import Run
from attn_tui.capture.run_to_layer import as_numpy

NAME = "gpt-oss"
sites = llama.sites


def layer(model, number: int, recorded, run: Run):
    attention = model.layers[number].self_attn
    cos, sin = recorded.attention_inputs["position_embeddings"]
    widened = dataclasses.replace(
        recorded,
        attention_inputs={
            **recorded.attention_inputs,
            "position_embeddings": (torch.cat([cos, cos], -1), torch.cat([sin, sin], -1)),
        },
    )
    captured = llama.decoder_layer(
        NAME, model, number, widened, window=getattr(attention, "sliding_window", None)
    )
    captured.sinks = np.asarray(as_numpy(attention.sinks, batch=False), dtype=np.float64)
    captured.notes.append(
        "Each head has a learned attention sink (sinks:): one more logit in every row's "
        "softmax, whose share is then dropped, so a row's weights sum to less than 1."
    )
    return captured
