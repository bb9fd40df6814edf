"""Issue 19's stages (Bias, Softcap, partial rotary) on random scenarios, checked against
tests/reference.py, written from the papers' and Hugging Face's formulas with nothing of
attn_tui, on scenarios written as YAML text (and .npy files) so that the readers are tested with
the arithmetic; and PyTorch's sdpa with the bias as a float mask."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core import load
from attn_tui.core.engine.attention import Attention
from attn_tui.core.outputs.json_export import to_json
from attn_tui.tui.cli import main
from tests.random_scenarios import random_scenario


def written(tmp_path, seed):
    """A random scenario (heads, grouped keys, cross-attention, every mask rule, ALiBi or a bias
    in YAML or .npy, softcap, partial rotary, Wo) in a folder of its own, and the reference."""
    text, files, expected, layout = random_scenario(np.random.default_rng(seed))
    folder = tmp_path / f"s{seed}"
    folder.mkdir()
    for name, array in files.items():
        np.save(folder / name, array)
    (folder / "s.yaml").write_text(text)
    return folder / "s.yaml", expected, layout


def same(got, want):
    finite = np.isfinite(want)
    return (
        np.array_equal(np.isfinite(got), finite)
        and np.allclose(got[finite], want[finite], rtol=1e-12, atol=1e-13)
        and np.array_equal(got[~finite], want[~finite])
    )


@pytest.mark.parametrize("first", range(0, 240, 40))
def test_every_stage_is_the_independent_references(tmp_path, first):
    for seed in range(first, first + 40):
        path, (heads, concat, projected), layout = written(tmp_path, seed)
        scenario = load(path)
        attention = Attention(scenario)
        rows, keys = range(scenario.T), range(scenario.T_k)
        for h, want in enumerate(heads):
            head = attention.head(h)
            assert same(head.values("score", rows, keys), want["scores"]), seed
            assert same(head.values("scale", rows, keys), want["scaled"]), seed
            if "biased" in want:
                assert same(head.values("bias", rows, keys), want["biased"]), seed
            if "capped" in want:
                assert same(head.values("softcap", rows, keys), want["capped"]), seed
            assert same(head.values("mask", rows, keys), want["masked"]), seed
            weights = head.values("softmax", rows, keys)
            assert same(weights, want["weights"]) and (weights[~layout["visible"]] == 0).all(), seed
            assert same(head.values("weighted_sum", rows, range(scenario.d_v)), want["output"]), (
                seed
            )
        if projected is not None:
            assert same(
                attention.values("project", None, rows, range(scenario.d_out)), projected
            ), seed


def test_json_carries_the_references_bias_biased_and_capped(tmp_path):
    checked = 0
    for seed in range(60):
        path, (heads, _, _), layout = written(tmp_path, seed)
        doc = to_json(load(path))
        for h, head in enumerate(doc["heads"] if "heads" in doc else [doc]):
            if layout["bias_values"] is not None:
                assert np.allclose(head["bias"], layout["bias_values"][h], rtol=0, atol=0), seed
                assert same(np.array(head["biased"]), heads[h]["biased"]), seed
                checked += 1
            if "capped" in heads[h]:
                assert same(np.array(head["capped"]), heads[h]["capped"]), seed
    assert checked > 20


@pytest.mark.models
def test_the_output_is_pytorchs_sdpa_with_the_bias_as_a_float_mask(tmp_path):
    """Softcap is not SDPA's (it goes between the bias and the mask), so those are left out;
    the queries and keys given to PyTorch are turned by the reference's own RoPE."""
    torch = pytest.importorskip(
        "torch", reason="the second reference is PyTorch's SDPA (pip install torch)"
    )
    from tests.reference import rope

    compared = 0
    for seed in range(120):
        path, (heads, _, _), layout = written(tmp_path, seed)
        if layout["softcap"] is not None:
            continue
        attention = Attention(load(path))
        H, G = layout["H"], layout["G"]
        visible = layout["visible"]
        seeing = visible.any(axis=1)
        for h in range(H):
            q, k, v = layout["Q"][h], layout["K"][h // (H // G)], layout["V"][h // (H // G)]
            if layout["rope"] is not None:
                q, k = rope(q, *layout["rope"]), rope(k, *layout["rope"])
            bias = 0.0 if layout["bias_values"] is None else layout["bias_values"][h]
            mask = torch.tensor(np.where(visible, bias, -np.inf))
            theirs = torch.nn.functional.scaled_dot_product_attention(
                *(torch.tensor(np.ascontiguousarray(a))[None] for a in (q, k, v)),
                attn_mask=mask[None],
                scale=1 / math.sqrt(layout["d_k"]),
            ).numpy()[0]
            ours = attention.head(h).values(
                "weighted_sum", range(layout["T_q"]), range(layout["d_v"])
            )
            assert np.allclose(ours[seeing], theirs[seeing], rtol=1e-10, atol=1e-12), seed
            compared += 1
    assert compared > 60


def test_every_view_of_random_biased_scenarios_runs_clean(tmp_path, capsys):
    """--json, --print, --markdown (worksheet, answers) and --check on every new stage with
    heads, GQA, cross-attention, padding and windows: exit 0 and nothing on standard error.
    (In this process: the command's main, as the console script calls it; one start of Python
    is shown to work by the packaging tests.)"""
    for seed in range(8):
        path, _, _ = written(tmp_path, seed)
        for args in (
            ["--json"],
            ["--print", "--row", "all"],
            ["--markdown"],
            ["--check"],
            ["--markdown", "--worksheet"],
            ["--markdown", "--answers"],
        ):
            code = main([*args, str(path)])
            written_out = capsys.readouterr()
            assert (code, written_out.err) == (0, ""), (seed, args)
            assert written_out.out.strip(), (seed, args)
