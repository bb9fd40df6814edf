"""What broke when issue 19's stages (Bias, Softcap, partial rotary) and issue 23's edges were
attacked. The numbers are checked against tests/reference.py, written from the papers'
and Hugging Face's formulas with nothing of attn_tui, on scenarios written as YAML text (and
.npy files) so that the readers are tested with the arithmetic; each other test failed on the
commit before its fix, or is marked xfail(strict) with why."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

from attn_tui.core import ScenarioError
from attn_tui.core import load
from attn_tui.core import loads
from attn_tui.core.engine.attention import Attention
from attn_tui.core.errors import NumericError
from attn_tui.core.outputs.json_export import to_json
from attn_tui.core.outputs.markdown import to_markdown
from attn_tui.core.outputs.report import to_text
from attn_tui.core.loading.scenario_file import check
from attn_tui.core.editing.session import Session
from attn_tui.tui.cli import main
from tests.reference import random_scenario
from tests.conftest import ROOT

QKV = "tokens: [a, b, c]\nQ: [[1, 0], [0, 1], [1, 1]]\nK: [[1, 0], [0, 1], [1, 1]]\nV: [[1, 0], [0, 1], [1, 1]]\n"


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
    return (np.array_equal(np.isfinite(got), finite)
            and np.allclose(got[finite], want[finite], rtol=1e-12, atol=1e-13)
            and np.array_equal(got[~finite], want[~finite]))


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
            assert same(head.values("weighted_sum", rows, range(scenario.d_v)), want["output"]), seed
        if projected is not None:
            assert same(attention.values("project", None, rows, range(scenario.d_out)), projected), seed


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
    torch = pytest.importorskip("torch", reason="the second reference is PyTorch's SDPA (pip install torch)")
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
                *(torch.tensor(np.ascontiguousarray(a))[None] for a in (q, k, v)), attn_mask=mask[None],
                scale=1 / math.sqrt(layout["d_k"])).numpy()[0]
            ours = attention.head(h).values("weighted_sum", range(layout["T_q"]), range(layout["d_v"]))
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
        for args in (["--json"], ["--print", "--row", "all"], ["--markdown"], ["--check"],
                     ["--markdown", "--worksheet"], ["--markdown", "--answers"]):
            code = main([*args, str(path)])
            written_out = capsys.readouterr()
            assert (code, written_out.err) == (0, ""), (seed, args)
            assert written_out.out.strip(), (seed, args)


# ---- a bias that overflows ---------------------------------------------------------------------

EDGE = "1.3407807929942596e154"  # its square is float64's largest number but one ulp or so


def test_a_scaled_score_plus_a_bias_that_overflows_is_refused_when_read(write):
    """Q·K = 1.798e308 is a finite score, and a bias of 1e299 is below the limit: their sum is
    infinite, and the row's weight NaN. Before: --check said ok, --json died as an internal error."""
    path = write(f"tokens: [a]\nQ: [[{EDGE}]]\nK: [[{EDGE}]]\nV: [[1]]\nscale: false\nbias: [[1e299]]\n")
    with pytest.raises(ScenarioError, match="plus the bias overflows float64"):
        load(path)
    with pytest.raises(ScenarioError, match="plus the bias overflows float64"):
        check(path)


def test_a_bias_that_would_overflow_once_s_changes_the_scale_is_refused_by_check_and_load(write):
    """scale: 1e200 keeps the scaled score small, but the app's s key switches to ÷√d_k = 1:
    check() passed such a file (its quick bound) while load() refused it."""
    path = write(f"tokens: [a]\nQ: [[{EDGE}]]\nK: [[{EDGE}]]\nV: [[1]]\nscale: 1e200\nbias: [[1e299]]\n")
    for read in (load, check):
        with pytest.raises(ScenarioError, match="as the app s key can set it"):
            read(path)


def test_alibi_near_float64s_edge_is_not_refused(write):
    """ALiBi adds at most thousands: nothing a float64 of 1.8e308 notices."""
    path = write(f"tokens: [a]\nQ: [[{EDGE}]]\nK: [[{EDGE}]]\nV: [[1]]\nscale: false\nalibi: true\n")
    assert np.isfinite(Attention(load(path)).values("softmax", 0, range(1), range(1))).all()


def test_an_edit_that_makes_a_scaled_score_plus_the_bias_overflow_is_undone():
    session = Session(loads("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nscale: false\nbias: [[1e299]]\n"),
                      keep_recovery=False)
    session.set_cell("Q", 0, 0, float(EDGE))
    with pytest.raises(NumericError, match="plus the bias"):
        session.set_cell("K", 0, 0, float(EDGE))
    assert session.cell("K", 0, 0) == 1.0
    assert np.isfinite(session.attention.values("softmax", 0, range(1), range(1))).all()


