"""Colours come from the theme: every theme Textual ships, light ones included, keeps numbers
readable on their heat-map cells, and the theme and palette chosen are remembered."""

from __future__ import annotations

import json

import pytest

from attn_tui.core import load
from attn_tui.tui.app import AttnApp
from attn_tui.tui.settings import PALETTES, settings_path
from attn_tui.tui.heat_colours import LEVELS, contrast
from attn_tui.tui.widgets.matrix import MatrixView
from textual.color import Color
from tests.conftest import SCENARIOS

WCAG_AA = 4.5


def cell_contrasts(view: MatrixView) -> list[float]:
    ratios = []
    for palette in ("weights", "diverging"):
        for style in view.lines.palette(palette):
            ratios.append(contrast(Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor)))
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
        for palette, names in ((PALETTES[0], themes), (PALETTES[1], ["textual-light", "textual-dark"])):
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
        assert Color.from_rich_color(view.lines.palette("weights")[-1].bgcolor).hex.upper() == "#FDE725"


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


async def test_a_damaged_settings_file_is_ignored():
    import os

    from attn_tui.tui.settings import load_settings
    os.makedirs(os.path.dirname(settings_path()), exist_ok=True)
    for text, expected in (("not json", {}), ('{"theme": 5}', {}), ('["a"]', {}), ("\x00" * 10, {}),
                           ('{"theme": "x" , "palette": "neon"}', {"theme": "x"}),
                           ("{" + " " * 10_000 + "}", {})):
        with open(settings_path(), "w") as file:
            file.write(text)
        assert load_settings() == expected, text
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"))  # an unknown theme name is ignored
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.palette_name == PALETTES[0] and app.theme in app.available_themes
