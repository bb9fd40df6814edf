"""Run a model just far enough: until one attention module has run, recording what it used.

Forward hooks record the outputs of the modules asked for (the projections that make Q, K and
V), the keyword inputs of the attention module (Llama's rotary cos/sin) and its outputs; the
hook on the attention module then stops the model, so the layers after it never run. Imports
PyTorch: only the ``capture`` command imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch


class _Reached(Exception):
    """Raised by the attention module's hook: everything needed has been recorded."""


@dataclass
class Recorded:
    """What one run recorded: the named modules' outputs, the attention module's keyword
    inputs and its outputs (attention output, attention probabilities)."""

    outputs: dict[str, torch.Tensor] = field(default_factory=dict)
    attention_inputs: dict[str, object] = field(default_factory=dict)
    attention_output: torch.Tensor | None = None
    attention_weights: torch.Tensor | None = None


def run_to_attention(model: torch.nn.Module, input_ids: list[int], attention: torch.nn.Module,
                     record: dict[str, torch.nn.Module]) -> Recorded:
    """Run ``model`` on one sequence until ``attention`` has run; see the module's docstring."""
    recorded = Recorded()

    def keep_output(name: str):
        def hook(module, args, output):
            recorded.outputs[name] = output.detach()
        return hook

    def keep_inputs(module, args, kwargs):
        recorded.attention_inputs.update(kwargs)

    def stop(module, args, output):
        recorded.attention_output, recorded.attention_weights = output[0], output[1]
        raise _Reached

    handles = [module.register_forward_hook(keep_output(name)) for name, module in record.items()]
    handles.append(attention.register_forward_pre_hook(keep_inputs, with_kwargs=True))
    handles.append(attention.register_forward_hook(stop))
    try:
        with torch.inference_mode():
            # Not output_attentions=True: eager attention hands its probabilities to the hook
            # anyway, and asking would make the model keep every earlier layer's T × T too.
            model(input_ids=torch.tensor([input_ids]), use_cache=False)
    except _Reached:
        pass
    else:
        raise RuntimeError("the model finished without running the chosen layer's attention")
    finally:
        for handle in handles:
            handle.remove()
    if recorded.attention_weights is None:
        raise RuntimeError("the attention module returned no probabilities (not eager attention?)")
    return recorded


def as_numpy(tensor: torch.Tensor, batch: bool = True) -> np.ndarray:
    """A tensor as float64 NumPy (float32 values are exact in float64); ``batch``: drop the
    batch dimension of one sequence."""
    array = tensor.detach().to(device="cpu", dtype=torch.float64).numpy()
    return array[0] if batch else array
