"""Run a model just far enough: until the last attention module wanted has run, recording what
each one used.

A :class:`Site` names one layer's attention module, the modules whose outputs make its Q, K and
V (recorded by forward hooks), and, where the attention module's own output is not the
attention output before the residual (BERT's, Bloom's), the module whose output is. The
attention module's inputs (Llama's rotary cos/sin, the mask it was given) and its outputs are
recorded too; the hook on the last site then stops the model, so the layers after it never run.
One forward pass records any number of sites (``--layer all``). Imports PyTorch: only the
``capture`` command imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch


class _Reached(Exception):
    """Raised by the last site's hook: everything needed has been recorded."""


@dataclass
class Site:
    """Where one layer's attention is in the model, and what to record there."""

    attention: torch.nn.Module
    record: dict[str, torch.nn.Module]  # name → module whose output to keep ("q", "k", "qkv", …)
    output: torch.nn.Module | None = None  # whose output is the attention output (None: its own)
    weights_at: int = 1  # where the probabilities are in the module's outputs


@dataclass
class Recorded:
    """What one run recorded at one site: the named modules' outputs, the attention module's
    inputs (positional and keyword), its outputs, and the attention output before the residual."""

    outputs: dict[str, torch.Tensor] = field(default_factory=dict)
    attention_args: tuple = ()
    attention_inputs: dict[str, object] = field(default_factory=dict)
    attention_outputs: tuple = ()
    attention_output: torch.Tensor | None = None
    attention_weights: torch.Tensor | None = None


def run_to_attention(
    model: torch.nn.Module,
    input_ids: list[int],
    attention: torch.nn.Module,
    record: dict[str, torch.nn.Module],
) -> Recorded:
    """Run a decoder ``model`` on one sequence until ``attention`` has run."""

    def forward():
        return model(input_ids=torch.tensor([input_ids]), use_cache=False)

    return run_to_sites(forward, [Site(attention, record)])[0]


def run_to_sites(forward: Callable[[], object], sites: list[Site]) -> list[Recorded]:
    """Call ``forward`` (one run of the model) until every site's attention has run; one
    :class:`Recorded` per site, in order."""
    recorded = [Recorded() for _ in sites]
    handles = []

    def keep_output(into: Recorded, name: str):
        def hook(module, args, output):
            into.outputs[name] = output.detach()

        return hook

    def keep_inputs(into: Recorded):
        def hook(module, args, kwargs):
            into.attention_args = args
            into.attention_inputs.update(kwargs)

        return hook

    def stop_if_done(into: Recorded, last: bool) -> None:
        # the output module may run inside the attention module (Bloom) or after it (BERT)
        if last and into.attention_weights is not None and into.attention_output is not None:
            raise _Reached

    def keep_attention(into: Recorded, site: Site, last: bool):
        def hook(module, args, output):
            into.attention_outputs = output
            into.attention_weights = output[site.weights_at]
            if site.output is None:
                into.attention_output = output[0]
            stop_if_done(into, last)

        return hook

    def keep_attention_output(into: Recorded, last: bool):
        def hook(module, args, output):
            into.attention_output = output.detach()
            stop_if_done(into, last)

        return hook

    for number, (site, into) in enumerate(zip(sites, recorded)):
        last = number == len(sites) - 1
        handles += [
            module.register_forward_hook(keep_output(into, name))
            for name, module in site.record.items()
        ]
        handles.append(
            site.attention.register_forward_pre_hook(keep_inputs(into), with_kwargs=True)
        )
        handles.append(site.attention.register_forward_hook(keep_attention(into, site, last)))
        if site.output is not None:
            handles.append(site.output.register_forward_hook(keep_attention_output(into, last)))
    try:
        with torch.inference_mode():
            # Not output_attentions=True: eager attention hands its probabilities to the hook
            # anyway, and asking would make the model keep every earlier layer's T × T too.
            forward()
    except _Reached:
        pass
    else:
        raise RuntimeError("the model finished without running the chosen layer's attention")
    finally:
        for handle in handles:
            handle.remove()
    for into in recorded:
        if into.attention_weights is None:
            raise RuntimeError(
                "the attention module returned no probabilities (not eager attention?)"
            )
    return recorded


def as_numpy(tensor: torch.Tensor, batch: bool = True) -> np.ndarray:
    """A tensor as float64 NumPy (float32 values are exact in float64); ``batch``: drop the
    batch dimension of one sequence."""
    array = tensor.detach().to(device="cpu", dtype=torch.float64).numpy()
    return array[0] if batch else array


def weights_of(recorded: Recorded) -> np.ndarray:
    """The model's attention probabilities (H, T_q, T_k), as float32: the model's own values,
    compared with float64 ones without a float64 copy of them (12.6 MB a layer at T = 512)."""
    return recorded.attention_weights[0].detach().to(torch.float32).numpy()


def visible_from_mask(mask) -> np.ndarray | None:
    """Which keys each query may see under an additive or boolean attention mask of shape
    (1, 1 or H, T_q, T_k) (None: no mask was given, so every key is seen; returned as None).
    Every layer is usually handed the same mask: it is converted once."""
    if mask is None or not isinstance(mask, torch.Tensor):
        return None
    if _last_mask[0] is not mask:
        first = mask.detach()[0, 0]
        seen = first if first.dtype == torch.bool else first > torch.finfo(first.dtype).min / 2
        _last_mask[:] = [mask, seen.numpy().copy()]
    return _last_mask[1]


_last_mask: list = [None, None]  # the last mask converted, and what it lets be seen
