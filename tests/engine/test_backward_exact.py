"""The engine's gradients (core.engine.backward) and training (core.engine.training) against an independent
float64 PyTorch-autograd reference (tests/torch_attention.py), on random scenarios written as
YAML text: self- and cross-attention (T_q ≠ T_k), causal, window, padding, explicit masks with
rows that see no key, finite mask values (−1e9 and leaky ones), ALiBi and given biases (2-D and
per head), softcap, RoPE (full and partial, half and interleaved), several heads, grouped
keys/values, Q/K/V or X with projections, with and without Wo/bo, every kind of scale.

The reference is checked itself first: its forward against the engine's forward (which the
rest of the suite checks against other references), and its autograd against finite
differences (torch.autograd.gradcheck). Training against it is tests/engine/test_training_is_torch_optim.py."""

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
from tests.random_scenarios import yaml_matrix  # noqa: E402

pytestmark = pytest.mark.models

torch.set_num_threads(1)  # tiny matrices: threads only cost time (and the machines are shared)


# ---- tolerance -------------------------------------------------------------------------------
# Two correct float64 evaluations of the same gradient differ by rounding alone: about 1e-16
# times the size of the terms summed, and every term here is bounded by a modest factor times
# the array's largest entry (inputs are O(1), scores at most ~30). So a cell may differ by
# 1e-9 of itself (the relative bound asked for) plus 1e-10 of the array's largest |value|
# (cells far smaller than the rest — a saturated softmax's — carry the rounding of the big
# ones, and cannot be held to 1e-9 of themselves); 1e-13 absolute on top covers an array the
# reference finds exactly 0 where the engine may leave 1e-17 of rounding. A real bug (a missing
# term, a wrong divisor, a head's columns swapped) moves cells by a sizeable part of the
# array's scale, 10⁶ times past this.
RTOL, SCALED_ATOL, FLOOR = 1e-9, 1e-10, 1e-13


def assert_close(got, want, what: str, yaml: str = "", slack=0.0) -> None:
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}\n{yaml}"
    assert np.isfinite(got).all(), f"{what}: not finite: {got}\n{yaml}"
    scale = float(np.abs(want).max(initial=0.0))
    error = np.abs(got - want)
    allowed = RTOL * np.abs(want) + SCALED_ATOL * scale + FLOOR + slack
    if not (error <= allowed).all():
        worst = np.unravel_index(int(np.argmax(error - allowed)), error.shape)
        raise AssertionError(
            f"{what}: cell {tuple(int(i) for i in worst)} is {got[worst]!r}, want {want[worst]!r} "
            f"(max error {error.max():.3g}, scale {scale:.3g})\ngot  {got}\nwant {want}\n{yaml}"
        )


# ---- random scenarios as YAML text -----------------------------------------------------------

FEATURES = (
    "cross",
    "causal",
    "window",
    "padding",
    "mask",
    "empty_row",
    "finite_mask",
    "leaky_mask",
    "alibi",
    "bias2d",
    "bias3d",
    "softcap",
    "rope_half",
    "rope_interleaved",
    "rope_partial",
    "heads",
    "gqa",
    "projection",
    "wo",
    "wo_bo",
    "unscaled",
    "custom_scale",
)


