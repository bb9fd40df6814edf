"""The engine's training (core.engine.training) against the float64 PyTorch reference's
(tests/torch_attention.py: torch.optim's SGD and Adam), every step's loss and what was learned,
on the random scenarios of tests/engine/random_gradient_scenarios.py (whose gradients are
checked in tests/engine/test_backward_exact.py): with each feature, and Wo and bo learned with
Q, K and V given."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="the gradient reference is PyTorch autograd (pip install torch)"
)

from attn_tui.core.loading.scenario_file import loads  # noqa: E402
from tests import torch_attention as ref  # noqa: E402
from tests.engine.float64_tolerance import assert_close  # noqa: E402
from tests.engine.random_gradient_scenarios import FEATURES, cases, with_loss  # noqa: E402

pytestmark = pytest.mark.models

torch.set_num_threads(1)  # tiny matrices: threads only cost time (and the machines are shared)


# ---- training --------------------------------------------------------------------------------


def learnable(c: dict, rng, output_projection: bool = True) -> list[str]:
    names = (
        ["Q", "K", "V"]
        if c["kind"] == "qkv"
        else ["X", "Wq", "Wk", "Wv"] + (["X_q"] if "X_q:" in c["yaml"] else [])
    )
    if output_projection:
        names += [n for n in ("Wo", "bo") if f"\n{n}:" in c["yaml"]]
    chosen = [n for n in names if rng.random() < 0.5]
    return chosen or [names[int(rng.integers(len(names)))]]


def check_training(c: dict, seed, optimizer: str, rng, learn=None) -> bool:
    train = pytest.importorskip(
        "attn_tui.core.engine.training", reason="core.engine.training is not written yet"
    ).train
    # (Wo and bo learn in the projection scenarios here; with Q, K, V given, in their own test)
    learn = learn or learnable(c, rng, output_projection=c["kind"] == "projection")
    steps = int(rng.integers(5, 21))
    lr = (
        float(rng.choice([0.01, 0.05, 0.1]))
        if optimizer == "sgd"
        else float(rng.choice([0.001, 0.01, 0.05]))
    )
    scenario = loads(with_loss(c))
    while True:  # a rate the reference's run stays finite and bounded with (no overflow to compare)
        losses, learned, slack = ref.train(
            scenario, learn=learn, lr=lr, steps=steps, optimizer=optimizer, target=c["target"]
        )
        if all(math.isfinite(x) for x in losses) and max(losses) <= 10 * losses[0] + 1:
            break
        lr /= 10
    text = with_loss(c) + (
        f"train: {{learn: [{', '.join(learn)}], lr: {lr!r}, steps: {steps}, "
        f"optimizer: {optimizer}}}\n"
    )
    scenario = loads(text)
    got = train(scenario)
    where = f"(seed {seed}, {optimizer})"
    assert len(got.losses) == steps + 1, (
        f"{len(got.losses)} losses for {steps} steps {where}\n{text}"
    )
    assert_close(np.array(got.losses, dtype=np.float64), np.array(losses), f"losses {where}", text)
    assert set(got.learned) == set(learn), (
        f"learned {sorted(got.learned)}, want {sorted(learn)} {where}\n{text}"
    )
    for name in learn:
        # (Adam: plus how far its ÷(√v̂ + ε) may carry rounding-level gradients; 0 for SGD)
        assert_close(got.learned[name], learned[name], f"learned {name} {where}", text, slack[name])
    return losses[-1] < losses[0]  # (whether training did anything here: see the callers)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_training_is_torch_optim(optimizer):
    rng = np.random.default_rng(7 if optimizer == "sgd" else 8)
    improved = sum(check_training(c, seed, optimizer, rng) for seed, c in cases(range(1300, 1320)))
    assert improved >= 12  # most runs lowered the loss: the comparisons were of moving parameters


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize(
    "force", ["projection", "gqa", "wo_bo", "empty_row", "leaky_mask", "rope_partial", "cross"]
)
def test_training_with_features(optimizer, force):
    rng = np.random.default_rng([9, FEATURES.index(force)])
    for seed, c in cases(range(3), force):
        check_training(c, seed, optimizer, rng)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_training_learns_wo_and_bo_with_qkv_given(optimizer):
    """Wo and bo are inputs of a Q, K, V scenario too (gradients() reports dWo and dbo there)."""
    rng = np.random.default_rng(11)
    chosen = [(seed, c) for seed, c in cases(range(12), "wo_bo") if c["kind"] == "qkv"][:3]
    assert chosen
    for seed, c in chosen:
        check_training(c, seed, optimizer, rng, learn=["Wo", "bo"])
