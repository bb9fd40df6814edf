"""A training step worked out ahead, on another thread, while the run is read (the Train view
does so while the user reads the last step: issue 30), is the step taken in place, bit for bit;
it is taken only by the state it was worked out from, and a refused one is refused when taken."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from attn_tui.core.engine.training import Run
from attn_tui.core.loading.scenario_file import loads
from tests.random_scenarios import yaml_matrix

T, D_MODEL, HEADS, KV_HEADS, D = 300, 8, 4, 2, 4  # more rows than a block of the engine (16, 128)


def scenario(train: str = "{learn: [Wq, Wk, X], lr: 0.01, steps: 5, optimizer: adam}"):
    rng = np.random.default_rng(30)
    return loads(
        "\n".join(
            [
                "tokens: [" + ", ".join(f"t{i}" for i in range(T)) + "]",
                f"heads: {HEADS}",
                f"kv_heads: {KV_HEADS}",
                "causal: true",
                "rope: {base: 10, pairs: interleaved}",
                f"X: {yaml_matrix(rng.normal(size=(T, D_MODEL)))}",
                f"Wq: {yaml_matrix(rng.normal(size=(D_MODEL, HEADS * D)))}",
                f"Wk: {yaml_matrix(rng.normal(size=(D_MODEL, KV_HEADS * D)))}",
                f"Wv: {yaml_matrix(rng.normal(size=(D_MODEL, KV_HEADS * D)))}",
                f"loss: {{target: {yaml_matrix(rng.normal(size=(T, HEADS * D)))}}}",
                f"train: {train}",
                "",
            ]
        )
    )


def test_a_step_worked_out_on_another_thread_is_the_step_taken_in_place():
    start = scenario()
    here, there = Run(start), Run(start)
    with ThreadPoolExecutor(1) as pool:
        for _ in range(3):
            pending = pool.submit(there.ahead, there.state)
            there.attention.values(
                "softmax", 1, range(100, 140), range(0, 120)
            )  # read, as a view does
            here.step()
            there.take(pending.result())
            assert here.losses == there.losses and here.state.step == there.state.step
            for name in ("Wq", "Wk", "X"):
                assert np.array_equal(here.scenario.inputs[name], there.scenario.inputs[name])
                assert all(
                    np.array_equal(a, b)
                    for a, b in zip(here.state.moments[name], there.state.moments[name])
                )
    assert here.losses[-1] < here.losses[0]  # (it learned: the steps were real ones)


def test_a_step_is_taken_only_by_the_state_it_was_worked_out_from():
    run = Run(scenario())
    stale = run.ahead(run.state)
    run.step()
    with pytest.raises(ValueError, match="another state"):
        run.take(stale)
    assert run.state.step == 1
    assert run.undo() and run.take(stale).step == 1  # back where it was worked out: it fits again


def test_a_refused_step_is_refused_when_taken_and_the_run_stays():
    run = Run(scenario("{learn: [Wq], lr: 1e306, steps: 5}"))
    ahead = run.ahead(run.state)
    assert ahead.state is None and isinstance(ahead.error, ArithmeticError)
    with pytest.raises(ArithmeticError, match="lower lr"):
        run.take(ahead)
    assert len(run.states) == 1 and run.losses == [run.state.loss]
