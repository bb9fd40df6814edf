"""The SVG heat map of a stage (issue 45): well-formed XML, its numbers those of the chapter
(seeds/ch24: "sat" pays 0.248, 0.248, 0.503), the largest weight the strongest colour, masked
cells hatched and not the colour of 0, hostile tokens text, large T drawn in blocks."""

import re
import xml.etree.ElementTree as ET
from itertools import pairwise

import numpy as np
import pytest

from attn_tui.core import load, loads
from attn_tui.core.engine.attention import Attention
from attn_tui.core.outputs.figures import colour_maps
from attn_tui.core.outputs.figures.heat_map import FigureError, heat_map
from attn_tui.core.outputs.figures.svg import Svg
from tests.conftest import ROOT
from tests.reference import softmax

SVG = "{http://www.w3.org/2000/svg}"


def figure(source, key="weights", head=0):
    scenario = (
        load(source) if not isinstance(source, str) or source.endswith(".yaml") else loads(source)
    )
    return ET.fromstring(heat_map(Attention(scenario), key, head).encode())


def texts(root):
    return [element.text for element in root.iter(SVG + "text")]


def cells(root):
    return [r for r in root.iter(SVG + "rect") if r.get("class") == "cell"]


def test_the_chapters_weights_are_the_cells_text():
    root = figure(str(ROOT / "scenarios" / "cat_sat.yaml"))
    shown = texts(root)
    assert "Softmax (weights)" in shown
    at = shown.index("sat")  # the row label, then its cells' numbers
    assert shown[at + 1 : at + 4] == ["0.248", "0.248", "0.503"]
    assert not list(root.iter(SVG + "script"))


def test_the_largest_weight_has_the_strongest_colour():
    root = figure(str(ROOT / "scenarios" / "cat_sat.yaml"))
    found = [
        (float(r.get("data-value")), colour_maps.lightness(r.get("fill"))) for r in cells(root)
    ]
    largest = max(found)[0]
    # viridis: the largest weight is the lightest (yellow end); every larger weight is no darker
    assert max(found, key=lambda item: item[1])[0] == largest
    ordered = sorted(found)
    assert all(a[1] <= b[1] + 1e-9 for a, b in pairwise(ordered))


def test_masked_cells_are_hatched_not_zero():
    root = figure(str(ROOT / "scenarios" / "cat_sat.yaml"))
    masked = [r for r in root.iter(SVG + "rect") if r.get("class") == "masked"]
    assert len(masked) == 3  # causal, T = 3: the cells above the diagonal
    assert all(r.get("fill") == "url(#masked)" for r in masked)
    assert any("masked" in (t or "") for t in texts(root))


@pytest.mark.parametrize("palette, stops", [("weights", colour_maps.WEIGHTS)])
def test_sequential_lightness_is_monotonic(palette, stops):
    steps = colour_maps.colours(np.linspace(0, 1, colour_maps.LEVELS), palette)
    light = [colour_maps.lightness(str(c)) for c in steps]
    assert all(a < b for a, b in pairwise(light))


def test_diverging_lightness_grows_with_size_each_side():
    below = colour_maps.colours(np.linspace(0.5, 0.0, 17), "diverging")
    above = colour_maps.colours(np.linspace(0.5, 1.0, 17), "diverging")
    for side in (below, above):
        light = [colour_maps.lightness(str(c)) for c in side]
        assert all(a < b for a, b in pairwise(light))


def test_the_palettes_are_the_apps_colour_blind_ones():
    sheet = (ROOT / "tui" / "app.tcss").read_text(encoding="utf-8")
    found = dict(
        re.findall(
            r"App\.-colour-blind MatrixView > \.matrix--(\w+) \{ background: (#[0-9a-f]{6}); \}",
            sheet,
        )
    )
    assert (found["low"], found["middle"], found["high"]) == colour_maps.WEIGHTS
    assert (found["negative"], found["zero"], found["positive"]) == colour_maps.DIVERGING


HOSTILE = """\
title: "<script>alert(1)</script> & [/INST]"
tokens: ["<script>", "a&b", "e\\x1b[2Jx", "{long}"]
Q: [[1], [0], [1], [0]]
K: [[1], [1], [0], [0]]
V: [[1], [2], [3], [4]]
"""


