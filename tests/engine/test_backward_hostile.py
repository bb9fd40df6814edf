"""What an attacker found in the backward pass and training, each fixed (a test failed before):
a multi-head check that crashed, a variant's name that reached the terminal raw, a learning rate
that overflowed into an internal error, inputs whose gradients left float64's range, training
that asked for hours or unbounded memory, and keys past the last query out of reach."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from attn_tui.core.editing.session import Session
from attn_tui.core.engine.gradient_sizes import sizes_compared
from attn_tui.core.engine.training import Run
from attn_tui.core.errors import NumericError, ScenarioError
from attn_tui.core.loading.scenario_file import loads
from attn_tui.core.outputs.report import attentions_of, to_text
from attn_tui.tui.widgets.loss_plot import LossPlot
from tests.tui_helpers import debugger, explanation, running

TWO = """tokens: [a, b]
Q: [[1, 0], [0, 1]]
K: [[1, 0], [0, 1]]
V: [[1, 2], [3, 4]]
"""


def run_cli(tmp_path, text: str, *flags: str) -> subprocess.CompletedProcess:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "attn_tui", *flags, str(path)], capture_output=True, text=True
    )


@pytest.mark.parametrize(
    "expect",
    [
        "weights: [[1, 0], [0.5, 0.5]]",
        "d_scores: [[0, 0], [0, 0]]",
        "d_head_output: [[0, 0], [0, 0]]",
    ],
)
def test_a_check_with_wo_and_a_loss_compares_instead_of_crashing(tmp_path, expect):
    text = (
        TWO + "Wo: [[1, 0], [0, 1]]\nloss: {target: [[0, 0], [0, 0]]}\nexpect: {" + expect + "}\n"
    )
    done = run_cli(tmp_path, text, "--check")
    assert done.returncode == 1, done.stderr  # the values differ: said, not crashed
    assert "your values differ" in done.stdout and "internal error" not in done.stderr


def test_a_backward_expectation_of_one_head_of_several_is_that_heads_gradient(tmp_path):
    from attn_tui.core.engine.backward import gradients
    from attn_tui.core.teaching.compare import compare

    heads = (
        "tokens: [a, b, c]\nheads: 2\nX: [[1, 0], [0, 1], [1, 1]]\nWq: [[1, 0], [0, 1]]\n"
        "Wk: [[1, 0], [0, 1]]\nWv: [[1, 2], [3, 4]]\nloss: {target: [[1, 0], [0, 1], [1, 1]]}\n"
    )
    scenario = loads(heads)
    correct = [head.d_scores.tolist() for head in gradients(scenario).heads]
    import json

    found = compare(loads(heads + f"expect: {{d_scores: {json.dumps(correct)}}}\n"))
    assert found.ok and len(found.stages) == 2


def test_a_variants_name_is_made_visible_in_the_gradient_comparison():
    text = TWO + (
        'loss: {target: [[0, 0], [0, 0]]}\nvariants:\n  - {name: "v\\e]0;PWN\\a", causal: false}\n'
        "  - {name: w, scale: false}\n"
    )
    scenario = loads(text)
    attentions = attentions_of(scenario)
    names = [variant.name for variant in scenario.variants]
    for said in (
        sizes_compared({name: attentions[name] for name in names}, names),
        to_text(scenario),
    ):
        assert "\x1b" not in said and "\x07" not in said and "␛" in said


def test_a_learning_rate_that_overflows_is_a_located_error_in_every_headless_mode(tmp_path):
    text = TWO + "loss: {target: [[0, 0], [0, 0]]}\ntrain: {learn: [V], lr: 1e300, steps: 5}\n"
    for flags in (("--json",), ("--check",)):
        done = run_cli(tmp_path, text, *flags)
        assert done.returncode == 2, (flags, done.stderr)
        assert done.stderr.strip().endswith("lower lr (it is 1e+300)") and ":6:25:" in done.stderr
        assert "Warning" not in done.stderr and done.stdout == (
            "" if flags == ("--json",) else done.stdout
        )


@pytest.mark.parametrize(
    "extra", ["loss: {target: [[1, 0], [0, 1]]}\n", "loss: {grad: [[1e149, 0], [0, 1]]}\n"]
)
def test_inputs_whose_backward_pass_would_overflow_are_refused_at_load(extra):
    with pytest.raises(ScenarioError) as caught:
        loads(TWO.replace("V: [[1, 2]", "V: [[1e200, 2]") + extra, "big.yaml")
    assert "the backward pass could overflow float64" in str(caught.value) and str(
        caught.value
    ).startswith("big.yaml:4:")


def test_an_edit_that_would_overflow_the_backward_pass_is_undone():
    session = Session(loads(TWO + "loss: {target: [[1, 0], [0, 1]]}\n"), keep_recovery=False)
    with pytest.raises(NumericError):
        session.set_cell("V", 0, 0, 1e200)
    assert session.scenario.inputs["V"][0, 0] == 1 and np.isfinite(
        session.attention.backward.loss()
    )


def test_training_that_would_take_minutes_is_refused_at_load_and_says_how_much_would_do():
    text = TWO + (
        "loss: {target: [[0, 0], [0, 0]]}\ntrain: {learn: [V], steps: 100000}\n"
        "variants: [{name: a, causal: false}, {name: b, scale: false}]\n"
    )
    with pytest.raises(ScenarioError) as caught:
        loads(text, "long.yaml")
    assert "train asks for 100,000 steps × 3 runs" in str(caught.value) and "at most" in str(
        caught.value
    )


def test_a_runs_undo_history_is_bounded_and_its_losses_complete():
    run = Run(
        loads(TWO + "loss: {target: [[0, 0], [0, 0]]}\ntrain: {learn: [V], lr: 0.01, steps: 50}\n"),
        keep=5,
    )
    run.run(20)
    assert len(run.states) == 5 and len(run.losses) == 21
    while run.undo():
        pass
    assert run.state.step == 16 and len(run.losses) == 17  # as far back as the states kept reach


def test_print_of_every_row_walks_the_keys_past_the_last_query_too():
    cross = (
        "query_tokens: [q1, q2]\ntokens: [k1, k2, k3]\nQ: [[1, 0], [0, 1]]\n"
        "K: [[1, 0], [0, 1], [1, 1]]\nV: [[1, 0], [0, 1], [1, 1]]\n"
        "loss: {target: [[1, 0], [0, 1]]}\n"
    )
    scenario = loads(cross)
    text = to_text(scenario, rows=[0, 1])
    assert 'Key 3, "k3": the backward steps whose rows are keys' in text
    assert 'how the loss changes with "k3"\'s key' in text and "dk3 = " in text


async def test_the_row_cursor_reaches_every_key_at_a_step_whose_rows_are_keys(tmp_path):
    path = tmp_path / "cross.yaml"
    path.write_text(
        "query_tokens: [q1, q2]\ntokens: [k1, k2, k3]\nQ: [[1, 0], [0, 1]]\n"
        "K: [[1, 0], [0, 1], [1, 1]]\nV: [[1, 0], [0, 1], [1, 1]]\n"
        "loss: {target: [[1, 0], [0, 1]]}\n"
    )
    async with running(path) as (app, pilot):
        screen = debugger(app)
        await pilot.press("end")  # dK, a row per key
        assert screen.stage == "d_keys"
        await pilot.press("down", "down", "down")
        assert screen.row == 2 and '"k3"\'s key' in explanation(app)
        await pilot.press("1")  # back at a step of the queries: the row comes back within them
        assert screen.row == 1 and screen.stage == "score"


async def test_the_loss_plot_keeps_its_axis_straight_with_long_labels():
    from textual.app import App

    class One(App):
        def compose(self):
            yield LossPlot()

    app = One()
    async with app.run_test(size=(40, 8)) as pilot:
        plot = app.query_one(LossPlot)
        plot.show([1.277e301, 1.0], 1.277e301, 1)
        await pilot.pause()
        lines = [plot.render_line(y).text for y in range(plot.size.height - 1)]
        columns = {line.index("│") if "│" in line else line.index("└") for line in lines}
        assert len(columns) == 1, lines  # one axis, whatever the labels' widths
        assert "1.277e301" in lines[0].replace("e+", "e")


async def test_the_train_view_shows_hostile_run_names_as_written(tmp_path):
    from attn_tui.tui.screens.train import TrainScreen
    from tests.tui_helpers import screen_text

    path = tmp_path / "s.yaml"
    path.write_text(
        TWO + "loss: {target: [[0, 0], [0, 0]]}\ntrain: {learn: [V], lr: 0.1, steps: 3}\n"
        'variants:\n  - {name: "[/INST]", causal: false}\n  - {name: "x\\e[31my", scale: false}\n'
    )
    async with running(path) as (app, pilot):
        await pilot.press("t", "space")
        assert isinstance(app.screen, TrainScreen)
        text = screen_text(app)
        assert "╭─ [/INST] ─" in text and "step 1/3 · paused" in text and "x␛[31my" in text
        assert "\x1b" not in text


@pytest.mark.parametrize("steps", [2, 22])
def test_training_at_t_16384_is_refused_at_once_saying_what_to_lower(tmp_path, steps):
    """Issue 49: 22 steps at T = 16,384 (d_k = 1) were accepted (multiply-adds alone were counted)
    and ran past 240 s; one step takes ~18 s here. The estimate counts each weight's own cost."""
    import time

    np.save(tmp_path / "target.npy", np.zeros((16_384, 1)))
    text = (
        f"random: {{seed: 0, T: 16384, d_k: 1}}\nloss: {{target: {{npy: target.npy}}}}\n"
        f"train: {{learn: [Q], steps: {steps}}}\n"
    )
    started = time.monotonic()
    done = run_cli(tmp_path, text, "check")
    assert time.monotonic() - started < 10  # a promise, not a speed target: refused before any step
    assert done.returncode == 2, done.stdout
    assert (
        f"s.yaml:3:28: train asks for {steps} step" in done.stderr and "at T = 16384" in done.stderr
    )
    assert "at most 1 steps" in done.stderr or "even one step" in done.stderr


