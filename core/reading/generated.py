"""``generated:``, the tokens a model chose itself: ``{prompt: n, p: [p₁, …]}``, the first n
tokens the prompt, each token after them chosen by the model (greedy decoding), with the
probability it gave that token. ``attn-tui capture --generate`` writes it; the app's decode view
steps through it."""

from __future__ import annotations

from attn_tui.core.files.yaml_numbers import kind_of, located, number, whole_number
from attn_tui.core.files.yaml_source import Sequence, deref
from attn_tui.core.model.generation import Generation
from attn_tui.core.reading.keys import Entry, check_keys, entries

KEYS = ("prompt", "p")


def generated(entry: Entry | None, T: int, T_k: int) -> Generation | None:
    """The key checked against a scenario of ``T`` query rows and ``T_k`` keys."""
    if entry is None:
        return None
    if T != T_k:
        raise located(
            entry.key,
            "generated: names the tokens a decoder chose itself, one sequence's: it needs "
            "self-attention, not cross-attention",
        )
    if T < 2:
        raise located(entry.key, "generated: needs a prompt and at least one generated token")
    found = entries(entry.value, "generated")
    check_keys(found, KEYS, "generated")
    for key in KEYS:
        if key not in found:
            raise located(entry.key, f"generated: needs {key}: (generated: {{prompt: n, p: [..]}})")
    prompt = whole_number(found["prompt"].value, "generated: prompt", 1, T - 1)
    node = deref(found["p"].value)
    if not isinstance(node, Sequence):
        raise located(node, f"generated: p must be a list of probabilities, not {kind_of(node)}")
    if len(node.items) != T - prompt:
        raise located(
            node,
            f"generated: p has {len(node.items)} probabilities, but the tokens after the prompt "
            f"of {prompt} are {T - prompt}: one for each token the model chose",
        )
    chances = []
    for step, item in enumerate(node.items, 1):
        value = number(item, f"generated: p {step}")
        if not 0.0 <= value <= 1.0:
            raise located(item, f"generated: p {step} is {value:g}; a probability is from 0 to 1")
        chances.append(value)
    return Generation(prompt, tuple(chances))