def test_hostile_tokens_stay_text():
    # (a scenario's token is at most 256 characters: the loader refuses 10,000, naming line and
    # column)
    text = heat_map(Attention(loads(HOSTILE.replace("{long}", "w" * 256))), "scores")
    root = ET.fromstring(text.encode())  # well-formed
    assert not list(root.iter(SVG + "script"))
    assert "\x1b" not in text and "<script>" not in text
    shown = texts(root)
    assert "<script>" in shown and "a&b" in shown and "e␛[2Jx" in shown
    assert max(map(len, filter(None, shown))) <= 200  # a long token is cut


def test_the_writer_escapes_and_cuts_any_text():
    drawing = Svg(10, 10, "t")
    drawing.text(0, 0, "<script>&\x1b]52;c;x\x07" + "w" * 10_000 + "\ud800")
    root = ET.fromstring(drawing.document().encode())
    (shown,) = [t.text for t in root.iter(SVG + "text")]
    assert shown.startswith("<script>&␛]52;c;x␇") and len(shown) == 40


def test_a_signed_stage_and_a_backward_stage_are_figures():
    root = figure(str(ROOT / "scenarios" / "learning_to_attend.yaml"), "d_scores")
    assert "Backward" in " ".join(filter(None, texts(root))) or cells(root)


def test_an_unknown_stage_names_the_stages():
    with pytest.raises(FigureError, match="weights"):
        figure(str(ROOT / "scenarios" / "cat_sat.yaml"), "nonsense")


def test_large_t_is_drawn_in_blocks():
    text = heat_map(Attention(loads("random: {T: 1000, d_k: 4, seed: 1}\n")), "weights")
    root = ET.fromstring(text.encode())
    assert (
        len(cells(root)) + sum(r.get("class") == "masked" for r in root.iter(SVG + "rect"))
        <= 96 * 96
    )
    assert "blocks of 11 × 11" in text


def test_a_sampled_block_is_the_mean_of_its_first_engine_rows():
    # T = 3,200: blocks of 34 × 34; each reads the 16 rows of the first engine block inside it
    scenario = loads("random: {T: 3200, d_k: 2, seed: 3}\n")
    text = heat_map(Attention(scenario), "weights")
    assert "blocks of 34 × 34" in text and "16 of its rows (a sample)" in text
    Q, K = scenario.inputs["Q"], scenario.inputs["K"]
    # block row 2 starts at 68: its first engine block is 80-95
    scores = Q[80:96] @ K.T / np.sqrt(2)
    if scenario.options.causal:
        scores = np.where(np.arange(3200)[None, :] > np.arange(80, 96)[:, None], -np.inf, scores)
    weights = softmax(scores)
    expected = weights[:, 34:68].mean()  # block column 1
    root = ET.fromstring(text.encode())
    found = {
        (round(float(r.get("y")), 3), round(float(r.get("x")), 3)): r
        for r in root.iter(SVG + "rect")
        if r.get("class") in ("cell", "masked")
    }
    ys, xs = sorted({k[0] for k in found}), sorted({k[1] for k in found})
    cell = found[(ys[2], xs[1])]
    assert float(cell.get("data-value")) == pytest.approx(expected, rel=1e-12)


def axes(root):
    return [t.text for t in root.iter(SVG + "text") if t.get("class") == "axis"]


def test_the_axes_say_what_the_rows_and_columns_are():
    """A slide's heat map says which axis is the query and which the key: rows are queries
    (the softmax is over each row), columns keys; dK's rows are keys, its columns dimensions."""
    root = figure(str(ROOT / "scenarios" / "cat_sat.yaml"))
    assert axes(root) == ["query", "key"]
    (row_axis,) = [t for t in root.iter(SVG + "text") if t.text == "query"]
    assert "rotate(-90" in row_axis.get("transform")  # up the side of the rows
    learning = str(ROOT / "scenarios" / "learning_to_attend.yaml")
    assert axes(figure(learning, "d_keys")) == ["key", "dimension of d_k"]
    assert axes(figure(learning, "d_inputs")) == ["query", "dimension of d_model"]
    assert axes(figure(learning, "output")) == ["query", "dimension of d_v"]
