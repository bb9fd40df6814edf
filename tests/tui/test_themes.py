"""Colours come from the theme: every theme Textual ships, light ones included, keeps numbers
readable on their heat-map cells, and the theme and palette chosen are remembered."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from textual.color import Color

from attn_tui.core import load
from attn_tui.tui.app import AttnApp
from attn_tui.tui.heat_colours import LEVELS, contrast
from attn_tui.tui.settings import PALETTES, Settings, load_settings, settings_path
from attn_tui.tui.widgets.matrix import MatrixView
from tests.conftest import ROOT, SCENARIOS

WCAG_AA = 4.5


def cell_contrasts(view: MatrixView) -> list[float]:
    ratios = []
    for palette in ("weights", "diverging"):
        for style in view.lines.palette(palette):
            ratios.append(
                contrast(Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor))
            )
    return ratios


@pytest.mark.slow
async def test_numbers_on_heat_map_cells_read_in_every_theme_and_palette():
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        views = list(app.screen.query(MatrixView))
        themes = sorted(app.available_themes)
        assert len(themes) > 10 and "textual-light" in themes
        # every theme with its own colours; the colour-blind-safe palette's are fixed, so one
        # light and one dark theme show it
        for palette, names in (
            (PALETTES[0], themes),
            (PALETTES[1], ["textual-light", "textual-dark"]),
        ):
            app.use_palette(palette)
            for theme in names:
                app.theme = theme
                await pilot.pause()
                for view in views:
                    ratios = cell_contrasts(view)
                    assert len(ratios) == 2 * LEVELS
                    assert min(ratios) >= WCAG_AA, (theme, palette, view.id, min(ratios))


async def test_a_light_theme_gives_light_cells_and_the_palette_changes_them():
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        view = app.screen.query_one("#stage", MatrixView)
        app.theme = "textual-light"
        await pilot.pause()
        zero = Color.from_rich_color(view.lines.palette("weights")[0].bgcolor)
        assert zero.brightness > 0.7  # 0 weight on the light surface, not a dark cell
        app.use_palette("colour-blind safe")
        await pilot.pause()
        assert (
            Color.from_rich_color(view.lines.palette("weights")[-1].bgcolor).hex.upper()
            == "#FDE725"
        )


async def test_the_theme_and_palette_are_remembered_across_starts():
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.theme = "textual-light"
        app.use_palette("colour-blind safe")
        await pilot.pause()
    saved = json.loads(open(settings_path()).read())
    assert saved == {"theme": "textual-light", "palette": "colour-blind safe"}
    again = AttnApp(load(SCENARIOS / "cat_sat.yaml"))
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert again.theme == "textual-light" and again.palette_name == "colour-blind safe"
        assert again.has_class("-colour-blind")


def write_settings(data: bytes) -> None:
    os.makedirs(os.path.dirname(settings_path()), exist_ok=True)
    with open(settings_path(), "wb") as file:
        file.write(data)


@pytest.mark.parametrize(
    "data",
    [
        b"not json",
        b'{"theme": 5}',
        b'["a"]',
        b"\x00" * 10,
        b"\xff\xfe{}",
        b'{"theme": "x" , "palette": "neon"}',
        b"{" + b" " * 10_000 + b"}",
        b"[" * 1_500 + b"]" * 1_500,
        b'{"theme": ' * 1_000 + b"1" + b"}" * 1_000,
    ],
)
def test_a_settings_file_not_ours_is_set_aside_with_a_notice_and_kept(data):
    write_settings(data)
    settings = load_settings()
    assert (
        settings.values == {}
        and settings.notice
        and "using the default settings" in settings.notice
    )
    assert not os.path.lexists(settings_path())  # set aside, so that saving cannot overwrite it
    aside = [name for name in os.listdir(os.path.dirname(settings_path())) if ".set-aside-" in name]
    assert len(aside) == 1 and aside[0] in settings.notice
    with open(os.path.join(os.path.dirname(settings_path()), aside[0]), "rb") as file:
        assert file.read() == data  # the user's bytes, untouched


def test_what_attn_tui_wrote_is_read_and_an_unknown_key_does_not_matter():
    write_settings(b'{"theme": "nord", "palette": "colour-blind safe", "later": [1]}')
    assert load_settings() == Settings({"theme": "nord", "palette": "colour-blind safe"})


async def test_the_app_opens_past_a_damaged_settings_file_and_says_so_once():
    write_settings(
        b"[" * 1_500 + b"]" * 1_500
    )  # 3,000 bytes: a RecursionError in json.loads (it was exit 3)
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.palette_name == PALETTES[0] and app.theme in app.available_themes
        notes = [note.message for note in app._notifications]
        assert len(notes) == 1 and "is not JSON" in notes[0] and "set-aside" in notes[0]
        app.use_palette("colour-blind safe")  # saving afterwards writes a fresh file of ours
        await pilot.pause()
    assert json.loads(open(settings_path()).read()) == {"palette": "colour-blind safe"}


def test_a_fifo_as_the_settings_file_does_not_hold_the_app(tmp_path):
    os.makedirs(os.path.dirname(settings_path()), exist_ok=True)
    os.mkfifo(settings_path())  # nobody writes to it: an open() without O_NONBLOCK waits for ever
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from attn_tui.tui.settings import load_settings; print(load_settings().notice)",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
        env={**os.environ},
    )
    assert "is not a regular file" in done.stdout, done.stderr
    assert not os.path.lexists(settings_path())


async def test_the_app_opens_with_a_fifo_as_the_settings_file():
    os.makedirs(os.path.dirname(settings_path()), exist_ok=True)
    os.mkfifo(settings_path())
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "is not a regular file" in " ".join(note.message for note in app._notifications)
