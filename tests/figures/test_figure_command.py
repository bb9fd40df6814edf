"""``attn-tui figure`` (issue 45): the command a teacher types, its files and its refusals; and a
Chromium render of the SVG that has pixels (skipped without chromium)."""

import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

import pytest

from attn_tui.tui.cli import main
from tests.conftest import NEEDS_FIGURES

SVG = "{http://www.w3.org/2000/svg}"


def test_a_stage_to_a_file(tmp_path, capsys):
    out = tmp_path / "weights.svg"
    assert main(["figure", "cat_sat", "--stage", "weights", "-o", str(out)]) == 0
    assert str(out) in capsys.readouterr().err
    root = ET.fromstring(out.read_bytes())
    assert "0.503" in [t.text for t in root.iter(SVG + "text")]


def test_a_row_as_a_bar_chart(capsys):
    assert main(["figure", "cat_sat", "--row", "sat"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    bars = [float(r.get("data-value")) for r in root.iter(SVG + "rect") if r.get("class") == "bar"]
    # seeds/ch24: "sat" pays 25% to "the", 25% to "cat", 50% to itself
    assert [round(v, 3) for v in bars] == [0.248, 0.248, 0.503]
    heights = [float(r.get("height")) for r in root.iter(SVG + "rect") if r.get("class") == "bar"]
    assert heights[2] == max(heights)


def test_a_masked_key_in_a_row_is_hatched_not_a_bar(capsys):
    assert main(["figure", "cat_sat", "--row", "1"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    assert sum(r.get("class") == "masked" for r in root.iter(SVG + "rect")) == 2
    assert sum(r.get("class") == "bar" for r in root.iter(SVG + "rect")) == 1


def test_a_backward_stage(capsys):
    assert main(["figure", "learning_to_attend", "--stage", "d_scores"]) == 0
    assert "dS" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, said",
    [
        (["figure", "cat_sat", "--stage", "nonsense"], "its stages are scores"),
        (["figure", "cat_sat", "--head", "2"], "no head 2"),
        (["figure", "cat_sat", "--row", "9"], "row"),
        (["figure", "cat_sat", "--variant", "nope"], "no variant"),
        (["figure", "no_such.yaml"], "no_such.yaml"),
    ],
)
def test_refusals_say_what_is_wrong(argv, said, capsys):
    assert main(argv) == 2
    assert said in capsys.readouterr().err


def test_a_head_is_named_as_the_scenario_names_it_everywhere(tmp_path, capsys):
    """Issue 47 (attacked): --head counted from 1 while a captured layer names its heads head 0,
    head 1 (as heads and the model view show them), and titles read "head head 2"."""
    captured = tmp_path / "layer.yaml"
    captured.write_text(
        "tokens: [a, b]\nheads: 2\nhead_names: [head 0, head 1]\n"
        "Q: [[[1, 0], [0, 1]], [[2, 0], [0, 2]]]\nK: [[[1, 0], [0, 1]], [[1, 0], [0, 1]]]\n"
        "V: [[[1, 0], [0, 1]], [[1, 0], [0, 1]]]\n",
        encoding="utf-8",
    )
    for given, title in (("0", "head 0"), ("head 1", "head 1")):
        assert main(["figure", str(captured), "--head", given]) == 0
        root = ET.fromstring(capsys.readouterr().out.encode())
        assert root.find(SVG + "title").text.endswith(f", {title}")
    assert main(["figure", str(captured), "--head", "2"]) == 2
    assert "there is no head 2: its heads are head 0, head 1" in capsys.readouterr().err
    assert main(["figure", "two_heads", "--head", "2"]) == 0  # a written scenario's: head 1, head 2
    title = ET.fromstring(capsys.readouterr().out.encode()).find(SVG + "title").text
    assert title.endswith(", head 2") and "head head" not in title


def test_png_without_the_extra_names_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # (an import of it fails, installed or not)
    out = tmp_path / "w.png"
    assert main(["figure", "cat_sat", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "[figures]" in err and "pip install" in err and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.figures
def test_png_and_pdf_with_the_extra(tmp_path):
    pytest.importorskip("cairosvg", reason=NEEDS_FIGURES)
    for form, magic in (("png", b"\x89PNG\r\n\x1a\n"), ("pdf", b"%PDF-")):
        out = tmp_path / f"w.{form}"
        assert main(["figure", "cat_sat", "-o", str(out)]) == 0
        data = out.read_bytes()
        assert data.startswith(magic) and 1_000 < len(data) < 2_000_000
        if form == "png":  # the SVG's size, and drawn: more than a blank page's few values
            svg = ET.fromstring(
                subprocess.run(
                    [sys.executable, "-m", "attn_tui", "figure", "cat_sat"],
                    capture_output=True,
                    check=True,
                ).stdout
            )
            width, height = struct.unpack(">II", data[16:24])
            assert (width, height) == (
                round(float(svg.get("width"))),
                round(float(svg.get("height"))),
            )
            assert len(_pixels(data)) > 20


def _pixels(png: bytes) -> set[int]:
    """The distinct byte values of a PNG's decompressed scanlines (filter bytes and all)."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    at, data = 8, b""
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at : at + 8])
        if kind == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    return set(zlib.decompress(data))


@pytest.mark.browser
@pytest.mark.skipif(shutil.which("chromium") is None, reason="no chromium on this machine")
def test_chromium_draws_the_svg(tmp_path):
    figure = tmp_path / "weights.svg"
    assert main(["figure", "cat_sat", "-o", str(figure)]) == 0
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--window-size=600,400",
            f"--screenshot={shot}",
            figure.as_uri(),
        ],
        capture_output=True,
        timeout=90,
        check=False,
    )
    assert shot.exists()
    assert len(_pixels(shot.read_bytes())) > 20  # not blank: the map's colours and its text


def test_an_output_that_cannot_be_written_leaves_nothing_behind(tmp_path, capsys):
    target = tmp_path / "folder"
    target.mkdir()
    assert main(["figure", "cat_sat", "-o", str(target)]) == 2
    assert f"{target} is a folder; give a file name" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]


def test_a_score_that_overflows_is_refused_where_it_is_written(tmp_path, capsys):
    scenario = tmp_path / "big.yaml"
    scenario.write_text("tokens: [a, b]\nQ: [[10], [1]]\nK: [[1], [1e308]]\nV: [[1], [2]]\n")
    assert main(["figure", str(scenario), "--stage", "scores"]) == 2
    assert f"{scenario}:2:1: the score (a, b) overflows float64" in capsys.readouterr().err


def test_an_input_matrix_as_a_figure(capsys):
    """``--stage Q`` (any input: Q, K, V, X, Wq, …): the matrix as written, signed colours."""
    assert main(["figure", "cat_sat", "--stage", "Q"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    values = [
        float(r.get("data-value")) for r in root.iter(SVG + "rect") if r.get("class") == "cell"
    ]
    assert values == [1.0, 0.0, 0.0, 1.0, 1.0, 1.0]  # scenarios/cat_sat.yaml's Q, row by row
    assert main(["figure", "projections", "--stage", "Wq"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    texts = [t.text for t in root.iter(SVG + "text")]
    assert texts[0] == "Wq" and any("query weights" in text for text in texts)
    assert main(["figure", "cat_sat", "--stage", "nope"]) == 2
    assert "its inputs Q, K, V" in capsys.readouterr().err


def test_a_fifo_or_an_unknown_suffix_as_output_is_refused(tmp_path, capsys):
    """Found by an attack: -o at a FIFO replaced the pipe with a file; -o x.gif wrote SVG."""
    import os

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert main(["figure", "cat_sat", "-o", str(pipe)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert pipe.is_fifo()
    assert main(["figure", "cat_sat", "-o", str(tmp_path / "x.gif")]) == 2
    assert "a figure is .svg, .png or .pdf" in capsys.readouterr().err
    assert not (tmp_path / "x.gif").exists()
    assert (
        main(["figure", "cat_sat", "-o", str(tmp_path / "x.gif"), "--format", "svg"]) == 0
    )  # said so


def test_an_existing_file_or_link_is_replaced_only_with_force(tmp_path, capsys):
    """Found by a teacher: -o overwrote last week's figure and replaced a link, without a word."""
    import os

    old = tmp_path / "weights.svg"
    old.write_text("last week's figure")
    assert main(["figure", "cat_sat", "-o", str(old)]) == 2
    assert capsys.readouterr().err == (
        f"attn-tui figure: {old} already exists; add --force to replace it\n"
    )
    assert old.read_text() == "last week's figure"
    elsewhere = tmp_path / "notes.txt"
    elsewhere.write_text("a lecturer's notes")
    link = tmp_path / "link.svg"
    link.symlink_to(elsewhere)
    assert main(["figure", "cat_sat", "-o", str(link)]) == 2
    assert f"{link} is a symbolic link (to {elsewhere}); add --force" in capsys.readouterr().err
    assert link.is_symlink() and elsewhere.read_text() == "a lecturer's notes"
    dangling = tmp_path / "dangling.svg"
    dangling.symlink_to(tmp_path / "nothing")
    assert main(["figure", "cat_sat", "-o", str(dangling)]) == 2
    assert dangling.is_symlink() and not (tmp_path / "nothing").exists()
    capsys.readouterr()
    assert main(["figure", "cat_sat", "-o", str(old), "--force"]) == 0
    assert old.read_text().startswith("<?xml")
    assert main(["figure", "cat_sat", "-o", str(link), "--force"]) == 0  # the link itself goes
    assert not link.is_symlink() and link.read_text().startswith("<?xml")
    assert elsewhere.read_text() == "a lecturer's notes"
    assert sorted(os.listdir(tmp_path)) == ["dangling.svg", "link.svg", "notes.txt", "weights.svg"]


def png_size(path) -> tuple[int, int]:
    """A PNG's width and height, from its IHDR chunk (bytes 16 to 24)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.figures
def test_scale_and_width_size_a_png_or_a_pdf(tmp_path, capsys):
    pytest.importorskip("cairosvg", reason=NEEDS_FIGURES)
    assert main(["figure", "cat_sat", "-o", str(tmp_path / "one.png")]) == 0
    svg = ET.fromstring(main_svg(capsys, ["figure", "cat_sat"]))
    width, height = float(svg.get("width")), float(svg.get("height"))
    assert png_size(tmp_path / "one.png") == (round(width), round(height))
    assert main(["figure", "cat_sat", "-o", str(tmp_path / "three.png"), "--scale", "3"]) == 0
    assert png_size(tmp_path / "three.png") == (round(3 * width), round(3 * height))
    assert main(["figure", "cat_sat", "-o", str(tmp_path / "slide.png"), "--width", "1920"]) == 0
    assert png_size(tmp_path / "slide.png") == (1920, round(1920 / width * height))
    assert main(["figure", "cat_sat", "-o", str(tmp_path / "big.pdf"), "--scale", "2"]) == 0
    box = re.search(
        rb"MediaBox \[ ?0 0 ([0-9.]+) ([0-9.]+) ?\]", (tmp_path / "big.pdf").read_bytes()
    )
    # a PDF's unit is the point, 3/4 of a CSS pixel
    assert float(box[1]) == pytest.approx(2 * width * 0.75, abs=0.5)
    capsys.readouterr()
    for args, said in [
        (["--scale", "2"], "--scale goes with PNG or PDF (-o FILE.png)"),
        (["-o", str(tmp_path / "x.png"), "--scale", "0"], "a scale is from 0.1 to 20"),
        (["-o", str(tmp_path / "x.png"), "--width", "99999"], "a width is from 16 to 10,000"),
        (["-o", str(tmp_path / "x.png"), "--scale", "20"], "at most 10,000 a side"),
    ]:
        assert main(["figure", "cat_sat", *args]) == 2
        assert said in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def main_svg(capsys, args) -> bytes:
    assert main(args) == 0
    return capsys.readouterr().out.encode()


def test_the_bar_chart_has_a_value_axis_readable_labels_and_fills_its_canvas(capsys):
    assert main(["figure", "cat_sat", "--row", "sat"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    shown = [t for t in root.iter(SVG + "text")]
    # ticks at round numbers from 0 to 1, a share of attention
    ticks = [t.text for t in shown if t.get("text-anchor") == "end" and t.get("font-family")]
    assert ticks[:6] == ["0", "0.2", "0.4", "0.6", "0.8", "1"], ticks
    assert [t.text for t in shown if t.get("class") == "axis"] == ["weights", "key"]
    labels = [t for t in shown if t.text in ("the", "cat", "sat") and t.get("font-size") == "13"]
    assert len(labels) == 3 and not any(t.get("transform") for t in labels)  # upright, 13 units
    width = float(root.get("width"))
    bars = [r for r in root.iter(SVG + "rect") if r.get("class") == "bar"]
    right = max(float(r.get("x")) + float(r.get("width")) for r in bars)
    left = min(float(r.get("x")) for r in bars)
    assert (right - left) / width > 0.65  # the bars use the canvas (0.26 was a corner of it)
    assert min(float(r.get("width")) for r in bars) >= 60
