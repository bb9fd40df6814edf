"""Greedy decoding, recorded: the tokens a model generates from a prompt (as
``model.generate(do_sample=False)`` chooses them, with its KV cache), the probability the model
gave each, and what the captured layers' attention saw at every step.

The scenario of a layer is then captured from one full pass over the prompt and the generated
tokens (as for any text); each step's row of weights as the KV cache saw it must equal that
pass's row, which :func:`cache_difference` measures. Imports PyTorch: only capture uses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from attn_tui.capture.errors import CaptureError


@dataclass
class Generated:
    """What greedy decoding gave: the tokens chosen (their ids), the probability the model gave
    each when it chose it, and, per recorded attention module, every call's probabilities
    (1 × H × q × k: the prompt's q rows at the first call, one row at each step after it)."""

    ids: list[int]
    p: list[float]
    calls: list[list[torch.Tensor]] = field(default_factory=list)


def generate(model, prompt: list[int], steps: int, attentions: list[torch.nn.Module]) -> Generated:
    """``steps`` tokens (fewer if the model ends the text first) chosen greedily after
    ``prompt`` by ``model`` (a ...ForCausalLM), recording each module of ``attentions``."""
    calls: list[list[torch.Tensor]] = [[] for _ in attentions]

    def keep(into: list[torch.Tensor]):
        def hook(module, args, output):
            into.append(output[1].detach().to(torch.float32).clone())

        return hook

    handles = [module.register_forward_hook(keep(into)) for module, into in zip(attentions, calls)]
    try:
        with torch.inference_mode():
            result = model.generate(
                torch.tensor([prompt]),
                attention_mask=torch.ones((1, len(prompt)), dtype=torch.long),
                do_sample=False,
                max_new_tokens=steps,
                min_new_tokens=0,
                output_logits=True,
                return_dict_in_generate=True,
            )
    finally:
        for handle in handles:
            handle.remove()
    ids = [int(token) for token in result.sequences[0, len(prompt) :]]
    chances = []
    for token, logits in zip(ids, result.logits):
        # the model's own probabilities, softmax of its logits, in float64 (the row max subtracted)
        row = logits[0].detach().to(torch.float64).numpy()
        exps = np.exp(row - row.max())
        chances.append(float(exps[token] / exps.sum()))
    return Generated(ids, chances, calls)


def lm_head_missing(loading_info: dict) -> list[str]:
    """The weights the checkpoint lacked (a base model's has no language-model head, which
    from_pretrained would draw at random: its choices would mean nothing)."""
    return sorted(loading_info.get("missing_keys") or ())


def cache_difference(
    calls: list[torch.Tensor], model_weights: np.ndarray, prompt: int, steps: int
) -> float:
    """The largest difference between what one attention module computed with the KV cache,
    call by call (the prompt whole, then a row a step), and its weights ``model_weights``
    (H × T × T) over the whole text in one pass. A row of fewer keys (a sliding window's cache
    keeps only the last ones) is compared with the same keys of the pass, its keys before them
    with 0."""
    if len(calls) < steps:
        raise CaptureError(
            f"the layer's attention ran {len(calls)} times while {steps} tokens were chosen; "
            "this model generates in a way capture does not know"
        )
    worst = 0.0
    first = calls[0][0].numpy()  # H × prompt × prompt
    worst = max(worst, float(np.abs(first - model_weights[:, :prompt, :prompt]).max()))
    for step in range(1, steps):
        row = prompt + step - 1  # the token chosen at step − 1, read at this step
        seen = calls[step][0, :, -1, :].numpy()  # H × keys the cache held
        keys = seen.shape[-1]
        if keys > row + 1:
            raise CaptureError(
                f"at step {step} the layer's attention read {keys} keys, more than the "
                f"{row + 1} tokens there were; this model's cache is one capture does not know"
            )
        full = model_weights[:, row, : row + 1]
        worst = max(worst, float(np.abs(seen - full[:, row + 1 - keys :]).max()))
        if keys < row + 1:
            worst = max(worst, float(np.abs(full[:, : row + 1 - keys]).max()))
    return worst


@dataclass
class GenerationRun:
    """A generation as the capture command uses it: the tokens chosen after the prompt, and
    the check of every captured layer's KV-cache rows."""

    prompt: int
    generated: Generated
    numbers: list[int]  # the captured layers, in the order of ``generated.calls``

    @property
    def ids(self) -> list[int]:
        return self.generated.ids

    def checked(self, check, captured, number: int):
        """``check`` (the layer's Agreement) with its KV-cache rows compared too."""
        from dataclasses import replace

        calls = self.generated.calls[self.numbers.index(number)]
        difference = cache_difference(
            calls, captured.model_weights, self.prompt, len(self.generated.ids)
        )
        return replace(check, cache=difference)

    def about(self) -> tuple[int, tuple[float, ...]]:
        """What the scenario's ``generated:`` says: the prompt's length and each choice's p."""
        return self.prompt, tuple(self.generated.p)


def generate_from(loaded, name: str, prompt: list[int], steps: int, family, numbers: list[int]):
    """Greedy decoding by the loaded ``(model, loading_info)`` (a ...ForCausalLM), recording
    the attention of the layers ``numbers`` of ``family``; a checkpoint without the weights of
    its language-model head is one line."""
    model, info = loaded
    missing = lm_head_missing(info)
    if missing:
        raise CaptureError(
            f"--generate: {name} has no weights for {', '.join(missing[:3])}"
            f"{' …' if len(missing) > 3 else ''} (a base model without its language-model "
            "head?), so its choices would be drawn at random"
        )
    sites = family.sites(model.base_model, "decoder")
    generated = generate(model, prompt, steps, [sites[n].attention for n in numbers])
    if not generated.ids:
        raise CaptureError("--generate: the model ended the text at once, choosing no token")
    return GenerationRun(len(prompt), generated, numbers)
