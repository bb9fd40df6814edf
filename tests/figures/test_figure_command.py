"""``attn-tui figure`` (issue 45): the command a teacher types, its files and its refusals; and a
Chromium render of the SVG that has pixels (skipped without chromium)."""

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
    assert "cannot write" in capsys.readouterr().err
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
