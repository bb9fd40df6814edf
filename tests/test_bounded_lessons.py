"""A small file must not cost minutes (issue 29: 1,000 edit beats on a random 16,384-token
scenario took --check past 60 s, each beat checked with a whole-matrix pass)."""

from __future__ import annotations

import pytest

from attn_tui.core import overflow
from attn_tui.core.errors import ScenarioError
from attn_tui.core.lesson_handout import HANDOUT_NUMBERS, lesson_markdown
from attn_tui.core.scenario_file import loads


def big_lesson(beats: int, T: int = 2048, d_k: int = 64, last: str = "") -> str:
    edits = "\n".join(f"  - {{edit: {{matrix: Q, row: {i % 100 + 1}, col: {i % 7 + 1}, to: {i % 5}}}}}"
                      for i in range(beats))
    return f"title: big\nrandom: {{seed: 0, T: {T}, d_k: {d_k}}}\nlesson:\n{edits}\n{last}"


def test_checking_many_beats_makes_no_whole_matrix_pass_per_beat(monkeypatch):
    passes = []
    real = overflow.check_range
    monkeypatch.setattr(overflow, "check_range", lambda *a, **k: (passes.append(1), real(*a, **k))[1])
    from attn_tui.core import lesson_reader, session

    monkeypatch.setattr(session, "check_range", overflow.check_range)
    assert not hasattr(lesson_reader, "check_range")  # (the reader plays the beats through a Session)
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
    assert f"1,024 × 8 = 8,192 numbers: too many to print here (at most {HANDOUT_NUMBERS:,} a matrix)" in text
    assert len(text) < 20_000
