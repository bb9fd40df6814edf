"""Multi-head attention, cross-attention and masks beyond causal (issue 13), checked against a
float64 reference written here from the definitions (not from attn_tui.core) and against
PyTorch's ``scaled_dot_product_attention``; then the scenario format, --json, --check, saving
and the recovery copy with heads."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from attn_tui.core import ScenarioError
from attn_tui.core import load
from attn_tui.core import loads
from attn_tui.core.engine.attention import Attention
from attn_tui.core.teaching.compare import compare
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.editing.session import Session
from attn_tui.tui.cli import main
from tests.conftest import SCENARIOS
from tests.reference import attention as reference_attention

# ---- the reference ---------------------------------------------------------------------------


def reference(Q, K, V, *, heads, kv_heads, divisor, visible, mask_value=-math.inf, Wo=None, bo=None,
              rope_base=None, bias=None):
    """Every stage of every head, by the float64 reference (tests/reference.py). ``Q`` is
    (heads, T_q, d_k), ``K`` and ``V`` are (kv_heads, T_k, d); ``visible`` is a T_q × T_k bool
    matrix (True = may attend); ``bias`` (heads, T_q, T_k) is added to the scaled scores before
    the mask. Query head h reads key/value head h // (heads / kv_heads). A row that sees nothing
    has weights 0 and is marked ``empty``; without a bias ``biased`` is ``scaled``."""
    assert len(Q) == heads and len(K) == len(V) == kv_heads
    rope_spec = None if rope_base is None else (rope_base, None, "half")
    out, concat, projected = reference_attention(Q, K, V, visible=visible, divisor=divisor, mask_value=mask_value,
                                                 bias=bias, rope_spec=rope_spec, Wo=Wo, bo=bo)
    for head in out:
        head.setdefault("biased", head["scaled"])
        head["empty"] = ~visible.any(axis=1)
    return out, concat, concat if projected is None else projected


def close(a, b) -> bool:
    return np.allclose(a, b, rtol=1e-12, atol=1e-12)


# ---- random scenarios ------------------------------------------------------------------------

@st.composite
def layouts(draw):
    kv_heads = draw(st.sampled_from([1, 2, 4]))
    heads = kv_heads * draw(st.sampled_from([1, 2])) if kv_heads < 8 else kv_heads
    heads = min(heads, 8)
    cross = draw(st.booleans())
    T_k = draw(st.integers(1, 7))
    T_q = draw(st.integers(1, 7)) if cross else T_k
    d_k = draw(st.sampled_from([1, 2, 3, 4]))
    d_v = draw(st.sampled_from([1, 2, 5]))
    rope = d_k % 2 == 0 and draw(st.booleans())
    return dict(heads=heads, kv_heads=kv_heads, cross=cross, T_q=T_q, T_k=T_k, d_k=d_k, d_v=d_v,
                rope=rope, seed=draw(st.integers(0, 2**31)), causal=(not cross or T_q == T_k) and draw(st.booleans()),
                window=draw(st.one_of(st.none(), st.integers(1, 4))) if T_q == T_k and not cross else None,
                padding=draw(st.booleans()), explicit=draw(st.booleans()), projection=draw(st.booleans()),
                Wo=draw(st.booleans()))


def build(layout):
    """A scenario in code and the same numbers as the reference's arrays."""
    rng = np.random.default_rng(layout["seed"])
    H, G, T_q, T_k = layout["heads"], layout["kv_heads"], layout["T_q"], layout["T_k"]
    d_k, d_v = layout["d_k"], layout["d_v"]
    padding = tuple(bool(flag) for flag in rng.integers(0, 2, T_k)) if layout["padding"] else None
    explicit = rng.integers(0, 2, (T_q, T_k)).astype(bool) if layout["explicit"] else None
    inputs = {}
    if layout["projection"]:
        d_model = 3
        X = rng.normal(size=(T_k, d_model))
        X_q = rng.normal(size=(T_q, d_model)) if layout["cross"] else X
        Wq, Wk, Wv = (rng.normal(size=(d_model, H * d_k)), rng.normal(size=(d_model, G * d_k)),
                      rng.normal(size=(d_model, G * d_v)))
        inputs.update(X=X, Wq=Wq, Wk=Wk, Wv=Wv)
        if layout["cross"]:
            inputs["X_q"] = X_q
        Q = np.stack([X_q @ Wq[:, h * d_k:(h + 1) * d_k] for h in range(H)])
        K = np.stack([X @ Wk[:, g * d_k:(g + 1) * d_k] for g in range(G)])
        V = np.stack([X @ Wv[:, g * d_v:(g + 1) * d_v] for g in range(G)])
    else:
        Q, K, V = rng.normal(size=(H, T_q, d_k)), rng.normal(size=(G, T_k, d_k)), rng.normal(size=(G, T_k, d_v))
        inputs.update(Q=Q if H > 1 else Q[0], K=K if G > 1 or H > 1 else K[0], V=V if G > 1 or H > 1 else V[0])
    Wo = bo = None
    if layout["Wo"]:
        Wo, bo = rng.normal(size=(H * d_v, 2)), rng.normal(size=2)
        inputs.update(Wo=Wo, bo=bo[None, :])
    from attn_tui.core.model.options import Options
    from attn_tui.core.reading.bias import BiasSetting
    from attn_tui.core.model.rope import Rope

    bias = settings = None  # added to the scaled scores: ALiBi's, or one matrix for all heads, or one each
    if layout.get("bias") == "alibi":
        slopes = layout["slopes"]
        bias = np.stack([-slopes[h] * np.abs(np.arange(T_q)[:, None] - np.arange(T_k)[None, :]) for h in range(H)])
        settings = {"bias": BiasSetting(alibi=True)}
    elif layout.get("bias") == "shared":
        shared = rng.normal(scale=2.0, size=(T_q, T_k))
        bias = np.stack([shared] * H)
        settings = {"bias": BiasSetting(values=shared.tolist())}
    elif layout.get("bias") == "per_head":
        bias = rng.normal(scale=2.0, size=(H, T_q, T_k))
        settings = {"bias": BiasSetting(values=bias, per_head=True)}
    scenario = Scenario(
        title="random", tokens=tuple(f"k{j}" for j in range(T_k)),
        query_tokens=tuple(f"q{i}" for i in range(T_q)) if layout["cross"] else None, inputs=inputs,
        options=Options(causal=layout["causal"]), heads=H, kv_heads=G, window=layout["window"],
        padding=padding, mask=explicit, rope=Rope(10000.0) if layout["rope"] else None,
        stage_settings=settings or {})
    visible = np.ones((T_q, T_k), bool)
    rows, cols = np.arange(T_q)[:, None], np.arange(T_k)[None, :]
    if layout["causal"]:
        visible &= cols <= rows
    if layout["window"] is not None:
        visible &= (cols > rows - layout["window"]) & (cols <= rows)
    if padding is not None:
        visible &= ~np.array(padding)[None, :]
    if explicit is not None:
        visible &= explicit
    expected = reference(Q, K, V, heads=H, kv_heads=G, divisor=math.sqrt(d_k), visible=visible, Wo=Wo, bo=bo,
                         rope_base=10000.0 if layout["rope"] else None, bias=bias)
    return scenario, expected


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_every_stage_of_every_head_is_the_references(layout):
    scenario, (heads, concat, projected) = build(layout)
    attention = Attention(scenario)
    rows, keys, values = range(scenario.T), range(scenario.T_k), range(scenario.d_v)
    for h, expected in enumerate(heads):
        head = attention.head(h)
        assert close(head.values("score", rows, keys), expected["scores"])
        assert close(head.values("scale", rows, keys), expected["scaled"])
        assert np.array_equal(np.isinf(head.values("mask", rows, keys)), np.isinf(expected["masked"]))
        assert np.array_equal(head.empty(rows), expected["empty"])
        weights = head.values("softmax", rows, keys)
        assert close(weights, expected["weights"]) and not np.isnan(weights).any()
        assert (weights[np.isinf(expected["masked"])] == 0).all()  # a hidden key's weight is exactly 0
        assert close(head.values("weighted_sum", rows, values), expected["output"])
    if scenario.multi_head:
        assert close(attention.values("concat", None, rows, range(scenario.heads * scenario.d_v)), concat)
    if "Wo" in scenario.inputs:
        assert close(attention.values("project", None, rows, range(scenario.d_out)), projected)


