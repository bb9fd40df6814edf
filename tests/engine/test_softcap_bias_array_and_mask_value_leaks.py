"""Softcap, the bias's array and a leaky mask value (issue 19's and 23's edges attacked): a tiny
softcap warns nothing, a bias from a file is held once and one for too many heads says so,
predicting a stage the scenario lacks says so, and whether a finite mask value leaks is known."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core.engine.attention import Attention
from attn_tui.core.outputs.json_export import to_json
from attn_tui.core.outputs.markdown import to_markdown
from attn_tui.core.outputs.report import to_text
from tests.engine.test_bias_softcap_and_partial_rope_against_the_papers import written

QKV = (
    "tokens: [a, b, c]\nQ: [[1, 0], [0, 1], [1, 1]]\nK: [[1, 0], [0, 1], [1, 1]]\n"
    "V: [[1, 0], [0, 1], [1, 1]]\n"
)


# ---- softcap, rope, the bias's array ---------------------------------------------------------


@pytest.mark.parametrize("cap", ["5e-324", "1e-300"])
def test_a_tiny_softcap_warns_nothing(cap):
    """score / 5e-324 overflows to ±∞ (tanh of it is exactly ±1, the right answer): NumPy's
    RuntimeWarning was printed on standard error by --print, --json and --markdown."""
    scenario = loads(QKV + f"softcap: {cap}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        to_json(scenario)
        text = to_text(scenario, rows=[1])
        to_markdown(scenario)
    assert "tanh(∞)" in text or "tanh(7.0711e299)" in text


def test_a_bias_read_from_a_file_is_held_once(tmp_path):
    """The bias from a .npy was copied into a second array (at the limit, 128 MB twice)."""
    np.save(tmp_path / "b.npy", np.arange(9.0).reshape(3, 3))
    (tmp_path / "s.yaml").write_text(QKV + "bias: {npy: b.npy}\n")
    setting = load(tmp_path / "s.yaml").stage_settings["bias"]
    assert np.shares_memory(setting.matrix, setting.values) and not setting.matrix.flags.writeable


def test_a_bias_for_more_heads_than_there_are_says_so_in_english():
    with pytest.raises(ScenarioError) as caught:
        loads(
            QKV + "bias: [[[0, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]]\n"
        )
    assert "bias holds 2 matrices but there is 1 head:" in caught.value.message


@pytest.mark.parametrize(
    "extra, key, title", [("", "biased", "Bias"), ("alibi: true\n", "capped", "Softcap")]
)
def test_predicting_a_stage_the_scenario_lacks_says_so(extra, key, title):
    """expect: said "this scenario has no Softcap step"; predict: suggested 'scaled' for capped."""
    with pytest.raises(ScenarioError) as caught:
        loads(QKV + extra + f"predict: [{key}]\n")
    assert f"this scenario has no {title} step" in caught.value.message
    assert "did you mean" not in caught.value.message


def test_decode_under_a_leaky_mask_value_says_why_it_differs():
    """With the causal mask on and mask_value: -1, row t of the whole computation gives the
    future keys weight and the decoder's cache has none of them: the Why pane said the rows
    differ "without the causal mask"."""
    text = to_text(loads(QKV + "decode: true\nmask_value: -1\n"), rows=[1])
    assert "without the causal mask" not in text
    assert "They differ: the mask value −1 lets the hidden keys take weight" in text


def test_a_mask_value_far_below_every_score_is_known_not_to_leak_without_a_scan():
    """The app scans every row for a leaky mask value after each option change (c, s), in a
    thread: 30 s at T = 16,384 for mask_value: -1e9, a scan per press piled up, and keys took
    3× as long. Norms prove most finite mask values hide (exp underflows to exactly 0)."""
    from attn_tui.core.engine.stages.mask import cannot_leak, leak

    scenario = loads("random: {seed: 1, T: 300, d_k: 4}\nmask_value: -1e9\n")
    attention = Attention(scenario)
    assert cannot_leak(attention)
    calls = []
    assert (
        leak(attention, cancelled=lambda: calls.append(1)) is None and calls == []
    )  # no scan at all


def test_whenever_norms_say_no_leak_the_scan_agrees(tmp_path):
    """The proof is sound: on random biased scenarios with mask values from −1 to −1e4, every time
    cannot_leak says so, the block-by-block scan finds no hidden weight."""
    from attn_tui.core.engine.stages.mask import cannot_leak, leak

    rng = np.random.default_rng(7)
    proven = 0
    for seed in range(80):
        path, _, layout = written(tmp_path, seed)
        value = -float(10 ** rng.uniform(0, 4))
        attention = Attention(dataclasses_replace_mask(load(path), value))
        if cannot_leak(attention):
            proven += 1
            assert leak(attention, cancelled=lambda: False) is None, seed
        assert leak(attention, cancelled=lambda: True) is None  # a cancelled scan gives up at once
    assert proven > 10


def dataclasses_replace_mask(scenario, value):
    import dataclasses

    return dataclasses.replace(
        scenario, options=dataclasses.replace(scenario.options, mask_value=value)
    )
