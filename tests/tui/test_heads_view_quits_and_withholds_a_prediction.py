"""What a newcomer tripped over in the app (issue 23): q in the all-heads view, projector mode's
digit keys and key hint, the keys the footer keeps at 80×24, the description after a save."""

from __future__ import annotations

import pytest

from attn_tui.tui.screens.choice import ChoiceScreen
from attn_tui.tui.screens.debugger import DebuggerScreen
from tests.conftest import SCENARIOS
from tests.tui_helpers import debugger, running, screen_text

TWO_HEADS = SCENARIOS / "two_heads.yaml"


async def test_q_in_the_all_heads_view_quits_as_everywhere():
    async with running(TWO_HEADS) as (app, pilot):
        await pilot.press("a")
        await pilot.pause()
        assert type(app.screen).__name__ == "HeadsScreen"
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0


@pytest.mark.slow
async def test_q_in_the_all_heads_view_asks_first_with_unsaved_edits():
    async with running(TWO_HEADS) as (app, pilot):
        await pilot.press("c")  # an unsaved edit
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen) and "unsaved edits" in app.screen.question
        await pilot.press("escape")  # Cancel: nothing lost, back where the user was
        await pilot.pause()
        assert app.return_code is None and debugger_below(app).session.modified


def debugger_below(app) -> DebuggerScreen:
    return next(screen for screen in reversed(app.screen_stack) if isinstance(screen, DebuggerScreen))


async def test_projector_mode_jumps_to_a_step_by_its_digit_and_shows_its_keys():
    async with running() as (app, pilot):
        await pilot.press("p")
        await pilot.pause()
        assert type(app.screen).__name__ == "PresentScreen"
        await pilot.press("4")
        await pilot.pause()
        assert debugger_below(app).step == 3
        text = screen_text(app)
        assert 'Step 4 · Softmax — row "sat"' in text
        hint = next(line for line in reversed(text.splitlines()) if line.strip())  # the footer
        for shown in ("→ Step", "12345 Jump to step", "↓ Row", "p Leave projector mode", "q Quit"):
            assert shown in hint, hint
        await pilot.press("1")
        await pilot.pause()
        assert 'Step 1 · Score — row "sat"' in screen_text(app)


@pytest.mark.parametrize("path, size", [
    (SCENARIOS / "cat_sat.yaml", (80, 24)), (TWO_HEADS, (80, 24)), (TWO_HEADS, (120, 40)),
    (SCENARIOS / "cat_sat.yaml", (50, 16)), (TWO_HEADS, (30, 10)),
])
async def test_the_footer_keeps_help_save_and_quit_at_every_size(path, size):
    async with running(path, size=size) as (app, pilot):
        await pilot.press("c")  # an edit: Undo joins the footer, and Save matters most
        await pilot.pause()
        footer = next(line for line in reversed(screen_text(app).splitlines()) if line.strip())
        for shown in ("? Help", "^s Save", "q Quit"):
            assert shown in footer, footer


# ---- the description after toggling causal and saving ------------------------------------------

@pytest.fixture
def cat_sat(tmp_path):
    path = tmp_path / "cat_sat.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text())
    return path


def description_text(app) -> str:
    return str(app.screen.query_one("#description").render())


async def test_after_a_save_the_description_still_says_it_was_written_for_other_options(cat_sat):
    async with running(cat_sat) as (app, pilot):
        assert "(" not in description_text(app).split("[0.5, 0.5].")[1]  # as written: nothing added
        await pilot.press("c")
        await pilot.pause()
        assert "(written for causal on; now causal off)" in description_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not debugger(app).session.modified
        # saved, the file says causal: false, but its description still says "a causal mask"
        assert "(written for causal on; now causal off)" in description_text(app)
        await pilot.press("c")  # back to what it was written for
        await pilot.pause()
        assert "written for" not in description_text(app)