def case(rng: np.random.Generator, force: str | None = None) -> dict:
    """A random scenario: its YAML (without loss:), a target and a dL/d output for it, and the
    layout. ``force`` names one feature it must have (one of FEATURES)."""
    f = force
    kind = (
        "projection"
        if f == "projection" or (f not in ("heads", "gqa") and rng.random() < 0.45)
        else "qkv"
    )
    if f == "gqa":  # fewer key/value heads than query heads
        G = int(rng.choice([1, 2]))
        H = G * int(rng.choice([2, 3]))
    else:
        G = int(rng.choice([1, 1, 2, 3] if f == "heads" else [1, 1, 2]))
        H = G * int(rng.choice([1, 2]))
        if f == "heads" and H == 1:
            H = G = 2
    cross = f == "cross" or (f not in ("window", "alibi", "causal") and rng.random() < 0.3)
    T_k = (
        int(rng.integers(1, 6))
        if f not in ("window", "alibi", "causal")
        else int(rng.integers(2, 6))
    )
    T_q = int(rng.integers(1, 6)) if cross else T_k
    if cross and f == "cross" and T_q == T_k:
        T_q = T_k + 1
    rope_wanted = f in ("rope_half", "rope_interleaved", "rope_partial") or rng.random() < 0.35
    d_k = int(rng.integers(2 if rope_wanted else 1, 5))
    if f == "rope_partial":
        d_k = max(d_k, 3)
    d_v = int(rng.integers(1, 4))
    lines = ["tokens: [" + ", ".join(f"k{j}" for j in range(T_k)) + "]"]
    if cross:
        lines.append("query_tokens: [" + ", ".join(f"q{i}" for i in range(T_q)) + "]")
    per_head_written = H > 1 or rng.random() < 0.3
    if kind == "qkv":
        if per_head_written:
            lines.append(f"heads: {H}")
        shared_kv = G == 1 and H > 1 and rng.random() < 0.4  # one K, V matrix for every head
        size = 1.5 if rng.random() < 0.85 else 4.0  # now and then scores of ~30: a peaky softmax
        Q = rng.normal(size=(H, T_q, d_k)) * size
        K = rng.normal(size=(G, T_k, d_k)) * size
        V = rng.normal(size=(G, T_k, d_v))
        if G != H and not shared_kv:
            lines.append(f"kv_heads: {G}")
        lines.append(f"Q: {yaml_matrix(Q if per_head_written else Q[0])}")
        kv_3d = per_head_written and not shared_kv
        lines += [
            f"K: {yaml_matrix(K if kv_3d else K[0])}",
            f"V: {yaml_matrix(V if kv_3d else V[0])}",
        ]
    else:
        d_model = int(rng.integers(1, 5))
        if H > 1:
            lines.append(f"heads: {H}")
        if G != H:
            lines.append(f"kv_heads: {G}")
        lines.append(f"X: {yaml_matrix(rng.normal(size=(T_k, d_model)))}")
        if cross:
            lines.append(f"X_q: {yaml_matrix(rng.normal(size=(T_q, d_model)))}")
        lines += [
            f"Wq: {yaml_matrix(rng.normal(size=(d_model, H * d_k)))}",
            f"Wk: {yaml_matrix(rng.normal(size=(d_model, G * d_k)))}",
            f"Wv: {yaml_matrix(rng.normal(size=(d_model, G * d_v)))}",
        ]
    same_length = T_q == T_k
    causal = same_length and (f == "causal" or (f != "cross" and rng.random() < 0.5))
    lines.append(f"causal: {'true' if causal else 'false'}")
    if f == "unscaled" or (f is None and rng.random() < 0.15):
        lines.append("scale: false")
    elif f == "custom_scale" or rng.random() < 0.2:
        lines.append(f"scale: {float(rng.choice([0.7, 2.5, 4.0]))!r}")
    if f == "finite_mask" or (f is None and rng.random() < 0.15):
        lines.append("mask_value: -1.0e+9")
    elif f == "leaky_mask" or (f is None and rng.random() < 0.15):
        lines.append(f"mask_value: {float(rng.choice([-2.0, -0.5, -30.0]))!r}")
    if f in ("finite_mask", "leaky_mask") and not causal:  # something to hide
        f = "mask"
    if not cross and (f == "window" or rng.random() < 0.25):
        lines.append(f"window: {int(rng.integers(1, 4))}")
    if f == "padding" or rng.random() < 0.3:
        pad = rng.integers(0, 2, T_k) if rng.random() < 0.85 else np.ones(T_k, int)
        lines.append("padding: [" + ", ".join(str(int(p)) for p in pad) + "]")
    if f in ("mask", "empty_row") or rng.random() < 0.3:
        m = (rng.random((T_q, T_k)) < 0.65).astype(int)
        if f == "empty_row" or rng.random() < 0.4:
            m[int(rng.integers(T_q))] = 0  # a row that sees no key at all
        lines.append(
            "mask: ["
            + ", ".join("[" + ", ".join(str(int(x)) for x in row) + "]" for row in m)
            + "]"
        )
    biases = ["none", "bias2d", "bias3d"] + (["alibi"] if same_length and not cross else [])
    bias = (
        f
        if f in ("alibi", "bias2d", "bias3d")
        else (str(rng.choice(biases)) if f is None or rng.random() < 0.5 else "none")
    )
    if bias == "alibi":
        lines.append("alibi: true")
    elif bias == "bias2d":
        lines.append(f"bias: {yaml_matrix(rng.normal(size=(T_q, T_k)) * 2)}")
    elif bias == "bias3d":
        lines.append(f"bias: {yaml_matrix(rng.normal(size=(H, T_q, T_k)) * 2)}")
    if f == "softcap" or rng.random() < 0.35:
        lines.append(f"softcap: {float(rng.choice([0.5, 2.0, 50.0]))!r}")
    if rope_wanted:
        pairs = {"rope_half": "half", "rope_interleaved": "interleaved"}.get(f) or str(
            rng.choice(["half", "interleaved"])
        )
        base = float(rng.choice([100.0, 10000.0]))
        if f == "rope_partial" or d_k % 2 or rng.random() < 0.4:
            dims = 2 * int(rng.integers(1, d_k // 2 + 1))
            if f == "rope_partial" and dims == d_k:
                dims -= 2
            lines.append(f"rope: {{base: {base!r}, pairs: {pairs}, dims: {dims}}}")
        else:
            lines.append(f"rope: {{base: {base!r}, pairs: {pairs}}}")
    wo = f in ("wo", "wo_bo") or rng.random() < 0.35
    d_out = H * d_v
    if wo:
        d_out = int(rng.integers(1, 4))
        lines.append(f"Wo: {yaml_matrix(rng.normal(size=(H * d_v, d_out)))}")
        if f == "wo_bo" or (f != "wo" and rng.random() < 0.7):
            lines.append(f"bo: {yaml_matrix(rng.normal(size=d_out))}")
    return dict(
        yaml="\n".join(lines) + "\n",
        target=rng.normal(size=(T_q, d_out)),
        grad=rng.normal(size=(T_q, d_out)),
        kind=kind,
        H=H,
        G=G,
        T_q=T_q,
        T_k=T_k,
    )


def with_loss(c: dict, form: str = "target") -> str:
    return c["yaml"] + f"loss: {{{form}: {yaml_matrix(c[form])}}}\n"


def cases(seeds, force=None):
    for seed in seeds:
        yield (
            seed,
            case(np.random.default_rng([seed, FEATURES.index(force) + 1 if force else 0]), force),
        )


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
            f"head {h} d_scores not exactly 0 where masked or on rows that see nothing {where}\n{text}"
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


# ATTN_TUI_LONG=1: six times as many random scenarios (do that when you change core/engine/backward.py)
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
