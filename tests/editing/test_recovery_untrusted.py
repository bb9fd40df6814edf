"""A recovery copy is untrusted input: every edit in it is checked against
the file as it is now and by the loader's rules; what does not fit is skipped and reported,
never applied, never a crash."""

from __future__ import annotations

import json
import math
import os
import time

import pytest

from attn_tui.core import load
from attn_tui.core.editing.recovery import read, recovery_path
from attn_tui.core.editing.session import Session
from tests.conftest import SCENARIOS

CAT_SAT = (SCENARIOS / "cat_sat.yaml").read_text()
TWO_TOKENS = "tokens: [the, cat]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"


@pytest.fixture
def mine(tmp_path):
    path = tmp_path / "lesson.yaml"
    path.write_text(CAT_SAT)
    return path


def crafted(path, edits: list) -> None:
    """A recovery copy for ``path`` holding ``edits`` as written (any JSON at all)."""
    copy = recovery_path(str(path))
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    with open(copy, "w") as file:
        json.dump(
            {"attn-tui-recovery": 1, "saved_at": time.time(), "source_sha256": "x", "edits": edits},
            file,
        )


def restored(path) -> tuple[Session, list[str]]:
    session = Session(load(path))
    found = session.journal.pending()
    assert found is not None
    return session, session.journal.restore(found)


def test_an_edit_of_a_row_the_file_no_longer_has_is_skipped_and_said(mine):
    """The issue's steps: edit Q row 3, the terminal dies, the file loses a token, Restore."""
    Session(load(mine)).set_cell("Q", 2, 1, 5.0)  # the copy is written; the process dies
    mine.write_text(TWO_TOKENS)
    session, skipped = restored(mine)
    assert skipped == ["Q row 3, column 2 = 5: the file's Q has 2 rows now"]
    assert session.scenario.same_numbers(load(mine)) and not session.modified
    assert Session(load(mine)).journal.pending() is None  # reported once, not offered for ever


GOOD = {"cell": ["K", 0, 1], "value": 2.5, "old": 0.0}


@pytest.mark.parametrize(
    "edit, reason",
    [
        (
            {"cell": ["Z", 0, 0], "value": 1.0, "old": 0.0},
            "Z: the file has no matrix of that name (Q, K, V)",
        ),
        (
            {"cell": ["Q", -1, 0], "value": 1.0, "old": 0.0},
            "Q row 0, column 1 = 1: the file's Q has no row 0",
        ),
        (
            {"cell": ["Q", 0, 2], "value": 1.0, "old": 0.0},
            "Q row 1, column 3 = 1: the file's Q has 2 columns",
        ),
        ({"cell": ["Q", 1.5, 0], "value": 1.0, "old": 0.0}, "not an edit attn-tui writes"),
        ({"cell": ["Q", True, 0], "value": 1.0, "old": 0.0}, "not an edit attn-tui writes"),
        ({"cell": ["Q", 0, 0], "value": "NaN", "old": 0.0}, "not an edit attn-tui writes"),
        (
            {"cell": ["Q", 0, 0], "value": math.nan, "old": 0.0},
            "Q row 1, column 1 = nan: numbers must be finite",
        ),
        (
            {"cell": ["V", 0, 0], "value": 1e308, "old": 0.0},
            "V row 1, column 1 = 1e+308: V must stay below 1e+307",
        ),
        (
            {"option": "scale", "value": 0, "old": True},
            "scale = 0: scale must be true, false or a positive number",
        ),
        (
            {"option": "scale", "value": -2, "old": True},
            "scale = -2: scale must be true, false or a positive number",
        ),
        (
            {"option": "causal", "value": "yes", "old": True},
            "causal = 'yes': causal must be true or false",
        ),
        (
            {"option": "mask_value", "value": 5, "old": -1e9},
            "mask_value = 5: mask_value must be negative",
        ),
        (
            {"option": "temperature", "value": 2, "old": 1},
            "temperature: not an option (causal, scale, mask_value)",
        ),
        (
            {
                "expect": {"weights": {"values": [[1]], "given": [[True]]}},
                "old": {},
                "tolerance": 1e-6,
                "old_tolerance": 1e-6,
            },
            "expect weights is 1×1 but that stage is 3×3",
        ),
        (
            {
                "expect": {"nonsense": {"values": [[1]], "given": [[True]]}},
                "old": {},
                "tolerance": 1e-6,
                "old_tolerance": 1e-6,
            },
            "expect nonsense: not a stage",
        ),
        (
            {"expect": {}, "old": {}, "tolerance": -1, "old_tolerance": 1e-6},
            "expect_tolerance must be positive",
        ),
        ({"cell": ["Q", 0]}, "not an edit attn-tui writes"),
        ("Q[0, 0] = 1", "not an edit attn-tui writes"),
    ],
)
def test_a_crafted_edit_is_skipped_with_its_reason_and_the_rest_applies(mine, edit, reason):
    crafted(mine, [edit, GOOD])
    session, skipped = restored(mine)
    assert len(skipped) == 1 and reason in skipped[0], skipped
    assert session.scenario.K[0, 1] == 2.5  # the good edit after it still applies
    options = session.scenario.options
    assert (options.causal, options.scale, options.mask_value) == (True, True, -math.inf)
    assert session.scenario.Q.tolist() == load(mine).Q.tolist()


def test_an_edit_that_would_overflow_a_stage_is_skipped(mine):
    """Q[3, 1] = 1e308 alone is a finite score; with K[3, 1] = 1e308 as well, Q·Kᵀ overflows."""
    crafted(
        mine,
        [
            {"cell": ["Q", 2, 0], "value": 1e308, "old": 1.0},
            {"cell": ["K", 2, 0], "value": 1e308, "old": 1.0},
            GOOD,
        ],
    )
    session, skipped = restored(mine)
    assert skipped == ["K row 3, column 1 = 1e+308: a stage would overflow float64 with it"]
    assert session.scenario.Q[2, 0] == 1e308 and session.scenario.K[2, 0] == 1.0
    assert session.scenario.K[0, 1] == 2.5


def test_a_valid_copy_of_every_kind_still_restores_exactly(mine):
    session = Session(load(mine))
    session.set_cell("Q", 2, 1, 5.0)
    session.toggle_causal()
    session.cycle_scale()
    expected = session.scenario
    again, skipped = restored(mine)
    assert skipped == [] and again.scenario.same_numbers(expected)


def test_a_copy_that_is_not_even_json_is_ignored(mine):
    copy = recovery_path(str(mine))
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    with open(copy, "w") as file:
        file.write('{"edits": [')
    assert read(copy, CAT_SAT) is None


async def test_the_app_restores_what_fits_and_says_what_it_skipped(mine):
    from attn_tui.tui.screens.choice import ChoiceScreen
    from tests.tui.test_model_view import wait_for
    from tests.tui_helpers import debugger, running

    crafted(
        mine,
        [
            {"cell": ["Q", 7, 0], "value": 1.0, "old": 0.0},
            {"option": "causal", "value": "[/x]", "old": True},
            GOOD,
        ],
    )
    async with running(mine) as (app, pilot):
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        await wait_for(pilot, lambda: app.screen.armed)  # (it settles for half a second)
        await pilot.press("enter")  # Restore, the default
        await pilot.pause()
        assert debugger(app).session.scenario.K[0, 1] == 2.5
        messages = " ".join(str(n.message) for n in app._notifications)
        assert "Restored 1 of 3" in messages and "Q row 8" in messages and "[/x]" in messages
