"""The Bias stage (issue 19): ALiBi and an explicit bias, added to the scaled scores between
Scale and Mask. Checked against the float64 reference (tests/reference.py, written from the
definitions) and PyTorch's scaled_dot_product_attention with a float attn_mask carrying the
bias, over random layouts (heads, grouped keys, cross-attention, causal, window, padding, an
explicit mask, RoPE, Wo); ALiBi's slopes against the paper's code, written here; then the file
format, its errors, --json, --print, --markdown, --check, saving and the app."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core.editing.save import render, save
from attn_tui.core.engine.attention import Attention
from attn_tui.core.outputs.json_export import to_json
from attn_tui.core.outputs.markdown import to_markdown
from attn_tui.core.outputs.report import to_text
from attn_tui.core.reading.bias import alibi_slopes
from attn_tui.core.teaching.compare import compare
from tests.engine.test_multihead_against_the_reference_and_pytorch import build, close, layouts
from tests.reference import softmax


def paper_slopes(n: int) -> list[float]:
    """ALiBi's slopes as the paper's reference code computes them (Press et al., get_slopes)."""

    def power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + paper_slopes(2 * closest)[0::2][: n - closest]


def test_alibi_slopes_are_the_papers():
    assert alibi_slopes(8) == [1 / 2**h for h in range(1, 9)]  # 2^(−8h/H): exactly halves
    assert alibi_slopes(1) == [2**-8]
    for heads in range(1, 65):
        assert np.allclose(alibi_slopes(heads), paper_slopes(heads), rtol=1e-13, atol=0), (
            heads
        )  # (its products round)
    # 12 heads: the 8 of eight heads, then every other of sixteen's: 2^(−0.5), 2^(−1.5), …
    assert np.allclose(alibi_slopes(12)[8:], [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5], rtol=1e-15)


@st.composite
def biased_layouts(draw):
    layout = draw(layouts())
    kinds = ["shared", "per_head"] + ([] if layout["cross"] else ["alibi"])
    layout["bias"] = draw(st.sampled_from(kinds))
    layout["slopes"] = paper_slopes(layout["heads"])
    return layout


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(biased_layouts())
def test_every_stage_of_every_head_with_a_bias_is_the_references(layout):
    scenario, (heads, concat, projected) = build(layout)
    attention = Attention(scenario)
    assert [stage.name for stage in attention.steps][:4] in (
        ["score", "scale", "bias", "mask"],
        ["rotate", "score", "scale", "bias"],
    )
    rows, keys, values = range(scenario.T), range(scenario.T_k), range(scenario.d_v)
    for h, expected in enumerate(heads):
        head = attention.head(h)
        assert close(head.values("scale", rows, keys), expected["scaled"])
        assert close(head.values("bias", rows, keys), expected["biased"])
        assert np.array_equal(
            np.isinf(head.values("mask", rows, keys)), np.isinf(expected["masked"])
        )
        weights = head.values("softmax", rows, keys)
        assert close(weights, expected["weights"]) and not np.isnan(weights).any()
        assert (weights[np.isinf(expected["masked"])] == 0).all()
        assert close(head.values("weighted_sum", rows, values), expected["output"])
    if "Wo" in scenario.inputs:
        assert close(attention.values("project", None, rows, range(scenario.d_out)), projected)


@pytest.mark.models
@settings(max_examples=40, deadline=None)
@given(biased_layouts())
def test_the_output_with_a_bias_is_pytorchs_with_a_float_mask(layout):
    torch = pytest.importorskip(
        "torch", reason="the second reference is PyTorch's SDPA (pip install torch)"
    )
    scenario, (heads, _, _) = build(layout)
    attention = Attention(scenario)
    rows, keys = range(scenario.T), range(scenario.T_k)
    inputs = attention.inputs
    for h in range(scenario.heads):
        visible = ~attention.blocked(rows, keys)
        seeing = visible.any(axis=1)
        bias = heads[h]["biased"] - heads[h]["scaled"]  # the reference's own bias for this head
        float_mask = torch.tensor(np.where(visible, bias, -np.inf))
        q, k, v = (
            torch.tensor(np.asarray(a, dtype=np.float64))
            for a in (inputs.Q(h), inputs.K(h), inputs.V(h))
        )
        theirs = torch.nn.functional.scaled_dot_product_attention(
            q[None], k[None], v[None], attn_mask=float_mask[None], scale=1 / attention.divisor
        ).numpy()[0]
        ours = attention.head(h).values("weighted_sum", rows, range(scenario.d_v))
        assert np.allclose(ours[seeing], theirs[seeing], rtol=1e-10, atol=1e-12)


# ---- the format ------------------------------------------------------------------------------

ALIBI = """\
tokens: [a, b, c, d]
heads: 2
Q:
  - [[1, 0], [0, 1], [1, 1], [0, 0]]
  - [[1, 0], [0, 1], [1, 1], [0, 0]]
