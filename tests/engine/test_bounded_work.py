"""A small file must not cost minutes (issue 29: 1,000 edit beats on a random 16,384-token
scenario took --check past 60 s, each beat checked with a whole-matrix pass)."""

from __future__ import annotations

import pytest

from attn_tui.core.engine import overflow
from attn_tui.core.errors import ScenarioError
from attn_tui.core.loading.scenario_file import loads
from attn_tui.core.outputs.lesson_handout import HANDOUT_NUMBERS, lesson_markdown


def big_lesson(beats: int, T: int = 2048, d_k: int = 64, last: str = "") -> str:
    edits = "\n".join(
        f"  - {{edit: {{matrix: Q, row: {i % 100 + 1}, col: {i % 7 + 1}, to: {i % 5}}}}}"
        for i in range(beats)
    )
    return f"title: big\nrandom: {{seed: 0, T: {T}, d_k: {d_k}}}\nlesson:\n{edits}\n{last}"


def test_checking_many_beats_makes_no_whole_matrix_pass_per_beat(monkeypatch):
    passes = []
    real = overflow.check_range
    monkeypatch.setattr(
        overflow, "check_range", lambda *a, **k: (passes.append(1), real(*a, **k))[1]
    )
    from attn_tui.core.editing import session
    from attn_tui.core.lessons import reader as lesson_reader

    monkeypatch.setattr(session, "check_range", overflow.check_range)
    assert not hasattr(
        lesson_reader, "check_range"
    )  # (the reader plays the beats through a Session)
    scenario = loads(big_lesson(300))
    assert len(scenario.lesson.beats) == 300
    assert len(passes) <= 1  # the file's own numbers, once: each beat checks what it changes


def test_a_beat_that_overflows_is_still_found_at_its_line():
    text = big_lesson(5, T=64, d_k=8, last="  - {edit: {matrix: Q, row: 1, col: 1, to: 1e308}}\n")
    with pytest.raises(ScenarioError) as caught:
        loads(text, "big.yaml")
    assert "lesson beat 6" in str(caught.value) and "big.yaml:9:" in str(caught.value)


def test_a_handout_names_a_matrix_too_large_to_print_instead_of_printing_it():
    scenario = loads(big_lesson(2, T=1024, d_k=8))
    text = lesson_markdown(scenario)
    assert (
        f"1,024 × 8 = 8,192 numbers: too many to print here (at most {HANDOUT_NUMBERS:,} a matrix)"
        in text
    )
    assert len(text) < 20_000


def write_index(folder, layers: int, T: int) -> str:
    (folder / "big.yaml").write_text(f"title: big\nrandom: {{seed: 0, T: {T}, d_k: 64}}\n")
    lines = "".join(f"  - {{layer: {i}, scenario: big.yaml}}\n" for i in range(layers))
    (folder / "index.yaml").write_text(f"model_index: 1\ntitle: many\nlayers:\n{lines}")
    return str(folder / "index.yaml")


def test_an_index_that_asks_for_minutes_of_work_is_refused_at_once(tmp_path):
    """Issue 29: 1,024 layers naming one large scenario ran `heads` past 20 s, saying nothing."""
    import subprocess
    import sys

    path = write_index(tmp_path, 1024, 4096)
    done = subprocess.run(
        [sys.executable, "-m", "attn_tui", "heads", path],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert (
        "index.yaml:1:1: the 1,024 layers would take about" in done.stderr
        and "minutes to score" in done.stderr
    )


def test_long_work_says_how_far_it_has_got_on_stderr(tmp_path, monkeypatch):
    from attn_tui.tui.cli import heads as heads_command

    path = write_index(tmp_path, 2, 64)
    monkeypatch.setattr(heads_command, "PROGRESS_FROM", 1.0)  # (as if the layers were large)
    out, err = [], []
    args = heads_command.build_parser().parse_args([path])
    assert heads_command.heads(args, out.append, err.append, lambda name: name) == 0
    assert err == ["attn-tui heads: layer 0 (1 of 2)", "attn-tui heads: layer 1 (2 of 2)"]
    assert "".join(out).count("head 1") == 2


def test_an_index_of_small_width_layers_counts_the_per_weight_cost(tmp_path):
    """Issue 47: 1,024 layers of T = 4,096 at d_k = 1 were under the multiply-add limit and ran
    ~5 minutes; by hand 4,096² weights × (130 + 3·2) half-ns ≈ 1.1 s a layer, 1,024 of them
    ≈ 19 minutes, far past 20 s: refused at once, offering about 20 s / 1.1 s ≈ 17 layers."""
    from attn_tui.core import ScenarioError
    from attn_tui.core.loading.model_index import check_work, read_index

    (tmp_path / "small.yaml").write_text("title: small\nrandom: {seed: 0, T: 4096, d_k: 1}\n")
    lines = "".join(f"  - {{layer: {i}, scenario: small.yaml}}\n" for i in range(1024))
    (tmp_path / "index.yaml").write_text(f"model_index: 1\nlayers:\n{lines}")
    try:
        check_work(read_index(str(tmp_path / "index.yaml")))
    except ScenarioError as error:
        assert "about 19 minutes" in str(error) and "at most about 17 of them" in str(error), str(
            error
        )
    else:
        raise AssertionError("not refused")
