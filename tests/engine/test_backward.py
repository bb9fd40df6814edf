"""The backward pass and training, checked against finite differences (the loss measured, not
derived) and against the chain rule written out by hand for the chapter's "the cat sat"; the
float64 comparison with PyTorch autograd over random shapes is test_backward_exact.py."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.backward import gradients, row_sizes
from attn_tui.core.engine.explanation import explain
from attn_tui.core.engine.gradient_check import finite_difference
from attn_tui.core.engine.stages import stages_for
from attn_tui.core.engine.training import Run, runs, train
from attn_tui.core.errors import ScenarioError
from attn_tui.core.loading.scenario_file import load, loads
from tests.conftest import SCENARIOS

CAT_SAT = """
tokens: [the, cat, sat]
Q: [[1, 0], [0, 1], [1, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1, 0], [0, 1], [0.5, 0.5]]
loss:
  target: [[1, 0], [1, 0], [1, 0]]
"""


def test_the_chapters_cat_by_hand():
    """ "cat" (causal) has weights [1/(1+e^a), e^a/(1+e^a), 0], a = 1/√2, and output [p1, p2]; its
    target [1, 0] gives dO = [p1 − 1, p2]. Written out with the chain rule, not the engine."""
    g = gradients(loads(CAT_SAT))
    a = 1 / np.sqrt(2)
    p1, p2 = 1 / (1 + np.exp(a)), np.exp(a) / (1 + np.exp(a))
    dO = np.array([p1 - 1, p2])
    assert np.allclose(g.d_output[1], dO, rtol=1e-14)
    dP = np.array([dO @ [1, 0], dO @ [0, 1], dO @ [0.5, 0.5]])
    assert np.allclose(g.heads[0].d_weights[1], dP, rtol=1e-14)
    D = p1 * dP[0] + p2 * dP[1]
    assert np.allclose(
        g.heads[0].d_scores[1], [p1 * (dP[0] - D), p2 * (dP[1] - D), 0.0], rtol=1e-13
    )
    assert g.heads[0].d_scores[1, 2] == 0.0  # masked: exactly 0
    assert g.heads[0].d_scores[0].tolist() == [
        0.0,
        0.0,
        0.0,
    ]  # "the" sees only itself: p = 1, no gradient
    assert g.loss == pytest.approx(0.5 * np.sum((g.d_output) ** 2), rel=1e-15)


@pytest.mark.parametrize(
    "extra",
    [
        "",
        "causal: false\nscale: false",
        "softcap: 1.5\nalibi: true",
        "mask_value: -2\nwindow: 2",
        "rope: {base: 10, pairs: interleaved}",
    ],
)
def test_every_input_cell_agrees_with_a_finite_difference(extra):
    scenario = loads(CAT_SAT.replace("Q: [[1, 0]", "Q: [[1.3, -0.2]") + extra)
    g = gradients(scenario)
    for name in ("Q", "K", "V"):
        for index in np.ndindex(scenario.inputs[name].shape):
            measured = finite_difference(scenario, name, index)
            assert measured == pytest.approx(g.inputs[name][index], abs=1e-7, rel=1e-6), (
                name,
                index,
            )


def test_projections_and_wo_agree_with_finite_differences():
    scenario = load(SCENARIOS / "two_heads.yaml")
    width = scenario.d_out
    target = np.round(np.random.default_rng(1).normal(size=(scenario.T, width)), 3)
    text = (
        (SCENARIOS / "two_heads.yaml").read_text()
        + "\nloss:\n  target: "
        + json.dumps(target.tolist())
        + "\n"
    )
    scenario = loads(text)
    g = gradients(scenario)
    rng = np.random.default_rng(0)
    for name in scenario.inputs:
        shape = scenario.inputs[name].shape
        for _ in range(4):
            index = tuple(int(rng.integers(n)) for n in shape)
            assert finite_difference(scenario, name, index) == pytest.approx(
                g.inputs[name][index], abs=1e-7, rel=1e-6
            )


def test_a_row_that_sees_nothing_gets_no_gradient():
    scenario = loads(CAT_SAT + "mask: [[0, 0, 0], [1, 1, 0], [1, 1, 1]]\n")
    g = gradients(scenario)
    assert not g.heads[0].d_scores[0].any() and not g.inputs["Q"][0].any()
    assert g.d_output[0].tolist() == [-1.0, 0.0]  # its output is 0, its target [1, 0]


def test_a_gradient_given_needs_no_target():
    scenario = loads(CAT_SAT.replace("target:", "grad:"))
    g = gradients(scenario)
    assert g.loss is None
    assert g.d_output.tolist() == [[1, 0], [1, 0], [1, 0]]


def test_unscaled_rows_collapse():
    """unscaled_x10 (Q × 10, no scaling) against the chapter's own Q, scaled, with one gradient
    given: its softmax is one-hot, p(1 − p) ≈ 0, and ‖dS‖ of every row all but vanishes (the
    seeds' "near-zero gradients")."""
    grad = "\nloss:\n  grad: [[1, -1], [-1, 1], [1, -1]]\n"
    x10 = loads((SCENARIOS / "unscaled_x10.yaml").read_text() + grad)
    unscaled = next(v for v in x10.variants if v.options(x10.options).scale is False)
    collapsed = row_sizes(Attention(x10, unscaled.options(x10.options)))
    chapter = row_sizes(Attention(loads((SCENARIOS / "cat_sat.yaml").read_text() + grad)))
    assert np.all(collapsed < 2e-4) and np.all(chapter[1:] > 0.1)
    text = explain(Attention(x10, unscaled.options(x10.options)), "d_scores", 1).plain()
    assert "learning stalls" in text


def test_learning_to_attend_learns_scaled_and_stalls_unscaled():
    scenario = load(SCENARIOS / "learning_to_attend.yaml")
    own, scaled, unscaled = runs(scenario)
    for run in (scaled, unscaled):
        run.run()
    assert scaled.losses[-1] < scaled.losses[0] / 1000
    assert unscaled.losses[-1] > unscaled.losses[0]  # it got worse, and stayed there
    assert abs(unscaled.losses[-1] - unscaled.losses[-51]) < 1e-3
    weights = Attention(scaled.scenario).values("softmax", 0, range(5), range(5))
    assert np.all(np.diag(weights, -1) > 0.95)  # each token attends to the one before it


def test_a_step_undone_is_the_state_before_it_bit_for_bit():
    run = Run(load(SCENARIOS / "learning_to_attend.yaml"))
    before = run.scenario.inputs["Wq"].copy()
    run.step()
    assert not np.array_equal(run.scenario.inputs["Wq"], before)
    assert run.undo() and np.array_equal(run.scenario.inputs["Wq"], before) and not run.undo()


def test_plain_gradient_descent_moves_by_minus_lr_times_the_gradient():
    scenario = loads(CAT_SAT + "train: {learn: [Q, V], lr: 0.5, steps: 1}\n")
    g = gradients(scenario)
    found = train(scenario)
    assert np.array_equal(found.learned["Q"], scenario.inputs["Q"] - 0.5 * g.inputs["Q"])
    assert found.losses[0] == g.loss and found.losses[1] < g.loss


def test_adam_first_step_moves_each_cell_by_about_lr():
    """Adam's first step is lr·g/(|g| + ε'): about lr against the gradient's sign, wherever
    g ≠ 0."""
    scenario = loads(CAT_SAT + "train: {learn: [V], lr: 0.01, steps: 1, optimizer: adam}\n")
    g = gradients(scenario).inputs["V"]
    moved = train(scenario).learned["V"] - scenario.inputs["V"]
    assert np.allclose(moved, -0.01 * np.sign(g), atol=1e-8)


@pytest.mark.parametrize(
    "text, message",
    [
        ("loss:\n  target: [[1, 0], [1, 0]]\n", "6:11: loss target is 2×2 but the output is 3×2"),
        ("loss: {target: [[1, 0]], grad: [[1, 0]]}\n", "loss needs one of target:"),
        ("loss: {targte: [[1, 0]]}\n", "targte"),
        ("train: {learn: [Q]}\n", "train: needs loss"),
        (
            "loss: {grad: [[1, 0], [1, 0], [1, 0]]}\ntrain: {learn: [Q]}\n",
            "a gradient given as grad",
        ),
        (
            "loss: {target: [[1, 0], [1, 0], [1, 0]]}\ntrain: {learn: [Wq]}\n",
            "train can learn Q, K, V, not 'Wq'",
        ),
        (
            "loss: {target: [[1, 0], [1, 0], [1, 0]]}\ntrain: {learn: [Q], lr: -1}\n",
            "lr must be a positive",
        ),
        (
            "loss: {target: [[1, 0], [1, 0], [1, 0]]}\ntrain: {learn: [Q], optimizer: rmsprop}\n",
            "sgd",
        ),
        ("loss: {target: [[1, .nan], [1, 0], [1, 0]]}\n", "finite"),
    ],
)
def test_bad_loss_and_train_keys_are_refused_at_their_line(text, message):
    base = CAT_SAT.split("loss:")[0].lstrip("\n")
    with pytest.raises(ScenarioError) as caught:
        loads(base + text, "mine.yaml")
    assert message in str(caught.value)
    assert str(caught.value).startswith("mine.yaml:")


def test_expect_accepts_the_backward_keys():
    scenario = loads(
        CAT_SAT + "expect:\n  d_scores: [[0, 0, 0], [-0.296, 0.296, 0], [null, null, null]]\n"
    )
    assert scenario.expect["d_scores"].values.shape == (3, 3)
    keys = loads(CAT_SAT + "expect:\n  d_keys: [[0, 0], [0, 0], [0, 0]]\n")
    assert keys.expect["d_keys"].values.shape == (3, 2)  # one row per key


def test_each_backward_step_explains_the_focus_row_with_its_own_numbers():
    scenario = loads(CAT_SAT)
    attention = Attention(scenario)
    names = [stage.name for stage in stages_for(scenario) if stage.arithmetic.backward]
    assert names == [
        "d_output",
        "d_values",
        "d_weights",
        "d_scores",
        "d_raw_scores",
        "d_queries",
        "d_keys",
    ]
    text = explain(attention, "d_scores", 1).plain()
    assert "0.330 × (−0.670 − 0.227) = −0.296" in text  # P × (dP − D), "cat" to "the"
    assert "p(1 − p) per key: [0.221, 0.221, 0.000]" in text  # 0.330 × 0.670 = 0.221


def test_json_holds_the_backward_pass_and_training(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        CAT_SAT
        + "train: {learn: [Q, K], lr: 0.1, steps: 3}\nheads_note: x\n".replace(
            "heads_note: x\n", ""
        )
    )
    out = subprocess.run(
        [sys.executable, "-m", "attn_tui", "--json", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = json.loads(out)
    g = gradients(load(path))
    assert found["backward"]["loss"] == g.loss
    assert found["backward"]["d_Q"] == g.inputs["Q"].tolist()
    assert found["backward"]["d_scores"] == g.heads[0].d_scores.tolist()
    assert len(found["training"]["loss"]) == 4 and set(found["training"]["learned"]) == {"Q", "K"}


def test_a_learned_scenario_saves_and_loads_with_its_loss_and_training(tmp_path):
    from attn_tui.core.editing.session import Session
    from attn_tui.core.model.edits import SetInputs

    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "learning_to_attend.yaml").read_text())
    session = Session(load(path), keep_recovery=False)
    run = Run(session.scenario)
    run.run(3)
    session.apply(
        SetInputs(run.learned(), {name: session.scenario.inputs[name] for name in run.learned()})
    )
    session.set_cell("X", 0, 0, 1.5)
    for written in (session.save(), session.save(str(tmp_path / "other.yaml"))):
        again = load(written)
        assert (
            np.array_equal(again.inputs["Wq"], run.learned()["Wq"])
            and again.inputs["X"][0, 0] == 1.5
        )
        assert again.stage_settings["d_output"] == session.scenario.stage_settings["d_output"]
        assert again.stage_settings["d_output"].train.learn == ("Wq", "Wk")
    assert (
        "# np.random.seed(0)" in path.read_text()
    )  # a save rewrites the numbers only: comments stay


def test_a_backward_stage_can_be_predicted_and_hides_what_follows_from_it():
    from attn_tui.core.editing.session import Session

    session = Session(loads(CAT_SAT + "predict: [d_scores]\n"), keep_recovery=False)
    assert session.predictions.hidden_rows("d_scores", 0).all()
    assert session.predictions.hidden_rows("d_queries", 0).all()  # dQ = dS·K/√d_k would tell
    assert not session.predictions.hidden_rows("softmax", 0).any()


def test_check_judges_a_students_backward_numbers(tmp_path):
    g = gradients(loads(CAT_SAT))
    mine = np.round(g.heads[0].d_scores, 4).tolist()
    path = tmp_path / "s.yaml"
    path.write_text(
        CAT_SAT + f"expect:\n  d_scores: {json.dumps(mine)}\nexpect_tolerance: 0.0001\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "attn_tui", "--check", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    path.write_text(CAT_SAT + "expect:\n  d_scores: [[0, 0, 0], [0.296, -0.296, 0], [0, 0, 0]]\n")
    done = subprocess.run(
        [sys.executable, "-m", "attn_tui", "--check", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 1 and "d_scores: ✗" in done.stdout


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 4),
    cols=st.integers(1, 4),
    big=st.sampled_from([1.0, 1e150, 1e200, 1e-320]),
    kind=st.sampled_from(["target", "grad"]),
    lr=st.sampled_from([1e-3, 0.1, 1e6, 1e300]),
    optimizer=st.sampled_from(["sgd", "adam"]),
)
def test_any_loss_is_refused_with_its_line_or_gives_finite_gradients(
    rows, cols, big, kind, lr, optimizer
):
    """Hostile sizes, shapes and learning rates: a clear error at load, a refused step, or finite
    numbers everywhere — never a NaN, an infinity or a crash."""
    matrix = (np.arange(rows * cols).reshape(rows, cols) % 3 - 1) * big
    train = (
        f"train: {{learn: [Q, V], lr: {lr!r}, steps: 3, optimizer: {optimizer}}}\n"
        if kind == "target"
        else ""
    )
    text = CAT_SAT.split("loss:")[0] + f"loss:\n  {kind}: {json.dumps(matrix.tolist())}\n" + train
    try:
        scenario = loads(text, "h.yaml")
    except ScenarioError as error:
        assert str(error).startswith("h.yaml:")
        return
    g = gradients(scenario)
    assert all(np.all(np.isfinite(values)) for values in g.inputs.values())
    if train:
        run = Run(scenario)
        try:
            run.run()
        except ArithmeticError as error:
            assert "lower lr" in str(error)
        assert all(np.isfinite(loss) for loss in run.losses)