@pytest.mark.models
@settings(max_examples=40, deadline=None)
@given(layouts())
def test_the_output_of_every_head_is_pytorchs(layout):
    torch = pytest.importorskip("torch", reason="the second reference is PyTorch's SDPA (pip install torch)")
    scenario, _ = build(layout)
    attention = Attention(scenario)
    rows, keys = range(scenario.T), range(scenario.T_k)
    inputs = attention.inputs
    for h in range(scenario.heads):
        visible = ~attention.head(h).blocked(rows, keys)
        seeing = visible.any(axis=1)
        q, k, v = (torch.tensor(np.asarray(a, dtype=np.float64)) for a in (inputs.Q(h), inputs.K(h), inputs.V(h)))
        theirs = torch.nn.functional.scaled_dot_product_attention(
            q[None], k[None], v[None], attn_mask=torch.tensor(visible)[None]).numpy()[0]
        ours = attention.head(h).values("weighted_sum", rows, range(scenario.d_v))
        assert np.allclose(ours[seeing], theirs[seeing], rtol=1e-10, atol=1e-12)
        assert (ours[~seeing] == 0).all()  # PyTorch gives NaN there; attn-tui "nothing to attend to"


# ---- the format ------------------------------------------------------------------------------

HAND_MADE = """\
tokens: [a, b, c]
heads:
  - name: previous
    Q: [[1, 0], [0, 1], [1, 1]]
    K: &k [[1, 0], [0, 1], [1, 1]]
    V: [[1, 0], [0, 1], [1, 1]]
  - name: itself
    Q: [[2, 0], [0, 2], [1, 1]]
    K: *k
    V: [[0, 1], [1, 0], [1, 1]]
Wo: [[1, 0], [0, 1], [1, 0], [0, 1]]
bo: [0.5, -0.5]
"""

