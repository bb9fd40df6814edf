"""check --impl --open: the app opens on the scenario with the student's numbers as expect:, at
the first stage that differs, on its first differing row and cell. The app is the one the
command line builds (its run() is caught, then driven headless with Pilot). The numbers are
worked by hand from cat_sat's Q, K, V: "cat" scaled is softmax(0, 1/√2) = 0.330, 0.670;
unscaled softmax(0, 1) = 0.269, 0.731; weights.T @ V for "the" is 1·[1, 0] + 0.330·[0, 1] +
0.248·[0.5, 0.5] = [1.124, 0.454], against V's first row [1, 0]."""

from __future__ import annotations

from pathlib import Path

import pytest

from attn_tui.tui.app import AttnApp
from attn_tui.tui.cli import main
from tests.tui_helpers import SIZE, debugger, stage_view

STUDENTS = Path(__file__).with_name("students")
CAT = 1


@pytest.fixture
def opened(monkeypatch, capsys):
    """The app ``check --impl FILE --open`` builds, not yet run."""
    built = []

    def caught(app, *args, **kwargs):
        built.append(app)
        return 0

    monkeypatch.setattr(AttnApp, "run", caught)

    def open_for(student: str) -> tuple[AttnApp, int, str]:
        status = main(["check", "cat_sat", "--impl", str(STUDENTS / f"{student}.py"), "--open"])
        out = capsys.readouterr().out
        assert len(built) == 1, out
        return built.pop(), status, out

    return open_for


async def test_it_opens_at_the_weights_of_the_first_wrong_row(opened):
    app, status, out = opened("unscaled")
    assert status == 1 and "The first stage that differs is weights." in out
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = debugger(app)
        assert (screen.stage, screen.row) == ("softmax", CAT)
        view = stage_view(app)
        assert str(view.border_title).startswith("Step 4 · Softmax")
        assert view.cursor == (CAT, 0)
        assert view.row_texts(0) == [
            "1.000✓",
            "0.000✓",
            "0.000✓",
        ]  # "the" sees itself alone either way
        assert view.row_texts(CAT) == ["0.330✗", "0.670✗", "0.000✓"]  # attention's, marked
        await pilot.press("y")
        assert view.row_texts(CAT) == ["0.269✗", "0.731✗", "0.000✓"]  # the student's own
        assert "showing YOUR values" in str(view.border_subtitle)


async def test_it_opens_at_the_output_when_the_weights_are_right(opened):
    app, status, _ = opened("output_transposed")
    assert status == 1
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = debugger(app)
        assert (screen.stage, screen.row) == ("weighted_sum", 0)
        view = stage_view(app)
        assert str(view.border_title).startswith("Step 5 · Weighted sum")
        assert view.cursor == (0, 0)
        assert view.row_texts(0) == ["1.000✗", "0.000✗"]
        await pilot.press("y")
        assert view.row_texts(0) == ["1.124✗", "0.454✗"]
        await pilot.press("4")  # its weights are right
        assert view.row_texts(CAT) == ["0.330✓", "0.670✓", "0.000✓"]


async def test_right_code_opens_where_the_scenario_does(opened):
    app, status, _ = opened("chapter")
    assert status == 0
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = debugger(app)
        assert screen.step == 0 and screen.row == 2  # cat_sat's focus: sat


async def test_a_file_of_one_s_own_opens_read_only_not_as_a_built_in(monkeypatch, capsys, tmp_path):
    """The scenario --open opens holds the student's numbers as expect:, so it is read-only
    (saving asks where); the header says so, and does not call the teacher's file a built-in."""
    from tests.conftest import SCENARIOS
    from tests.tui_helpers import screen_text

    mine = tmp_path / "mine.yaml"
    mine.write_text((SCENARIOS / "cat_sat.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    built = []
    monkeypatch.setattr(AttnApp, "run", lambda app, *a, **k: built.append(app) or 0)
    assert main(["check", str(mine), "--impl", str(STUDENTS / "unscaled.py"), "--open"]) == 1
    capsys.readouterr()
    async with built[0].run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(built[0])
        assert "mine (read-only)" in text and "(built-in)" not in text