def test_an_edit_of_a_weight_under_a_tiny_scale_that_makes_a_scaled_score_infinite_is_undone():
    """An edit of Wq changes every query, and the quick bound skipped the exact check without
    dividing by the scale: with scale: 1e-300 a score of 1e10 scaled to ∞, and a row of weights
    to NaN (found on the way; not new in issue 19)."""
    session = Session(loads("tokens: [a, b]\nX: [[1, 0], [0, 1]]\nWq: [[1], [1]]\nWk: [[1], [1]]\n"
                            "Wv: [[1], [1]]\nscale: 1e-300\n"), keep_recovery=False)
    with pytest.raises(NumericError, match="overflows float64"):
        session.set_cell("Wq", 0, 0, 1e10)
    assert not np.isnan(session.attention.values("softmax", 0, range(2), range(2))).any()


# ---- the archive and the stage keys ----------------------------------------------------------

@pytest.mark.parametrize("member", ["softcap", "alibi"])
def test_an_archive_member_named_after_a_stage_key_is_not_a_crash(tmp_path, member):
    """Before: KeyError 'softcap' / 'bias' (exit 3, "this is a bug")."""
    ones = np.ones((3, 2))
    np.savez(tmp_path / "a.npz", Q=ones, K=ones, V=ones, **{member: np.array(5.0)})
    (tmp_path / "s.yaml").write_text("tokens: [a, b, c]\nnpz: a.npz\n")
    scenario = load(tmp_path / "s.yaml")
    assert scenario.stage_settings == {}


@pytest.mark.parametrize("alibi", ["true", "false"])
def test_alibi_with_an_archive_that_holds_a_bias_is_refused(tmp_path, alibi):
    """alibi: with bias: is refused ("not both"); with the archive's bias the archive's was
    silently dropped — by alibi: true, and by alibi: false too."""
    ones = np.ones((3, 2))
    np.savez(tmp_path / "a.npz", Q=ones, K=ones, V=ones, bias=np.eye(3))
    (tmp_path / "s.yaml").write_text(f"tokens: [a, b, c]\nnpz: a.npz\nalibi: {alibi}\n")
    with pytest.raises(ScenarioError, match="not both") as caught:
        load(tmp_path / "s.yaml")
    assert (caught.value.line, caught.value.col) == (3, 1)


def test_thousands_of_unknown_keys_make_an_error_of_a_few_lines():
    """Every unknown key was reported (issue 23): 20,000 of them made 6.8 MB of messages, and
    240,000 took 33 s and 540 MB (a suggestion worked out for each). The first 20 are told,
    each at its line, then how many more from where."""
    text = QKV + "".join(f"k{i}: 1\n" for i in range(5000))
    with pytest.raises(ScenarioError) as caught:
        loads(text)
    error = caught.value
    assert len(error.also) == 20 and (error.line, error.col) == (5, 1)
    assert error.also[-1].message == "… and 4,980 more unknown keys from here on"
    assert error.also[-1].line == 25
    assert len(str(error).splitlines()) == 21


def test_unknown_keys_of_many_variants_are_bounded_too():
    text = QKV + "variants:\n" + "".join(f"  - {{name: v{i}, typo{i}: 1}}\n" for i in range(3000))
    with pytest.raises(ScenarioError) as caught:
        loads(text)
    assert len(caught.value.also) == 20 and "2,980 more" in caught.value.also[-1].message


def test_a_few_unknown_keys_are_each_told_as_before():
    with pytest.raises(ScenarioError) as caught:
        loads(QKV + "biass: 1\nsoftcapp: 2\n")
    assert [(e.line, e.message.split(";")[0]) for e in (caught.value, *caught.value.also)] == [
        (5, "unknown key 'biass' in the scenario"), (6, "unknown key 'softcapp' in the scenario")]


def test_a_bias_counts_against_the_limit_with_what_attention_derives(tmp_path):
    """X 2,000 × 1 and W's of 64 heads × 40 derive 15.4M numbers (within 16M), and a bias of
    2,000 × 2,000 adds 4M: the bias was counted with the inputs alone (10k), so 19.4M were held."""
    rng = np.random.default_rng(0)
    T, H, d = 2000, 64, 40
    weights = {name: rng.normal(size=(1, H * d)) for name in ("Wq", "Wk", "Wv")}
    np.savez(tmp_path / "a.npz", X=rng.normal(size=(T, 1)), bias=np.zeros((T, T)), **weights)
    (tmp_path / "s.yaml").write_text(f"heads: {H}\nnpz: a.npz\n")
    with pytest.raises(ScenarioError, match="too many numbers: 19,369,680 in all with the bias") as caught:
        load(tmp_path / "s.yaml")
    assert (caught.value.line, caught.value.col) == (2, 6)


