"""The backward pass and the Train view in the app, driven by the keys a user presses."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core.engine.backward import gradients
from attn_tui.core.engine.gradient_check import finite_difference
from attn_tui.core.engine.training import runs
from attn_tui.tui.screens.train import TrainScreen
from attn_tui.tui.widgets.loss_plot import LossPlot
from tests.conftest import SCENARIOS
from tests.reference import softmax
from tests.tui_helpers import debugger, drawn_lines, explanation, matrix, post, running, screen_text

LEARNING = SCENARIOS / "learning_to_attend.yaml"


THREE_VARIANTS = (
    "variants: [{name: scaled, scale: true}, {name: unscaled, scale: false}, "
    "{name: bidirectional, causal: false}]\n"
)


def training_runs(tmp_path, T: int, d: int, lr: float, variants: str):
    """A random scenario of T tokens learning Q and K towards a random target, with variants."""
    path = tmp_path / "runs.yaml"
    np.save(tmp_path / "target.npy", np.random.default_rng(1).normal(size=(T, d)))
    path.write_text(
        f"random: {{seed: 0, T: {T}, d_k: {d}}}\nloss: {{target: {{npy: target.npy}}}}\n"
        f"train: {{learn: [Q, K], lr: {lr}, steps: 200}}\n" + variants
    )
    return path


async def run_then_pause(pilot, train, steps: int) -> None:
    """r, then r again once the first run has taken ``steps`` steps."""
    await pilot.press("r")
    for _ in range(200):
        await pilot.pause(0.02)
        if train.runs[0].state.step >= steps:
            break
    await pilot.press("r")


@pytest.mark.slow
async def test_the_backward_steps_follow_the_forward_ones_and_recompute_after_an_edit(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        (SCENARIOS / "cat_sat.yaml").read_text() + "\nloss:\n  target: [[1, 0], [1, 0], [1, 0]]\n"
    )
    async with running(path) as (app, pilot):
        screen = debugger(app)
        assert [stage.title for stage in screen.stages][5:] == [
            "dO",
            "dV",
            "dP",
            "dS",
            "dScores",
            "dQ",
            "dK",
        ]
        await pilot.press("up", "9")  # dS, row "cat"
        assert screen.stage == "d_scores"
        assert "0.330 × (−0.670 − 0.227) = −0.296" in explanation(app)
        before = screen.session.attention.backward.d_scores(0, range(1, 2), range(3))[0].copy()
        await pilot.press("tab", "down", "enter", "2", "enter", "escape")  # Q[cat, d1] = 2
        assert screen.session.scenario.inputs["Q"][1, 0] == 2.0
        after = screen.session.attention.backward.d_scores(0, range(1, 2), range(3))[0]
        assert not np.allclose(before, after)
        assert np.allclose(
            after, gradients(screen.session.scenario).heads[0].d_scores[1], rtol=1e-15
        )
        await pilot.press("7")  # dV: its rows are the keys
        assert "Step 7 · dV" in screen_text(
            app
        ) and 'how the loss changes with "cat"\'s value vector' in explanation(app)


async def test_v_checks_the_cell_under_the_cursor_by_finite_differences():
    async with running(LEARNING) as (app, pilot):
        screen = debugger(app)
        await pilot.press("tab")
        assert screen.focused is matrix(app, "X")
        await pilot.press("down", "right", "v")  # X[t2, m2]
        analytic = gradients(screen.session.scenario).inputs["X"][1, 1]
        measured = finite_difference(screen.session.scenario, "X", (1, 1))
        text = explanation(app)
        assert "Gradient check of X[t2, m2]" in text and "they agree" in text
        shown = text.replace("−", "-")
        assert f"{analytic:.6f}" in shown and f"{measured:.6f}" in shown


async def test_t_is_off_without_train_and_v_without_a_target():
    async with running() as (app, pilot):
        screen = debugger(app)
        assert not screen.check_action("train", ()) and not screen.check_action(
            "check_gradient", ()
        )
        await pilot.press("t", "v")
        assert not isinstance(app.screen, TrainScreen)
        assert "Gradient check" not in explanation(app)


@pytest.mark.slow
async def test_the_train_view_steps_runs_undoes_and_keeps():
    async with running(LEARNING) as (app, pilot):
        screen = debugger(app)
        start = screen.session.scenario.inputs["Wq"].copy()
        await pilot.press("t")
        train = app.screen
        assert isinstance(train, TrainScreen)
        assert [run.name for run in train.runs] == [
            "scaled",
            "unscaled",
        ]  # the variants side by side
        await pilot.press("space", "space")
        assert [run.state.step for run in train.runs] == [2, 2]
        expected = runs(load(LEARNING))[1]
        expected.run(2)
        assert np.array_equal(train.runs[0].scenario.inputs["Wq"], expected.scenario.inputs["Wq"])
        await pilot.press("u")
        assert [run.state.step for run in train.runs] == [1, 1]
        await pilot.press("r")
        for _ in range(1200):  # (up to a minute: the suite's other process shares the cores)
            await pilot.pause(0.05)
            if not train.running:
                break
        await pilot.pause(
            0.1
        )  # (the last tick's frame: its words are laid out before they are read)
        assert [run.state.step for run in train.runs] == [200, 200]
        scaled, unscaled = train.runs
        assert (
            scaled.losses[-1] < scaled.losses[0] / 1000 and unscaled.losses[-1] > unscaled.losses[0]
        )
        text = screen_text(app)
        assert "scaled" in text and "step 200/200 · done" in text and "learning stalls" in text
        plot = train.query(LossPlot).first()
        assert plot.losses == scaled.losses and plot.top == max(unscaled.losses)  # one shared axis
        await pilot.press("enter")  # keep the chosen (first: scaled) run's Wq and Wk
        assert app.screen is screen
        assert np.array_equal(screen.session.scenario.inputs["Wq"], scaled.scenario.inputs["Wq"])
        assert screen.session.modified
        assert screen.session.attention.backward.loss() == scaled.losses[-1]
        await pilot.press("u")
        assert np.array_equal(screen.session.scenario.inputs["Wq"], start)
        await pilot.press("t", "space", "escape")  # Esc: back, keeping nothing
        assert app.screen is screen and not screen.session.modified


def test_the_loss_plot_draws_its_axes_and_the_fall():
    plot = LossPlot()
    plot.show([4.0, 2.0, 1.0, 0.0], 4.0, 3)
    heights = plot.heights(4)
    assert heights == [1.0, 0.5, 0.25, 0.0]
    plot.show([4.0], 4.0, 3)
    assert plot.heights(4) == [1.0, None, None, None]  # steps not taken yet are left blank


async def test_space_shows_the_step_worked_out_while_the_last_one_was_read():
    """The next step of each run is worked out on a thread once a step is drawn (a
    step at T = 1024 is ~60 ms of arithmetic); Space takes it, the same step as one taken anew."""
    async with running(LEARNING) as (app, pilot):
        await pilot.press("t")
        train = app.screen
        for _ in range(2):
            await pilot.pause(0.3)
            worked = {number: pending.result() for number, (_, pending) in train._ahead.items()}
            assert sorted(worked) == [0, 1] and all(
                worked[n].base is run.state for n, run in enumerate(train.runs)
            )
            await pilot.press("space")
            assert all(
                run.state is worked[n].state for n, run in enumerate(train.runs)
            )  # taken, not redone
        expected = runs(load(LEARNING))[1]
        expected.run(2)
        assert np.array_equal(train.runs[0].scenario.inputs["Wq"], expected.scenario.inputs["Wq"])
        await pilot.press("u")
        await pilot.pause(0.3)
        assert all(
            train._ahead[n][1].result().base is run.state for n, run in enumerate(train.runs)
        )
        await pilot.press("escape")
        assert train._pool is None and not train._ahead
        train._look_ahead()  # (one queued before it left, run after)
        assert train._pool is None and not train._ahead


async def test_running_works_the_steps_out_on_the_thread_and_a_pause_stops_every_run_in_step(
    tmp_path,
):
    """r runs the steps on a thread (on the app's own thread the key that pauses would wait for
    ~33 ms of steps, then ~28 ms of words): each run's losses are those of the same steps
    taken one by one, a pause leaves the runs at one step, and the thread stops after it."""
    path = training_runs(
        tmp_path,
        128,
        8,
        0.01,
        "variants: [{name: scaled, scale: true}, {name: unscaled, scale: false}]\n",
    )
    async with running(path) as (app, pilot):
        await pilot.press("t")
        train = app.screen
        await run_then_pause(pilot, train, 3)
        assert not train.running and train._running_ahead is None
        steps = {run.state.step for run in train.runs}
        assert len(steps) == 1 and 3 <= steps.pop() < 200  # in step, and paused before the end
        await pilot.press("r")
        for _ in range(1200):
            await pilot.pause(0.05)
            if not train.running:
                break
        expected = runs(load(path))[1:]
        for run, alone in zip(train.runs, expected):
            alone.run(200)
            assert run.losses == alone.losses  # bit for bit, the sequential run's
            assert np.array_equal(run.scenario.inputs["K"], alone.scenario.inputs["K"])


async def test_a_pause_says_so_at_once_and_every_run_then_shows_the_step_it_paused_at(tmp_path):
    """Running, a frame redraws one run's matrices in turn (three runs' matrices would be ~18 ms
    of every frame, and a pause would wait for them); a pause shows "paused" in each run's
    own line, and then every run's weights are those of its own last step, worked out here
    from its Q and K (scaled, unscaled, both ways)."""
    T = 64
    path = training_runs(tmp_path, T, 4, 0.05, THREE_VARIANTS)
    async with running(path, size=(150, 50)) as (app, pilot):
        await pilot.press("t")
        train = app.screen
        await run_then_pause(pilot, train, 5)
        states = [box.query_one(".run-state").render() for box in train.query(".run")]
        assert all(str(text).endswith("· paused") for text in states), states
        await pilot.pause(0.2)  # (the matrices left behind are drawn once the pause's frame is out)
        for box, run, scale, causal in zip(
            train.query(".run"), train.runs, (True, False, True), (True, True, False)
        ):
            Q, K = run.scenario.inputs["Q"], run.scenario.inputs["K"]
            scores = Q @ K.T / (2.0 if scale else 1.0)
            if causal:
                scores[np.triu_indices(T, 1)] = -np.inf
            weights = softmax(scores)
            lines = drawn_lines(box.query_one(".run-weights"))  # a header, then t1, t2, …
            for row in (0, 3, 7):
                label, *cells = lines[1 + row].split()
                assert label == f"t{row + 1}" and len(cells) >= 4
                assert np.allclose(
                    [float(cell) for cell in cells], weights[row, : len(cells)], atol=6e-4
                ), (run.name, row, cells, weights[row])


@pytest.mark.parametrize(
    "keys",
    [
        ["r", "r", "escape"],
        ["r", "r", "enter"],
        ["r", "r", "u", "r", "r", "space"],
        ["r", "r", "r", "r", "r", "escape"],
    ],
)
async def test_keys_in_a_burst_after_a_pause_leave_the_view_whole(tmp_path, keys):
    """A pause draws the runs left behind once its frame is out: a key that leaves, keeps, undoes
    or steps before that must find no half-drawn view and raise nothing."""
    path = training_runs(tmp_path, 64, 4, 0.05, THREE_VARIANTS)
    async with running(path) as (app, pilot):
        await pilot.press("t")
        train = app.screen
        await pilot.press(keys[0])
        await pilot.pause(0.15)
        await post(app, *keys[1:])  # (as the driver posts them: no frame drawn between two)
        await pilot.pause(0.4)
        if keys[-1] in ("escape", "enter"):
            assert app.screen is debugger(app) and train._left
        else:
            assert app.screen is train and not train.running
            steps = {run.state.step for run in train.runs}
            assert len(steps) == 1
