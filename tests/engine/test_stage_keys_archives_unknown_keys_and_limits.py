"""The stage keys beside an archive and the limits (issue 19's stages attacked): an archive member
named after a stage key, ALiBi with an archive that holds a bias, thousands of unknown keys told in
a few lines, and a bias counted against the limit with what attention derives."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core.engine.attention import Attention

QKV = (
    "tokens: [a, b, c]\nQ: [[1, 0], [0, 1], [1, 1]]\nK: [[1, 0], [0, 1], [1, 1]]\n"
    "V: [[1, 0], [0, 1], [1, 1]]\n"
)


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
        (5, "unknown key 'biass' in the scenario"),
        (6, "unknown key 'softcapp' in the scenario"),
    ]


def test_a_bias_counts_against_the_limit_with_what_attention_derives(tmp_path):
    """X 2,000 × 1 and W's of 64 heads × 40 derive 15.4M numbers (within 16M), and a bias of
    2,000 × 2,000 adds 4M: the bias was counted with the inputs alone (10k), so 19.4M were held."""
    rng = np.random.default_rng(0)
    T, H, d = 2000, 64, 40
    weights = {name: rng.normal(size=(1, H * d)) for name in ("Wq", "Wk", "Wv")}
    np.savez(tmp_path / "a.npz", X=rng.normal(size=(T, 1)), bias=np.zeros((T, T)), **weights)
    (tmp_path / "s.yaml").write_text(f"heads: {H}\nnpz: a.npz\n")
    with pytest.raises(
        ScenarioError, match="too many numbers: 19,369,680 in all with the bias"
    ) as caught:
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
    (tmp_path / "s.yaml").write_text(
        f"tokens: [{tokens}]\nquery_tokens: [q]\nQ: [[1, 0]]\nK: {{npy: K.npy}}\n"
        "V: {npy: V.npy}\nbias: {npy: b.npy}\n"
    )
    attention = Attention(load(tmp_path / "s.yaml"))
    keys = range(T_k)
    assert np.array_equal(
        attention.values("bias", 0, range(1), keys),
        attention.values("scale", 0, range(1), keys) + bias,
    )