def test_the_training_estimate_counts_each_weight_not_only_multiply_adds():
    from attn_tui.core.reading.loss import PER_WEIGHT, PER_WIDTH, RATE, step_work

    class Plan:
        heads, T, T_k, d_k, d_v = 1, 16_384, 16_384, 1, 1

    # ~18 s measured a step here: the estimate is at least that, and within 3× of it
    assert 18 <= step_work(Plan) / RATE <= 54
    assert PER_WEIGHT > 20 * PER_WIDTH  # at d_k = 1 the per-weight cost dominates


def test_a_huge_ratio_of_gradients_is_said_in_three_figures(monkeypatch):
    """Found trying the Train view with an lr that overflows: "1717190777613134488751160137089024×
    less gradient" (33 digits). A ratio is said as the numbers around it are, 1.7e33×."""
    from attn_tui.core.engine import backward

    scenario = loads(
        TWO + "loss: {target: [[0, 0], [0, 0]]}\nvariants:\n  - {name: a, scale: true}\n"
        "  - {name: b, scale: false}\n"
    )
    attentions = attentions_of(scenario)
    sizes = {id(attentions["a"]): np.array([1.717e33]), id(attentions["b"]): np.array([1.0])}
    monkeypatch.setattr(backward, "row_sizes", lambda attention, h=0: sizes[id(attention)])
    said = sizes_compared({name: attentions[name] for name in ("a", "b")}, ["a", "b"])
    assert "1.7e33× less gradient reaches b's scores" in said