THREE_D = """\
tokens: [a, b, c]
heads: 2
head_names: [previous, itself]
Q:
  - [[1, 0], [0, 1], [1, 1]]
  - [[2, 0], [0, 2], [1, 1]]
K:
  - [[1, 0], [0, 1], [1, 1]]
  - [[1, 0], [0, 1], [1, 1]]
V:
  - [[1, 0], [0, 1], [1, 1]]
  - [[0, 1], [1, 0], [1, 1]]
Wo: [[1, 0], [0, 1], [1, 0], [0, 1]]
bo: [[0.5, -0.5]]
"""


def test_heads_written_by_hand_are_heads_written_as_a_list_of_matrices():
    by_hand, three_d = loads(HAND_MADE), loads(THREE_D)
    assert by_hand.heads == three_d.heads == 2 and by_hand.head_names == three_d.head_names == ("previous", "itself")
    assert by_hand.same_numbers(three_d)
    assert by_hand.inputs["Q"].shape == (2, 3, 2) and by_hand.inputs["bo"].shape == (1, 2)


def test_heads_from_an_npz_of_3d_arrays(tmp_path):
    rng = np.random.default_rng(1)
    np.savez(tmp_path / "m.npz", Q=rng.normal(size=(4, 5, 2)), K=rng.normal(size=(2, 5, 2)),
             V=rng.normal(size=(2, 5, 3)), Wo=rng.normal(size=(12, 4)), bo=rng.normal(size=4))
    (tmp_path / "s.yaml").write_text("npz: m.npz\nheads: 4\nkv_heads: 2\n")
    scenario = load(tmp_path / "s.yaml")
    assert (scenario.heads, scenario.kv_heads, scenario.d_k, scenario.d_v, scenario.d_out) == (4, 2, 2, 3, 4)


def test_projections_split_by_columns_as_pytorch_does():
    X = [[1, 0, 2], [0, 1, 1]]
    Wq = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 1, 2, 3]]
    text = f"X: {X}\nWq: {Wq}\nWk: {Wq}\nWv: {Wq}\nheads: 2\ncausal: false\n"
    scenario = loads(text)
    attention = Attention(scenario)
    full = np.array(X, float) @ np.array(Wq, float)
    assert np.array_equal(attention.inputs.Q(1), full[:, 2:4])  # head 2: columns 3 and 4
    assert scenario.d_k == 2 and scenario.d_v == 2


