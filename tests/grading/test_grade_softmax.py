"""grade checks the student's own softmax too, when the file defines one, as check --impl does:
in the per-student table, the Markdown and --json. The expected softmax is its formula's
(softmax([1, 2, 3]) = 0.090, 0.245, 0.665); what each file does wrong is what it was written to
do."""

from __future__ import annotations

import json
from pathlib import Path

from attn_tui.tui.cli import main

STUDENTS = Path(__file__).with_name("students")
FILES = [
    str(STUDENTS / name)
    for name in (
        "chapter.py",
        "softmax_columns_unused.py",
        "naive_softmax.py",
        "masked_fill_finite.py",
    )
]


def test_the_json_has_each_softmax(capsys):
    assert main(["grade", *FILES, "--json"]) == 1
    found = {Path(s["file"]).name: s for s in json.loads(capsys.readouterr().out)["submissions"]}
    assert found["chapter.py"]["ok"]
    assert found["chapter.py"]["softmax"] == {
        "ok": True,
        "line": "softmax: ✓ matches, scores of ~1,000 included",
    }
    columns = found["softmax_columns_unused.py"]
    assert columns["passed"] == columns["cases"]  # its attention is right
    assert not columns["ok"] and columns["status"] == "differs"
    assert (
        columns["softmax"]["ok"] is False and "normalises the columns" in columns["softmax"]["line"]
    )
    assert columns["words"] == "softmax over the wrong axis"
    naive = found["naive_softmax.py"]  # its attention overflows too: that case is its first mistake
    assert naive["words"] == "softmax overflows (no max subtracted)"
    assert (
        naive["softmax"]["ok"] is False
        and "overflows on scores of ~1,000" in naive["softmax"]["line"]
    )
    assert found["masked_fill_finite.py"]["softmax"] is None  # it defines none


def test_the_table_and_the_markdown_show_it(capsys):
    main(["grade", *FILES])
    out = capsys.readouterr().out
    block = out.split("✗ softmax_columns_unused.py", 1)[1].split("\n✓", 1)[0]
    assert "softmax: ✗ it normalises the columns" in block
    assert "Class: 2 of 4 pass every case" in out
    main(["grade", *FILES, "--markdown"])
    out = capsys.readouterr().out
    assert "| student | cases passed | first mistake | own softmax |" in out
    row = next(line for line in out.splitlines() if line.startswith("| softmax_columns_unused.py"))
    assert row.endswith("| ✗ it normalises the columns: sum over axis=-1 (each row sums to 1) |")
    row = next(line for line in out.splitlines() if line.startswith("| masked_fill_finite.py"))
    assert row.endswith("| — |")


def test_a_softmax_raising_escapes_is_made_visible(capsys):
    hostile = str(Path(__file__).with_name("hostile") / "softmax_escapes.py")
    assert main(["check", "cat_sat", "--impl", hostile]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "softmax: ✗ softmax_escapes.py:6: ValueError: [/INST] ␛[2J␛]0;pwned␇ <|im_end|>" in out
    main(["grade", hostile, "--json"])
    line = json.loads(capsys.readouterr().out)["submissions"][0]["softmax"]["line"]
    assert "\x1b" not in line and "␛[2J" in line
