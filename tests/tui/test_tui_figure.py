"""F in the app (issue 45): the current step as an SVG figure beside the scenario, said in the
bar; never a prediction given away."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tests.conftest import SCENARIOS
from tests.tui_helpers import delivered_to_browser, running

SVG = "{http://www.w3.org/2000/svg}"


def copy(tmp_path, extra: str = ""):
    path = tmp_path / "mine.yaml"
    path.write_text((SCENARIOS / "cat_sat.yaml").read_text() + extra)
    return path


def said(app) -> str:
    return " ".join(str(n.message) for n in app._notifications)


async def test_f_writes_the_step_beside_the_scenario(tmp_path):
    async with running(copy(tmp_path)) as (app, pilot):
        await pilot.press("4", "F")
        await pilot.pause()
        figures = list(tmp_path.glob("mine-weights-*.svg"))
        assert len(figures) == 1
        assert f"Figure saved: {figures[0]}" in said(app)
    root = ET.fromstring(figures[0].read_bytes())
    texts = [t.text for t in root.iter(SVG + "text")]
    at = texts.index("sat")
    assert texts[at + 1 : at + 4] == ["0.248", "0.248", "0.503"]  # seeds/ch24


async def test_f_after_an_edit_draws_the_edited_numbers(tmp_path):
    async with running(copy(tmp_path)) as (_app, pilot):
        await pilot.press("1", "F")  # scores: "sat" row is 1, 1, 2
        await pilot.pause()
    (figure,) = tmp_path.glob("mine-scores-*.svg")
    texts = [t.text for t in ET.fromstring(figure.read_bytes()).iter(SVG + "text")]
    at = texts.index("sat")
    assert texts[at + 1 : at + 4] == ["1", "1", "2"]


async def test_f_gives_no_prediction_away(tmp_path):
    async with running(copy(tmp_path, "predict: [weights]\n")) as (app, pilot):
        await pilot.press("4", "F")
        await pilot.pause()
        assert "would give a prediction away" in said(app)
    assert not list(tmp_path.glob("*.svg"))


async def test_f_on_an_input_matrix_draws_that_matrix(tmp_path):
    """Issue 45: F drew the current stage even with Q focused. With V focused, V's numbers."""
    async with running(copy(tmp_path)) as (app, pilot):
        await pilot.press("4", "tab", "tab", "tab", "F")  # V
        await pilot.pause()
        (figure,) = tmp_path.glob("mine-V-*.svg")
        assert f"Figure saved: {figure}" in said(app)
    root = ET.fromstring(figure.read_bytes())
    values = [
        float(r.get("data-value")) for r in root.iter(SVG + "rect") if r.get("class") == "cell"
    ]
    assert values == [1.0, 0.0, 0.0, 1.0, 0.5, 0.5]  # scenarios/cat_sat.yaml's V, row by row
    assert [t.text for t in root.iter(SVG + "text")][0] == "V"


async def test_two_figures_in_one_second_are_two_files(tmp_path):
    async with running(copy(tmp_path)) as (_app, pilot):
        await pilot.press("4", "F", "F")
        await pilot.pause()
    assert len(list(tmp_path.glob("mine-weights-*.svg"))) == 2


async def test_f_in_a_served_app_hands_the_figure_to_the_browser(tmp_path, monkeypatch):
    """In a browser (a served app), F sends the figure to the browser's downloads, as ctrl+t's
    screenshot does, and writes nothing on the server."""
    from attn_tui.core import load
    from attn_tui.core.editing.save_root import SaveRoot
    from attn_tui.tui.app import AttnApp

    root = tmp_path / "class"
    root.mkdir()
    monkeypatch.chdir(root)
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), read_only=True, save_root=SaveRoot(root))
    delivered = delivered_to_browser(app, monkeypatch)
    monkeypatch.setattr(AttnApp, "is_web", property(lambda self: True))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("4", "F")
        await pilot.pause()
        assert "Figure sent to this browser's downloads" in said(app)
    ((data, name, mime),) = delivered
    assert name.startswith("cat_sat-weights-") and name.endswith(".svg") and mime == "image/svg+xml"
    texts = [t.text for t in ET.fromstring(data).iter(SVG + "text")]
    at = texts.index("sat")
    assert texts[at + 1 : at + 4] == ["0.248", "0.248", "0.503"]  # seeds/ch24
    assert list(root.iterdir()) == []


async def test_f_on_a_per_head_input_draws_the_head_its_pane_shows(tmp_path):
    """Of a per-head input, F draws the head its pane shows: with 4 query heads sharing 2 key
    heads, query head 2 reads key head 1 (2 · 2 // 4 = 1), query head 1 key head 0."""
    import numpy as np

    path = tmp_path / "gqa.yaml"
    Q = np.arange(4 * 2 * 2).reshape(4, 2, 2).tolist()
    K = [[[1, 0], [0, 1]], [[2, 3], [4, 5]]]
    path.write_text(f"tokens: [a, b]\nheads: 4\nQ: {Q}\nK: {K}\nV: {K}\n", encoding="utf-8")
    async with running(path) as (app, pilot):
        await pilot.press("h", "tab", "tab", "F")  # the second query head, K's pane
        await pilot.pause()
        (figure,) = tmp_path.glob("gqa-K-*.svg")
    values = [
        float(r.get("data-value"))
        for r in ET.fromstring(figure.read_bytes()).iter(SVG + "rect")
        if r.get("class") == "cell"
    ]
    assert values == np.array(K[0]).ravel().tolist()
