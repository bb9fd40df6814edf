"""Learned attention sinks against NumPy written here from transformers 5's
``transformers/models/gpt_oss/modeling_gpt_oss.py`` (``eager_attention_forward``), with nothing
of attn_tui's arithmetic:

    attn_weights = query @ key.T * scaling + attention_mask
    combined_logits = cat([attn_weights, sinks.reshape(1, -1, 1, 1).expand(...)], dim=-1)
    combined_logits = combined_logits - combined_logits.max(dim=-1, keepdim=True)
    probs = softmax(combined_logits, dim=-1)
    scores = probs[..., :-1]  # we drop the sink here
    attn_output = scores @ value_states

The gradient (dS = P ∘ (dP − D), the sink's weight dropped from P) is checked by the stage
contract (tests/engine/test_stage_contract.py has a scenario with sinks)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core.engine.attention import Attention
from attn_tui.core.errors import ScenarioError
from attn_tui.core.loading.scenario_file import loads
from attn_tui.core.outputs.json_export import to_json
from tests.conftest import SCENARIOS
from tests.reference import softmax

RNG = np.random.default_rng(64)


def gpt_oss_attention(Q, K, V, sink, causal=True):
    logits = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        logits = logits + np.where(np.tril(np.ones(logits.shape, bool)), 0.0, -np.inf)
    combined = np.hstack([logits, np.full((len(Q), 1), sink)])  # torch.cat([..., sinks])
    probs = softmax(combined)  # (the one reference's: shifted by the row's largest, as gpt-oss)
    weights = probs[:, :-1]  # the sink dropped
    return weights, weights @ V, probs[:, -1]


def heads_text(Qs, Ks, Vs, sinks, extra=""):
    heads = "".join(
        f"  - {{Q: {json.dumps(q.tolist())}, K: {json.dumps(k.tolist())}, "
        f"V: {json.dumps(v.tolist())}}}\n"
        for q, k, v in zip(Qs, Ks, Vs)
    )
    return f"heads:\n{heads}sinks: {json.dumps(list(sinks))}\n{extra}"


@pytest.mark.parametrize("scale", [1.0, 10.0])
def test_every_head_is_gpt_oss_eager_attention_with_its_own_sink(scale):
    T, d, H = 6, 4, 3
    Qs, Ks, Vs = (RNG.normal(scale=scale, size=(H, T, d)) for _ in range(3))
    sinks = RNG.normal(scale=2.0, size=H).round(3)
    scenario = loads(heads_text(Qs, Ks, Vs, sinks))
    attention = Attention(scenario)
    rows, keys = range(T), range(T)
    for h in range(H):
        weights, output, to_sink = gpt_oss_attention(Qs[h], Ks[h], Vs[h], sinks[h])
        head = attention.head(h)
        assert np.allclose(head.values("softmax", rows, keys), weights, rtol=1e-12, atol=1e-15)
        assert np.allclose(head.values("weighted_sum", rows, range(d)), output, rtol=1e-12)
        assert np.allclose(head.statistics("softmax", rows)["sink"], to_sink, rtol=1e-12)
        assert (head.values("softmax", rows, keys).sum(axis=1) <= 1).all()


def test_json_writes_each_rows_sink_weight_and_rows_summing_to_less_than_one():
    scenario = load(SCENARIOS / "attention_sinks.yaml")
    doc = to_json(scenario)
    inputs = scenario.inputs
    for h, head in enumerate(doc["heads"]):
        sink = scenario.stage_settings["softmax"].logits[h]
        weights, _, to_sink = gpt_oss_attention(
            inputs["Q"][h], inputs["K"][h], inputs["V"][h], sink
        )
        assert np.allclose(head["sink"], to_sink, rtol=1e-12)
        assert np.allclose(np.array(head["weights"]).sum(axis=1) + head["sink"], 1.0)


def test_a_scenario_without_sinks_writes_no_sink_key():
    assert "sink" not in to_json(load(SCENARIOS / "cat_sat.yaml"))


def test_the_why_pane_says_how_much_the_row_gave_the_sink():
    from attn_tui.core.engine.explanation import explain

    scenario = load(SCENARIOS / "attention_sinks.yaml")
    attention = Attention(scenario)
    inputs = scenario.inputs
    sink = scenario.stage_settings["softmax"].logits[0]
    _, _, to_sink = gpt_oss_attention(inputs["Q"][0], inputs["K"][0], inputs["V"][0], sink)
    said = explain(attention, "softmax", row=3, fold=None).plain()
    assert "the sink takes" in said and f"= {to_sink[3]:.3f}" in said
    assert "goes to the sink, nowhere" in said


@pytest.mark.parametrize(
    ("sinks", "said"),
    [
        ("[1, 2, 3]", "sinks has 3 logits but the scenario has 1 head"),
        ("1e9", "a sink logit must be a number within ±10000"),
        ("[.nan]", "must be finite"),
    ],
)
def test_a_wrong_sinks_key_is_one_clear_line(sinks, said):
    text = "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"
    with pytest.raises(ScenarioError) as raised:
        loads(text + f"sinks: {sinks}\n")
    assert said in str(raised.value)


def test_sinks_with_tiles_or_decoding_are_refused_saying_why():
    text = "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\nsinks: 0.5\n"
    for extra in ("tiles: {queries: 1, keys: 1}\n", "decode: true\n"):
        with pytest.raises(ScenarioError) as raised:
            loads(text + extra)
        assert "no sink column" in str(raised.value)
