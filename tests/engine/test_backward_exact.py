"""The engine's gradients (core.engine.backward) and training (core.engine.training) against an
independent float64 PyTorch-autograd reference (tests/torch_attention.py), on random scenarios
written as YAML text (tests/engine/random_gradient_scenarios.py): self- and cross-attention
(T_q ≠ T_k), causal, window, padding, explicit masks with rows that see no key, finite mask
values (−1e9 and leaky ones), ALiBi and given biases (2-D and per head), softcap, RoPE (full and
partial, half and interleaved), several heads, grouped keys/values, Q/K/V or X with projections,
with and without Wo/bo, every kind of scale; to the tolerance of
tests/engine/float64_tolerance.py.

The reference is checked itself first: its forward against the engine's forward (which the
rest of the suite checks against other references), and its autograd against finite
differences (torch.autograd.gradcheck). Training against it is
tests/engine/test_training_is_torch_optim.py."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="the gradient reference is PyTorch autograd (pip install torch)"
)

from attn_tui.core.engine.attention import Attention  # noqa: E402
from attn_tui.core.loading.scenario_file import loads  # noqa: E402
from attn_tui.core.model.options import Options  # noqa: E402
from tests import torch_attention as ref  # noqa: E402
from tests.engine.float64_tolerance import FLOOR, RTOL, assert_close  # noqa: E402
from tests.engine.random_gradient_scenarios import FEATURES, cases, with_loss  # noqa: E402

pytestmark = pytest.mark.models

torch.set_num_threads(1)  # tiny matrices: threads only cost time (and the machines are shared)


# ---- the reference itself --------------------------------------------------------------------


def engine_forward(scenario, options=None):
    attention = Attention(scenario, options)
    rows, keys = range(scenario.T), range(scenario.T_k)
    names = [step.name for step in attention.steps]
    last = "project" if "project" in names else "concat" if "concat" in names else "weighted_sum"
    width = scenario.d_out if last != "weighted_sum" else scenario.d_v
    output = attention.values(last, None if last != "weighted_sum" else 0, rows, range(width))
    heads = []
    for h in range(scenario.heads):
        head = attention.head(h)
        before_mask = attention.previous("mask")
        heads.append((head.values(before_mask, rows, keys), head.values("softmax", rows, keys)))
    return output, heads


@pytest.mark.parametrize("force", (None,) + FEATURES)
def test_the_reference_forward_is_the_engines(force):
    """The torch forward (pre-mask scores, weights, final output) is the engine's to rounding, so
    the gradient reference differentiates the function the engine computes."""
    for seed, c in cases(range(12 if force is None else 6), force):
        scenario = loads(c["yaml"])
        want_output, want_heads = engine_forward(scenario)
        f = ref.forward(scenario, ref.leaves_of(scenario))
        assert_close(f.output.detach().numpy(), want_output, f"output (seed {seed})", c["yaml"])
        for h, (pre, weights) in enumerate(want_heads):
            assert_close(
                f.pre_mask[h].detach().numpy(),
                pre,
                f"head {h} scores before the mask (seed {seed})",
                c["yaml"],
            )
            assert_close(
                f.weights[h].detach().numpy(), weights, f"head {h} weights (seed {seed})", c["yaml"]
            )
            assert (f.weights[h].detach().numpy()[f.empty] == 0).all()


def test_the_reference_forward_under_other_options():
    for seed, c in cases(range(20)):
        scenario = loads(c["yaml"])
        same = scenario.T == scenario.T_k
        options = Options(
            causal=same and seed % 2 == 0,
            scale=[True, False, 3.0][seed % 3],
            mask_value=[-math.inf, -1e9, -1.5][seed % 3],
        )
        want_output, want_heads = engine_forward(scenario, options)
        f = ref.forward(scenario, ref.leaves_of(scenario), options)
        assert_close(f.output.detach().numpy(), want_output, f"output (seed {seed})", c["yaml"])
        for h, (_, weights) in enumerate(want_heads):
            assert_close(
                f.weights[h].detach().numpy(), weights, f"head {h} weights (seed {seed})", c["yaml"]
            )


def test_the_reference_autograd_is_finite_differences():
    """torch.autograd.gradcheck: the reference's gradients against central differences, on
    every input at once (so the where()s around masked cells and empty rows are right too)."""
    checked = 0
    for seed, c in cases(range(1400, 1430)):
        scenario = loads(c["yaml"])
        leaves = ref.leaves_of(scenario)
        names = list(leaves)
        target = torch.tensor(c["target"])

        def loss(*tensors):
            diff = ref.forward(scenario, dict(zip(names, tensors))).output - target
            return 0.5 * (diff * diff).sum()

        assert torch.autograd.gradcheck(
            loss, tuple(leaves[n] for n in names), eps=1e-6, atol=1e-6, rtol=1e-5
        ), c["yaml"]
        checked += 1
    assert checked == 30


def test_the_reference_training_steps_are_sgd_and_adam():
    """One step of the reference's training, by hand: SGD moves x by −lr·g; Adam's first step,
    bias-corrected (m̂ = g, v̂ = g²), by −lr·g / (|g| + 1e-8); the second loss is the loss there."""
    import dataclasses

    for seed, c in cases(range(1500, 1510)):
        scenario = loads(c["yaml"])
        learn = sorted(scenario.inputs)[: 1 + seed % 3]
        g = ref.gradients(scenario, target=c["target"])
        for optimizer, lr in (("sgd", 0.1), ("adam", 0.01)):
            losses, learned, _ = ref.train(
                scenario, learn=learn, lr=lr, steps=1, optimizer=optimizer, target=c["target"]
            )
            assert math.isclose(losses[0], g.loss, rel_tol=1e-12, abs_tol=1e-15)
            moved = dict(scenario.inputs)
            for name in learn:
                d = g.inputs[name]
                want = scenario.inputs[name] - (
                    lr * d if optimizer == "sgd" else lr * d / (np.abs(d) + 1e-8)
                )
                assert_close(
                    learned[name], want, f"{optimizer} step of {name} (seed {seed})", c["yaml"]
                )
                moved[name] = learned[name]
            after = ref.gradients(
                dataclasses.replace(scenario, inputs=moved), target=c["target"]
            ).loss
            assert math.isclose(losses[1], after, rel_tol=1e-12, abs_tol=1e-15)


# ---- the engine's gradients ------------------------------------------------------------------


def engine_gradients():
    return pytest.importorskip(
        "attn_tui.core.engine.backward", reason="core.engine.backward is not written yet"
    ).gradients


def check_gradients(c: dict, seed, form: str = "target", options=None) -> None:
    gradients = engine_gradients()
    text = with_loss(c, form)
    scenario = loads(text)
    got = gradients(scenario, options) if options is not None else gradients(scenario)
    want = ref.gradients(scenario, options, **{form: c[form]})
    where = f"(seed {seed})"
    if form == "target":
        assert got.loss is not None and math.isclose(
            got.loss, want.loss, rel_tol=RTOL, abs_tol=FLOOR
        ), f"loss {got.loss!r}, want {want.loss!r} {where}\n{text}"
    else:
        assert got.loss is None, f"loss {got.loss!r} with grad: given {where}\n{text}"
    assert_close(got.d_output, want.d_output, f"d_output {where}", text)
    assert set(got.inputs) == set(scenario.inputs), f"inputs {sorted(got.inputs)} {where}\n{text}"
    for name, value in want.inputs.items():
        assert np.shape(got.inputs[name]) == scenario.inputs[name].shape, (
            f"d{name} shape {where}\n{text}"
        )
        assert_close(got.inputs[name], value, f"d{name} {where}", text)
    assert len(got.heads) == scenario.heads
    hidden = ~want.visible
    for h in range(scenario.heads):
        assert_close(got.heads[h].d_weights, want.d_weights[h], f"head {h} d_weights {where}", text)
        d_scores = np.asarray(got.heads[h].d_scores)
        assert_close(d_scores, want.d_scores[h], f"head {h} d_scores {where}", text)
        assert (d_scores[hidden] == 0).all() and (d_scores[want.empty] == 0).all(), (
            f"head {h} d_scores not exactly 0 where masked or on rows that see nothing "
            f"{where}\n{text}"
        )
        if hasattr(
            got.heads[h], "d_raw_scores"
        ):  # (beyond the contract: dL/d q·kᵀ, before ÷ divisor)
            assert_close(
                got.heads[h].d_raw_scores,
                want.d_raw_scores[h],
                f"head {h} d_raw_scores {where}",
                text,
            )


# ATTN_TUI_LONG=1: six times as many random scenarios (do that when you change
# core/engine/backward.py)
LONG = 6 if os.environ.get("ATTN_TUI_LONG") else 1


@pytest.mark.parametrize("first", range(0, 80 * LONG, 40))
def test_gradients_of_random_scenarios(first):
    for seed, c in cases(range(first, first + 40)):
        check_gradients(c, seed)


@pytest.mark.parametrize("force", FEATURES)
def test_gradients_with_each_feature(force):
    for seed, c in cases(range(6 * LONG), force):
        check_gradients(c, seed)


def test_gradients_given_d_output_directly():
    for seed, c in cases(range(1000, 1060)):
        check_gradients(c, seed, form="grad")


def test_gradients_under_other_options():
    """``gradients(scenario, options)``: a variant's options, not the scenario's."""
    for seed, c in cases(range(1100, 1160)):
        same = c["T_q"] == c["T_k"]
        options = Options(
            causal=same and seed % 2 == 1,
            scale=[True, False, 2.0, 0.5][seed % 4],
            mask_value=[-math.inf, -1e9, -1.0][seed % 3],
        )
        check_gradients(c, seed, options=options)


def test_loss_is_half_the_squared_error():
    """Not only relative to the reference: L = ½·Σ(output − target)² with the engine's own
    forward output, and dL/d output = output − target."""
    gradients = engine_gradients()
    for seed, c in cases(range(1200, 1220)):
        scenario = loads(with_loss(c))
        output, _ = engine_forward(scenario)
        g = gradients(scenario)
        assert math.isclose(
            g.loss, 0.5 * float(((output - c["target"]) ** 2).sum()), rel_tol=1e-12, abs_tol=1e-15
        )
        assert_close(g.d_output, output - c["target"], "d_output", c["yaml"])