K:
  - [[1, 0], [0, 1], [1, 1], [0, 0]]
  - [[1, 0], [0, 1], [1, 1], [0, 0]]
V:
  - [[1, 0], [0, 1], [1, 1], [0, 0]]
  - [[1, 0], [0, 1], [1, 1], [0, 0]]
alibi: true   # the distance penalty
"""

EXPLICIT = """\
tokens: [a, b, c]
Q: [[1, 0], [0, 1], [1, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1, 0], [0, 1], [0.5, 0.5]]
causal: false
bias:            # a teacher's own: "c" is favoured by every query
  - [0, 0, 1]
  - [0, 0, 1]
  - [0, 0, 1]
"""


def test_alibi_by_hand():
    """Two heads: slopes 2^(−8·1/2) = 1/16 and 2^(−8·2/2) = 1/256; bias(i, j) = −m·|i − j|."""
    scenario = loads(ALIBI)
    attention = Attention(scenario)
    rows, keys = range(4), range(4)
    scaled = attention.values("scale", 0, rows, keys)
    distance = np.abs(np.subtract.outer(np.arange(4), np.arange(4)))
    assert np.array_equal(attention.values("bias", 0, rows, keys), scaled - distance / 16)
    assert np.array_equal(attention.values("bias", 1, rows, keys), scaled - distance / 256)
    assert scenario.describe().endswith("ALiBi")


def test_an_explicit_bias_by_hand():
    attention = Attention(loads(EXPLICIT))
    weights = attention.values("softmax", 0, range(3), range(3))
    scaled = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 2]]) / math.sqrt(2) + [0, 0, 1]
    assert np.allclose(weights, softmax(scaled), rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    "text, where, fragment",
    [
        (EXPLICIT + "alibi: true\n", (10, 1), "give alibi: true or bias:, not both"),
        (
            EXPLICIT.replace(
                "  - [0, 0, 1]\n  - [0, 0, 1]\n  - [0, 0, 1]\n", "  - [0, 0, 1]\n  - [0, 0, 1]\n"
            ),
            (7, 3),
            "bias is 2×3 but the scores are 3×3",
        ),
        (
            EXPLICIT.replace(
                "[0, 0, 1]\n  - [0, 0, 1]\n  - [0, 0, 1]",
                "[0, 0, 1]\n  - [0, 0, .inf]\n  - [0, 0, 1]",
            ),
            (8, 12),
            "must be finite",
        ),
        (
            EXPLICIT.replace(
                "[0, 0, 1]\n  - [0, 0, 1]\n  - [0, 0, 1]",
                "[0, 0, 1]\n  - [0, 0, 1e301]\n  - [0, 0, 1]",
            ),
            (7, 3),
            "keep every bias below 1e+300",
        ),
        (
            EXPLICIT.replace(
                'bias:            # a teacher\'s own: "c" is favoured by every query\n',
                "bias:\n  -\n",
            ).replace("  - [0, 0, 1]\n  - [0, 0, 1]\n  - [0, 0, 1]\n", "    - [0, 0, 1]\n"),
            (7, 3),
            "bias",
        ),
        (ALIBI.replace("alibi: true", "alibi: maybe"), (12, 8), "alibi must be true or false"),
        (
            "tokens: [a, b]\nquery_tokens: [x]\nQ: [[1]]\nK: [[1], [1]]\nV: [[1], [1]]\n"
            "alibi: true\n",
            (6, 1),
            "it needs self-attention",
        ),
        (
            ALIBI.replace(
                "alibi: true   # the distance penalty\n",
                "bias:\n  - [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]\n"
                "  - [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]\n"
                "  - [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]\n",
            ),
            (13, 3),
            "bias holds 3 matrices but there are 2 heads",
        ),
        (EXPLICIT.replace("bias:", "biass:"), (6, 1), "did you mean 'bias'"),
    ],
    ids=[
        "both",
        "shape",
        "infinite",
        "too-large",
        "ragged",
        "not-a-boolean",
        "cross",
        "heads",
        "typo",
    ],
)
def test_a_bad_bias_is_a_located_error(text, where, fragment):
    with pytest.raises(ScenarioError) as caught:
        loads(text)
    error = caught.value
    assert fragment in error.message and (error.line, error.col) == where, str(error)


def test_alibi_false_is_no_bias_at_all():
    scenario = loads(ALIBI.replace("alibi: true", "alibi: false"))
    assert "bias" not in [stage.name for stage in Attention(scenario).steps]


def test_a_bias_from_npy_and_from_the_archive(tmp_path):
    rng = np.random.default_rng(5)
    bias = rng.normal(size=(2, 3, 3))
    np.save(tmp_path / "bias.npy", bias)
    qkv = {name: rng.normal(size=(2, 3, 2)) for name in "QKV"}
    np.savez(tmp_path / "head.npz", bias=bias, **qkv)
    from_npy = tmp_path / "a.yaml"
    from_npy.write_text("heads: 2\nnpz: head.npz\nbias: {npy: bias.npy}\n")
    from_archive = tmp_path / "b.yaml"
    from_archive.write_text("heads: 2\nnpz: head.npz\n")
    for path in (from_npy, from_archive):
        attention = Attention(load(path))
        scaled = attention.values("scale", 1, range(3), range(3))
        assert np.array_equal(attention.values("bias", 1, range(3), range(3)), scaled + bias[1])


# ---- the views -------------------------------------------------------------------------------


def test_json_has_biased_and_bias_only_with_a_bias():
    doc = to_json(loads(EXPLICIT))
    assert doc["bias"] == [[0, 0, 1]] * 3
    assert np.allclose(doc["biased"], np.array(doc["scaled"]) + doc["bias"], rtol=0, atol=0)
    plain = to_json(loads(EXPLICIT.split("bias:")[0]))
    assert "bias" not in plain and "biased" not in plain
    heads = to_json(loads(ALIBI))["heads"]
    distance = np.abs(np.subtract.outer(np.arange(4), np.arange(4)))
    assert np.array_equal(heads[1]["bias"], -distance / 256)


def test_print_and_markdown_show_the_bias_with_its_arithmetic():
    text = to_text(loads(ALIBI), rows=[3])
    assert "Step 3 — Bias: scaled − m·|i − j|" in text
    # row d (i = 4) of head 1, key a (j = 1): slope 1/16 = 0.0625, distance 3
    assert "slope of head 1 of 2: m = 2^(−8·1/2) = 0.0625" in text
    assert "(d, a): 0.000 + (−0.0625 × |4 − 1|) = 0.000 + (−0.188) = −0.188" in text
    markdown = to_markdown(loads(EXPLICIT), rows=[0])
    assert "## Step 3 — Bias: scaled + the scenario's bias" in markdown
    assert "(a, c): 0.707 + (1.000) = 1.707" in markdown


def test_a_student_may_give_the_biased_scores():
    biased = (np.array([[1, 0, 1], [0, 1, 1], [1, 1, 2]]) / math.sqrt(2) + [0, 0, 1]).round(3)
    text = EXPLICIT + f"expect: {{biased: {biased.tolist()}}}\nexpect_tolerance: 0.001\n"
    assert compare(loads(text)).ok
    wrong = biased.copy()
    wrong[2, 2] = 0
    comparison = compare(
        loads(EXPLICIT + f"expect: {{biased: {wrong.tolist()}}}\nexpect_tolerance: 0.001\n")
    )
    assert not comparison.ok and comparison.first_difference.stage == "biased"


def test_saving_keeps_the_bias(tmp_path):
    for text in (ALIBI, EXPLICIT):
        path = tmp_path / "s.yaml"
        path.write_text(text)
        scenario = load(path)
        edited = (
            scenario.with_cell("V", 0, 0, 3.0)
            if "heads" not in text
            else scenario.with_cell("V", 0, 0, 3.0, head=0)
        )
        written = save(edited, str(path))
        assert load(path).stage_settings == scenario.stage_settings and written.count(
            "\n"
        ) == text.count("\n")
        whole = render(edited, str(tmp_path / "whole.yaml")).text
        assert loads(whole, str(tmp_path / "whole.yaml")).stage_settings == scenario.stage_settings


async def test_the_app_steps_through_the_bias():
    from attn_tui.tui.app import AttnApp
    from tests.tui_helpers import explanation, screen_text

    app = AttnApp(loads(EXPLICIT, "bias.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("3")
        assert app.screen.stage == "bias"
        assert "3 Bias" in screen_text(app)
        assert "(c, c): 1.414 + (1.000) = 2.414" in explanation(app)
        await pilot.press("right")
        assert app.screen.stage == "mask"


def test_check_names_the_bias(tmp_path, capsys):
    from attn_tui.tui.cli import main

    path = tmp_path / "alibi.yaml"
    path.write_text(ALIBI)
    assert main(["--check", str(path)]) == 0
    assert "ALiBi" in capsys.readouterr().out
    assert json.loads(json.dumps(to_json(load(path))))["heads"][0]["biased"]