@pytest.mark.parametrize("text, fragment", [
    ("heads: 3\nQ: [[1, 0]]\nK: [[1, 0]]\nV: [[1, 0]]\n", "heads: 3 needs one Q, K and V per head"),
    ("heads: 2\nQ: [[[1]], [[1]]]\nK: [[[1]], [[1]], [[1]]]\nV: [[[1]], [[1]], [[1]]]\n",
     "2 query heads cannot share 3 key/value heads"),
    ("X: [[1, 0]]\nWq: [[1, 0, 1], [0, 1, 0]]\nWk: [[1, 0, 1], [0, 1, 0]]\nWv: [[1], [0]]\nheads: 2\n",
     "3 columns cannot be split among 2 heads"),
    ("query_tokens: [x, y]\ntokens: [a, b, c]\nQ: [[1], [2]]\nK: [[1], [2], [3]]\nV: [[1], [2], [3]]\n"
     "causal: true\n", "causal: true needs as many queries as keys (2 queries, 3 keys); for cross-attention"),
    ("query_tokens: [x, y]\ntokens: [a, b, c]\nQ: [[1], [2]]\nK: [[1], [2], [3]]\nV: [[1], [2], [3]]\n"
     "window: 2\n", "window needs as many queries as keys"),
    ("tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\npadding: [0]\n",
     "padding has 1 flags but there are 2 tokens"),
    ("tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\npadding: [0, 2]\n",
     "padding 2 must be 0 or 1"),
    ("tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\nmask: [[1, 0]]\n",
     "mask is 1×2 but the scores are 2×2"),
    ("tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\nrope: {base: 10000}\n",
     "d_k must be even"),
    ("tokens: [a, b]\nX: [[1], [2]]\nX_q: [[1], [2]]\nWq: [[1]]\nWk: [[1]]\nWv: [[1]]\n",
     "X_q holds the queries of cross-attention: give query_tokens too"),
    ("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nWo: [[1, 2], [3, 4]]\n", "so it needs 1 rows"),
    ("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nbo: [1]\n", "bo is the output projection's bias"),
    ("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nX_q: [[1]]\n", "X_q goes with X, Wq, Wk and Wv"),
    ("X: [[1]]\nWq: [[[1]]]\nWk: [[1]]\nWv: [[1]]\n", "Wq must be one matrix"),
    ("heads: [{name: a, Q: [[1]], K: [[1]], V: [[1]]}, {name: a, Q: [[1]], K: [[1]], V: [[1]]}]\n",
     "heads 1 and 2 are both named 'a'"),
    ("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nexpect: {concat: [[1]]}\n", "no Concat step"),
    ("heads: 2\nQ: [[[1]], [[1]]]\nK: [[[1]], [[1]]]\nV: [[[1]], [[1]]]\nexpect: {weights: [[1]]}\n",
     "expect weights is 1×1 but that stage is 2 heads × 1×1"),
])
def test_a_layout_that_does_not_fit_is_a_located_error(text, fragment):
    with pytest.raises(ScenarioError) as raised:
        loads(text)
    assert fragment in str(raised.value) and raised.value.line is not None


def test_cross_attention_is_not_causal_unless_asked():
    scenario = load(SCENARIOS / "cross_attention.yaml")
    assert scenario.cross and not scenario.options.causal
    assert scenario.T == 3 and scenario.row_tokens == ("the", "cat", "sleeps")


# ---- the built-ins teach what they say ---------------------------------------------------------

def largest_key(scenario: Scenario, h: int = 0) -> list[str]:
    attention = Attention(scenario)
    weights = attention.head(h).values("softmax", range(scenario.T), range(scenario.T_k))
    return [scenario.tokens[j] for j in weights.argmax(axis=1)]


def test_two_heads_one_looks_back_one_looks_at_itself():
    scenario = load(SCENARIOS / "two_heads.yaml")
    assert largest_key(scenario, 0)[1:] == ["the", "cat", "sat"]  # the token before
    assert largest_key(scenario, 1) == list(scenario.tokens)       # the token itself