async def test_a_file_saved_so_says_it_when_opened_again(cat_sat):
    async with running(cat_sat) as (app, pilot):
        await pilot.press("c", "ctrl+s")
        await pilot.pause()
    text = cat_sat.read_text()
    # the comment reads as what the old value meant, and says so of that value
    assert "causal: false     # if true: a token may not look at the tokens after it (a language model)\n" in text
    async with running(cat_sat) as (app, pilot):  # another day: the file alone tells
        assert "(written for causal on; now causal off)" in description_text(app)


# ---- the app's matrices measure labels as the terminal draws them --------------------------------

async def test_matrix_labels_keep_the_numbers_aligned_and_clusters_whole(tmp_path):
    from attn_tui.core.text import cells
    from tests.tui_helpers import drawn_lines, stage_view

    family = "👨\u200d👩\u200d👧"
    tokens = ["日本語テキストです", family * 8, "e\u0301" * 14, "x"]
    path = tmp_path / "wide.yaml"
    path.write_text("tokens: [" + ", ".join(f'"{t}"' for t in tokens) + "]\n"
                    "Q: [[1, 0], [0, 1], [1, 1], [0, 0]]\nK: [[1, 0], [0, 1], [1, 1], [0, 0]]\n"
                    "V: [[1, 0], [0, 1], [1, 1], [0, 0]]\n", encoding="utf-8")
    async with running(path) as (app, pilot):
        lines = drawn_lines(stage_view(app))
        header, rows = lines[0], [line for line in lines[1:5]]
        starts = {cells(line[:next(i for i, c in enumerate(line) if c.isdigit())]) for line in rows}
        assert len(starts) == 1, "\n".join(lines[:5])  # every row's numbers begin in one column
        for line in rows:
            label = line.split(" ")[0]
            assert "\u200d" not in label[-1:] and not label.startswith("\u0301")
            assert label.count("\u200d") % 2 == 0  # whole families only (two joiners each)
        assert "…" in header or cells(header) >= 8  # a long key's header is clipped, not spilled
        for line in lines[:5]:
            assert cells(line) == cells(lines[0]), "\n".join(lines[:5])


async def test_the_all_heads_view_withholds_a_head_with_a_prediction_to_reveal(tmp_path):
    # the attack on #29: a predicted row not yet revealed was drawn in every head's map
    from tests.tui.test_model_view import wait_for

    path = tmp_path / "p.yaml"
    path.write_text(TWO_HEADS.read_text() + "\npredict: [weights]\n")
    async with running(path) as (app, pilot):
        await pilot.press("4", "a")
        await pilot.pause()
        maps = list(app.screen.query("OverviewMap"))
        assert len(maps) == 2
        await pilot.pause(0.3)
        assert all(view.small is None and "hidden" in view.border_subtitle for view in maps)
    async with running(TWO_HEADS) as (app, pilot):  # nothing to predict: both drawn
        await pilot.press("a")
        maps = list(app.screen.query("OverviewMap"))
        await wait_for(pilot, lambda: all(view.small is not None for view in maps))
        assert not any("hidden" in view.border_subtitle for view in maps)


async def test_present_at_start_opens_projector_mode_over_the_debugger():
    # the debugger is pushed after Textual's start-up batch (#30): projector mode must still come
    # on top of it, not under it
    from attn_tui.core import load
    from attn_tui.tui.app import AttnApp
    from attn_tui.tui.screens.present import PresentScreen

    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), present=True, remember=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, PresentScreen)
        assert isinstance(app.screen_stack[-2], DebuggerScreen)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_projector_mode_keeps_a_hidden_cell_s_words_on_one_line(tmp_path, size):
    """Issue 47: "? (predict it)" wrapped mid-phrase ("? (predict" / "it)") in a cell 12 wide."""
    path = tmp_path / "predict.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text(encoding="utf-8") + "predict: [weights]\n",
                    encoding="utf-8")
    async with running(path, size=size) as (app, pilot):
        await pilot.press("4")
        await pilot.press("p")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        hidden = [line for line in lines if "? (predict" in line]
        assert hidden and all(line.count("? (predict it)") == 3 for line in hidden), hidden
        assert not any(line.strip().startswith("it)") for line in lines)