def test_a_random_scenarios_numbers_count_with_its_bias(tmp_path):
    """random: made Q, K, V that counted for nothing: with T = 3,990 its 95,760 numbers and a bias
    of 15.9M passed the 16M limit, and saving an edit (the random numbers written out) then
    failed with "this file's layout cannot take the edit"."""
    np.save(tmp_path / "b.npy", np.zeros((3990, 3990)))
    (tmp_path / "s.yaml").write_text("random: {seed: 1, T: 3990, d_k: 8}\nbias: {npy: b.npy}\n")
    with pytest.raises(ScenarioError, match="too many numbers: 16,015,860 in all with the bias"):
        load(tmp_path / "s.yaml")


def test_a_bias_over_more_keys_than_a_matrix_has_columns_comes_from_a_file(tmp_path):
    """A bias's columns are keys (up to 16,384), not dimensions (up to 4,096): one query
    against 8,192 keys could not take its bias from a .npy ("at most 4,096 columns")."""
    rng = np.random.default_rng(1)
    T_k = 8192
    for name in "KV":
        np.save(tmp_path / f"{name}.npy", rng.normal(size=(T_k, 2)))
    bias = rng.normal(size=(1, T_k))
    np.save(tmp_path / "b.npy", bias)
    tokens = ", ".join(f"t{j}" for j in range(T_k))
    (tmp_path / "s.yaml").write_text(f"tokens: [{tokens}]\nquery_tokens: [q]\nQ: [[1, 0]]\nK: {{npy: K.npy}}\n"
                                     "V: {npy: V.npy}\nbias: {npy: b.npy}\n")
    attention = Attention(load(tmp_path / "s.yaml"))
    keys = range(T_k)
    assert np.array_equal(attention.values("bias", 0, range(1), keys),
                          attention.values("scale", 0, range(1), keys) + bias)


# ---- softcap, rope, the bias's array ---------------------------------------------------------