def test_cross_attention_finds_the_word_that_means_the_same():
    assert largest_key(load(SCENARIOS / "cross_attention.yaml")) == ["le", "chat", "dort"]


def test_the_sliding_window_keeps_eight_from_its_best_matches():
    scenario = load(SCENARIOS / "sliding_window.yaml")
    weights = Attention(scenario).head(0).values("softmax", range(8), range(8))
    assert (weights[7, :5] == 0).all() and weights[7, 5:].sum() == pytest.approx(1.0)
    assert scenario.K[0, 0] == scenario.K[3, 0] == 3  # the matches it cannot see are the strongest


def test_full_padding_is_nothing_to_attend_to_and_null_in_json(capsys):
    assert main(["--json", str(SCENARIOS / "padding_mask.yaml")]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["weights"][0] is None and document["output"][1] is None
    assert document["weights"][2] == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert document["masked"][4][:2] == [None, None]


# ---- --json, --check, --print with heads -------------------------------------------------------

def test_json_of_heads_has_each_head_concat_output_and_inputs(capsys):
    assert main(["--json", str(SCENARIOS / "two_heads.yaml")]) == 0
    document = json.loads(capsys.readouterr().out)
    scenario = load(SCENARIOS / "two_heads.yaml")
    attention = Attention(scenario)
    assert [head["name"] for head in document["heads"]] == ["head 1", "head 2"]
    for h, head in enumerate(document["heads"]):
        assert set(head) >= {"Q", "K", "V", "scores", "scaled", "masked", "weights", "output", "row_max",
                             "row_sum", "diagnostics"}
        assert head["weights"] == attention.head(h).values("softmax", range(4), range(4)).tolist()
    concat = np.array(document["concat"])
    assert concat.shape == (4, 4) and np.array_equal(concat[:, :2], np.array(document["heads"][0]["output"]))
    assert np.array_equal(np.array(document["output"]), concat @ np.array(document["inputs"]["Wo"]))
    assert set(document["inputs"]) == {"X", "Wq", "Wk", "Wv", "Wo"}


def test_check_compares_each_head_and_names_the_mistake(tmp_path, capsys):
    """A student who forgot to scale: their weights of head 2 match attention computed unscaled."""
    scenario = loads(THREE_D)
    attention = Attention(scenario)
    unscaled = Attention(scenario.with_options(scale=False))
    weights = [attention.head(0).values("softmax", range(3), range(3)), unscaled.head(1).values("softmax", range(3), range(3))]
    rows = lambda matrix: "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in matrix) + "]"  # noqa: E731
    path = tmp_path / "student.yaml"
    path.write_text(THREE_D + f"expect:\n  weights: [{rows(weights[0])}, {rows(weights[1])}]\n")
    assert main(["--check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "weights of previous: ✓ matches" in out and "weights of itself: ✗" in out
    assert "The first stage that differs is weights of itself." in out
    assert "not divided by √d_k" in out
    comparison = compare(load(path))
    assert comparison.stage("weights", 1).count > 0 and comparison.stage("weights", 0).matches


# ---- saving and recovery -------------------------------------------------------------------------

@pytest.mark.parametrize("text", [HAND_MADE, THREE_D])
def test_an_edit_of_one_head_is_saved_in_place_and_reads_back(tmp_path, text):
    path = tmp_path / "heads.yaml"
    path.write_text(text)
    session = Session(load(path))
    session.set_cell("Q", 2, 1, 7.5, head=1)
    session.set_cell("bo", 0, 1, 0.25)
    session.save()
    saved = path.read_text()
    assert "7.5" in saved and "0.25" in saved and saved.count("\n") == text.count("\n")  # in place
    back = load(path)
    assert back.inputs["Q"][1, 2, 1] == 7.5 and back.inputs["Q"][0, 2, 1] == 1.0
    assert back.inputs["bo"][0, 1] == 0.25 and back.head_names == ("previous", "itself")


def test_an_edit_of_a_shared_head_matrix_keeps_the_other_head_as_it_was(tmp_path):
    """Head 2's K is an alias of head 1's: editing head 1's K must not change head 2's."""
    path = tmp_path / "heads.yaml"
    path.write_text(HAND_MADE)
    session = Session(load(path))
    session.set_cell("K", 0, 0, 9.0, head=0)
    session.save()
    back = load(path)
    assert back.inputs["K"][0, 0, 0] == 9.0 and back.inputs["K"][1, 0, 0] == 1.0


def test_a_rewritten_file_keeps_heads_masks_and_rope(tmp_path):
    from attn_tui.core.editing.save import render

    text = ("query_tokens: [x, y]\ntokens: [a, b, c]\nheads: 2\nhead_names: [one, two]\n"
            "Q: [[[1, 0], [0, 1]], [[2, 0], [0, 2]]]\nK: [[[1, 0], [0, 1], [1, 1]]]\n"
            "V: [[[1, 0], [0, 1], [1, 1]]]\nkv_heads: 1\npadding: [0, 0, 1]\nmask: [[1, 1, 0], [0, 1, 1]]\n"
            "rope: {base: 500, pairs: interleaved}\n")
    scenario = loads(text, str(tmp_path / "s.yaml"))
    written = render(scenario, str(tmp_path / "whole.yaml")).text
    back = loads(written, str(tmp_path / "whole.yaml"))
    assert back.same_numbers(scenario)
    for field in ("query_tokens", "heads", "kv_heads", "head_names", "padding", "rope"):
        assert getattr(back, field) == getattr(scenario, field), field
    assert np.array_equal(back.mask, scenario.mask)


def test_a_recovery_copy_restores_an_edit_of_one_head(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = tmp_path / "heads.yaml"
    path.write_text(THREE_D)
    first = Session(load(path))
    first.set_cell("V", 1, 0, 4.5, head=1)
    first.journal.flush()
    second = Session(load(path))
    found = second.journal.pending()
    assert found is not None and second.journal.restore(found) == []
    assert second.scenario.inputs["V"][1, 1, 0] == 4.5 and second.scenario.inputs["V"][0, 1, 0] == 0.0


def test_print_and_markdown_walk_through_every_head_then_concat_and_projection(capsys):
    assert main(["--print", str(SCENARIOS / "two_heads.yaml")]) == 0
    printed = capsys.readouterr().out
    for head in ("[head 1]", "[head 2]"):
        assert f"Step 4 — Softmax: weights, each row sums to 1 (max = largest weight, H = entropy in nats) {head}" in printed
    assert "Step 6 — Concat" in printed and "Step 7 — Project: output = concat·Wo" in printed
    assert main(["--markdown", str(SCENARIOS / "cross_attention.yaml")]) == 0
    markdown = capsys.readouterr().out
    assert 'Queries (3): "the", "cat", "sleeps" · keys (3): "le", "chat", "dort" · d_k = 3' in markdown


def test_c_does_not_put_a_causal_mask_between_two_sequences():
    from attn_tui.core.errors import NotApplicable

    session = Session(load(SCENARIOS / "cross_attention.yaml"))
    with pytest.raises(NotApplicable, match="no causal mask in cross-attention"):
        session.toggle_causal()
    assert not session.scenario.options.causal and not session.modified


def test_the_mask_names_how_many_keys_each_rule_hides():
    from attn_tui.core.engine.explanation import explain

    scenario = load(SCENARIOS / "sliding_window.yaml")
    lines = [line.plain() for line in explain(Attention(scenario), "mask", 7, None).lines]
    assert '"eight" sees 3 of 8 keys; 5 hidden: 5 outside the window.' in lines
    scenario = load(SCENARIOS / "padding_mask.yaml")
    lines = [line.plain() for line in explain(Attention(scenario), "mask", 3, None).lines]
    assert '"cat" sees 2 of 5 keys; 3 hidden: 1 in the future, 2 padding.' in lines


def test_the_rotate_step_reads_as_its_formula():
    """θk = position × base^(−2(k−1)/d), pairs counted from 1; no doubled minus."""
    from attn_tui.core.engine.explanation import explain
    from tests.conftest import ROOT

    scenario = load(ROOT / "tests" / "data" / "tiny_llama_l1.yaml")
    lines = [line.plain() for line in explain(Attention(scenario), "rotate", 6, None).lines]
    assert any(line.startswith(f"  θ2 = {6 * 10000 ** (-2 / 16):.3f}: ") for line in lines), lines
    assert any("θk = position × 10000^(−2(k−1)/16)" in line for line in lines)
    assert not any("− −" in line or "· −" in line for line in lines)


def test_c_says_a_window_already_hides_the_future():
    from attn_tui.core.errors import NotApplicable

    session = Session(load(SCENARIOS / "sliding_window.yaml"))
    with pytest.raises(NotApplicable, match="already hides the future"):
        session.toggle_causal()


def test_a_row_that_sees_nothing_is_not_held_against_a_student(tmp_path):
    """A naive softmax gives NaN there, a finite mask uniform weights: neither is a mistake."""
    scenario = load(SCENARIOS / "padding_mask.yaml")
    weights = Attention(scenario).head(0).values("softmax", range(5), range(5))
    weights[:2] = np.nan  # 0/0 in the two rows of padding that see only padding
    rows = ", ".join("[" + ", ".join(".nan" if np.isnan(v) else repr(float(v)) for v in row) + "]" for row in weights)
    path = tmp_path / "naive.yaml"
    path.write_text((SCENARIOS / "padding_mask.yaml").read_text() + f"expect:\n  weights: [{rows}]\n")
    assert main(["--check", str(path)]) == 0


def test_the_diagnosis_is_the_first_reported_stages(tmp_path):
    """Head 1's output used K (a later stage), head 2's weights are unscaled (an earlier one):
    the first stage reported is head 2's weights, and so is the diagnosis."""
    scenario = loads(THREE_D)
    right, unscaled = Attention(scenario), Attention(scenario.with_options(scale=False))
    weights = [right.head(0).values("softmax", range(3), range(3)), unscaled.head(1).values("softmax", range(3), range(3))]
    output = [weights[0] @ scenario.inputs["K"][0], right.head(1).values("weighted_sum", range(3), range(2))]
    rows = lambda matrix: "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in matrix) + "]"  # noqa: E731
    path = tmp_path / "student.yaml"
    path.write_text(THREE_D + f"expect:\n  weights: [{rows(weights[0])}, {rows(weights[1])}]\n"
                              f"  output: [{rows(output[0])}, {rows(output[1])}]\n")
    comparison = compare(load(path))
    assert comparison.first_difference.stage == "weights" and comparison.first_difference.head == 1
    assert comparison.diagnosis.key == "unscaled"


def test_a_mask_may_be_a_boolean_npy_and_a_large_one_is_rewritten_to_a_file(tmp_path):
    from attn_tui.core.editing.save import render

    T = 800  # 640,000 flags: more than a rewritten YAML file may hold
    np.save(tmp_path / "mask.npy", np.tril(np.ones((T, T), bool)))
    np.savez(tmp_path / "qkv.npz", Q=np.ones((T, 2)), K=np.ones((T, 2)), V=np.ones((T, 2)))
    (tmp_path / "s.yaml").write_text("npz: qkv.npz\ncausal: false\nmask: {npy: mask.npy}\n")
    scenario = load(tmp_path / "s.yaml")
    assert scenario.mask.dtype == bool and scenario.mask[0, 1] == False  # noqa: E712
    plan = render(scenario, str(tmp_path / "whole.yaml"))
    assert "mask: {npy:" in plan.text and len(plan.arrays) == 1


def test_variants_of_heads_cover_every_head(capsys):
    text = THREE_D + "variants: [{name: unscaled, scale: false}]\n"
    scenario = loads(text)
    from attn_tui.core.outputs.json_export import json_chunks

    document = json.loads("".join(json_chunks(scenario)))
    variant = document["variants"][0]
    assert [head["name"] for head in variant["heads"]] == ["previous", "itself"]
    unscaled = Attention(scenario.with_options(scale=False))
    assert variant["heads"][1]["weights"] == unscaled.head(1).values("softmax", range(3), range(3)).tolist()
    assert np.array(variant["output"]).shape == (3, 2)