@pytest.mark.parametrize("cap", ["5e-324", "1e-300"])
def test_a_tiny_softcap_warns_nothing(cap):
    """score / 5e-324 overflows to ±∞ (tanh of it is exactly ±1, the right answer): NumPy's
    RuntimeWarning was printed on standard error by --print, --json and --markdown."""
    scenario = loads(QKV + f"softcap: {cap}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        to_json(scenario)
        text = to_text(scenario, rows=[1])
        to_markdown(scenario)
    assert "tanh(∞)" in text or "tanh(7.0711e299)" in text


def test_a_bias_read_from_a_file_is_held_once(tmp_path):
    """The bias from a .npy was copied into a second array (at the limit, 128 MB twice)."""
    np.save(tmp_path / "b.npy", np.arange(9.0).reshape(3, 3))
    (tmp_path / "s.yaml").write_text(QKV + "bias: {npy: b.npy}\n")
    setting = load(tmp_path / "s.yaml").stage_settings["bias"]
    assert np.shares_memory(setting.matrix, setting.values) and not setting.matrix.flags.writeable


def test_a_bias_for_more_heads_than_there_are_says_so_in_english():
    with pytest.raises(ScenarioError) as caught:
        loads(QKV + "bias: [[[0, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]]\n")
    assert "bias holds 2 matrices but there is 1 head:" in caught.value.message


@pytest.mark.parametrize("extra, key, title", [("", "biased", "Bias"), ("alibi: true\n", "capped", "Softcap")])
def test_predicting_a_stage_the_scenario_lacks_says_so(extra, key, title):
    """expect: said "this scenario has no Softcap step"; predict: suggested 'scaled' for capped."""
    with pytest.raises(ScenarioError) as caught:
        loads(QKV + extra + f"predict: [{key}]\n")
    assert f"this scenario has no {title} step" in caught.value.message
    assert "did you mean" not in caught.value.message


def test_decode_under_a_leaky_mask_value_says_why_it_differs():
    """With the causal mask on and mask_value: -1, row t of the whole computation gives the
    future keys weight and the decoder's cache has none of them: the Why pane said the rows
    differ "without the causal mask"."""
    text = to_text(loads(QKV + "decode: true\nmask_value: -1\n"), rows=[1])
    assert "without the causal mask" not in text
    assert "They differ: the mask value −1 lets the hidden keys take weight" in text


def test_a_mask_value_far_below_every_score_is_known_not_to_leak_without_a_scan():
    """The app scans every row for a leaky mask value after each option change (c, s), in a
    thread: 30 s at T = 16,384 for mask_value: -1e9, a scan per press piled up, and keys took
    3× as long. Norms prove most finite mask values hide (exp underflows to exactly 0)."""
    from attn_tui.core.engine.stages.mask import cannot_leak, leak

    scenario = loads("random: {seed: 1, T: 300, d_k: 4}\nmask_value: -1e9\n")
    attention = Attention(scenario)
    assert cannot_leak(attention)
    calls = []
    assert leak(attention, cancelled=lambda: calls.append(1)) is None and calls == []  # no scan at all


def test_whenever_norms_say_no_leak_the_scan_agrees(tmp_path):
    """The proof is sound: on random biased scenarios with mask values from −1 to −1e4, every time
    cannot_leak says so, the block-by-block scan finds no hidden weight."""
    from attn_tui.core.engine.stages.mask import cannot_leak, leak

    rng = np.random.default_rng(7)
    proven = 0
    for seed in range(80):
        path, _, layout = written(tmp_path, seed)
        value = -float(10 ** rng.uniform(0, 4))
        attention = Attention(dataclasses_replace_mask(load(path), value))
        if cannot_leak(attention):
            proven += 1
            assert leak(attention, cancelled=lambda: False) is None, seed
        assert leak(attention, cancelled=lambda: True) is None  # a cancelled scan gives up at once
    assert proven > 10


def dataclasses_replace_mask(scenario, value):
    import dataclasses

    return dataclasses.replace(scenario, options=dataclasses.replace(scenario.options, mask_value=value))


# ---- recovery copies and options ----------------------------------------------------------------

def crafted_copy(path, edits):
    import json
    import os
    import time

    from attn_tui.core.editing.recovery import recovery_path

    copy = recovery_path(str(path))
    os.makedirs(os.path.dirname(copy), mode=0o700, exist_ok=True)
    with open(copy, "w") as file:
        json.dump({"attn-tui-recovery": 1, "saved_at": time.time(), "source_sha256": "x", "edits": edits}, file)
    os.chmod(copy, 0o600)


def test_a_recovery_copys_scale_that_would_overflow_is_skipped(write):
    """A copy is untrusted: its scale of 1e-300 passed (a positive number) and scaled a score of
    1e10 to ∞: the row's weights were NaN."""
    path = write("tokens: [a, b]\nQ: [[100000, 0], [0, 1]]\nK: [[100000, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n")
    crafted_copy(path, [{"option": "scale", "value": 1e-300, "old": True}])
    session = Session(load(path))
    assert session.journal.restore(session.journal.pending()) == ["scale = 1e-300: a stage would overflow float64 with it"]
    assert session.scenario.options.scale is True
    assert not np.isnan(session.attention.values("softmax", 0, range(2), range(2))).any()


def test_the_files_own_small_scale_after_edits_under_another_is_checked_again():
    """scale: 0.5; s to ÷√d_k, edits that are finite under it, s twice back to ÷0.5: the scores
    were checked only under the scale in force when they were made."""
    session = Session(loads("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nscale: 0.5\n"), keep_recovery=False)
    session.cycle_scale()
    session.set_cell("Q", 0, 0, float(EDGE))
    session.set_cell("K", 0, 0, float(EDGE))
    session.cycle_scale()
    with pytest.raises(NumericError, match="divided by 0.5"):
        session.cycle_scale()
    assert session.scenario.options.scale is False
    assert np.isfinite(session.attention.values("scale", 0, range(1), range(1))).all()


def test_a_recovery_copys_causal_mask_between_two_sequences_is_skipped(write):
    """The loader refuses causal: true with 2 queries and 3 keys; a copy could set it, and then
    Save said the file's layout could not take the edit."""
    path = write("tokens: [a, b, c]\nquery_tokens: [x, y]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1], [1, 1]]\n"
                 "V: [[1, 0], [0, 1], [1, 1]]\n")
    crafted_copy(path, [{"option": "causal", "value": True, "old": False}])
    session = Session(load(path))
    skipped = session.journal.restore(session.journal.pending())
    assert skipped == ["causal = True: causal needs as many queries as keys (2 queries, 3 keys), as the file "
                       "itself would"]
    assert session.scenario.options.causal is False


# ---- the classroom server ---------------------------------------------------------------------

async def test_a_download_takes_every_data_file_the_scenario_names(tmp_path, monkeypatch):
    """A served scenario's download held the YAML and its inputs' .npy files only: a bias (or a
    mask, or a student's expect) from a .npy stayed behind, and the file took home did not load."""
    from attn_tui.core.editing.save_root import SaveRoot
    from attn_tui.tui.app import AttnApp

    root = tmp_path / "class"
    root.mkdir()
    monkeypatch.chdir(root)
    np.save(root / "q.npy", np.eye(3, 2))
    np.save(root / "b.npy", np.arange(9.0).reshape(3, 3))
    np.save(root / "m.npy", np.tril(np.ones((3, 3))))
    np.save(root / "w.npy", np.full((3, 3), 1 / 3))
    (root / "s.yaml").write_text("tokens: [a, b, c]\nQ: {npy: q.npy}\nK: [[1, 0], [0, 1], [1, 1]]\n"
                                 "V: [[1, 0], [0, 1], [1, 1]]\nbias: {npy: b.npy}\nmask: {npy: m.npy}\n"
                                 "causal: false\nexpect: {weights: {npy: w.npy}}\n")
    app = AttnApp(load(root / "s.yaml"), read_only=True, save_root=SaveRoot(root))
    delivered = []

    def deliver(file, *, save_filename=None, mime_type=None, **rest):
        delivered.append(save_filename)
        return "key"

    monkeypatch.setattr(app, "deliver_binary", deliver)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.download_scenario()
        await pilot.pause()
    assert sorted(delivered) == ["b.npy", "m.npy", "q.npy", "s.yaml", "w.npy"]


# ---- left for the lead, since mended -------------------------------------------------------------------

def test_a_file_written_whole_refers_to_the_bias_file_it_came_from(tmp_path):
    from attn_tui.core.editing.save import render

    np.save(tmp_path / "b.npy", np.arange(9.0).reshape(3, 3))
    (tmp_path / "s.yaml").write_text(QKV + "bias: {npy: b.npy}\n")
    text = render(load(tmp_path / "s.yaml"), str(tmp_path / "whole.yaml")).text
    assert 'bias: {npy: "b.npy"}' in text


THROWAWAY = r'''
import attn_tui.core.engine.stages as stages
from attn_tui.core.engine.stages import KEYS, PREVIOUS, Stage
from attn_tui.core.engine.stages.contract import Adds, ChainRule, Grows
from attn_tui.core.files.yaml_numbers import number

from dataclasses import dataclass
from attn_tui.core.model.settings import StageSetting


@dataclass(frozen=True)
class Shift:  # its setting, as core.model.settings.StageSetting asks of every stage's
    by: float
    largest = 0.0

    def describe(self): return f"shift {self.by:g}"
    def yaml(self, matrix): return f"shift: {self.by!r}\n"
    def of_head(self, h, heads): return self


assert isinstance(Shift(1.0), StageSetting)
SHIFT = Stage(name="shift", title="Shift", key="shifted", reads=(PREVIOUS,), changes="as the scores",
              columns=KEYS, palette="diverging", heading=lambda scenario, options: "scores + c",
              compute=lambda w: w.previous() + w.scenario.stage_settings["shift"].by,
              explain=lambda w: "shift", applies=lambda scenario: "shift" in scenario.stage_settings,
              gradient=ChainRule(back=lambda w, gradient: gradient, derivative=lambda w: 1.0,
                                 heading=lambda scenario, options: "",
                                 factor=lambda w, value: ""),
              score_range=Adds(lambda scenario: abs(scenario.stage_settings["shift"].by),
                               Grows("shifted score", lambda scenario, options: "shifted")),
              scenario_keys=("shift",), read=lambda files, top, plan: Shift(number(top["shift"].value, "shift")))
registry = list(stages.REGISTRY)
registry.insert(3, SHIFT)
stages.REGISTRY = tuple(registry)

from attn_tui.core import loads
from attn_tui.core.teaching.compare import compare
from attn_tui.core.outputs.report import to_text
from attn_tui.core.editing.save import render

text = "tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\nshift: 3\n"
scenario = loads(text)
to_text(scenario, rows=[1])
render(scenario, "/dev/null/never-written.yaml")
compare(loads(text + "Wo: [[1]]\nexpect: {shifted: [[1, 1], [1, 1]]}\n"))
print("ok")
'''


def test_a_throwaway_stage_with_a_key_of_its_own_needs_only_its_registry_line():
    result = subprocess.run([sys.executable, "-c", THROWAWAY], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-600:]
