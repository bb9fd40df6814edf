"""``attn-tui responses``: a class's log summed up against logs written here by hand. The
numbers are the chapter's: "sat" gives [0.248, 0.248, 0.503] (scaled), and forgetting to
divide by √d_k gives softmax([1, 1, 2]) = [e, e, e²]/(2e + e²) = [0.212, 0.212, 0.576]."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from attn_tui.core import load
from attn_tui.core.classroom.beats import predict_beats
from attn_tui.core.classroom.log import ResponseLog, read_line
from attn_tui.core.classroom.wire import Answer
from tests.conftest import ROOT, SCENARIOS

LESSON = str(SCENARIOS / "cat_sat_lesson.yaml")


def line(
    student, guess, beat=4, stage="weights", row=2, time="2026-12-06T20:00:00.000+00:00"
) -> str:
    return json.dumps(
        {"time": time, "student": student, "beat": beat, "stage": stage, "row": row, "guess": guess}
    )


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "attn_tui", "responses", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


HAND_MADE = [
    line("a", [0.25, 0.25, 0.5]),  # right (within 0.05)
    line("b", [0.248, 0.248, 0.503]),  # right
    line("c", [0.212, 0.212, 0.576]),  # unscaled
    line("d", [0.21, 0.21, 0.58]),  # unscaled, rounded
    line("e", [0.9, 0.05, 0.05]),  # other
    line("f", [0.212, 0.212, 0.576]),  # unscaled at first…
    line("f", [0.25, 0.25, 0.5]),  # …then right: the latest counts
    "this is not JSON",
    line("g", [0.25, 0.25, 0.5], beat=3),  # a beat that does not predict
    line("g", [0.25, 0.25]),  # the wrong length
    '{"time": "t", "student": "h", "beat": 4, "stage": "weights", "row": 2, '
    '"guess": [NaN, 0.2, 0.3]}',
    line("i", [0.25, 0.25, 0.5], stage="scores"),
    line("j", [0.25, 0.25, 0.5], row=1),
    line("k", [0.25, 0.25, 0.5]) + " " * 5000,  # too long
    line("l", [None, None, None]),
    line("m", ["0.25", 0.25, 0.5]),
    "[1, 2, 3]",
    "\x1b[2J",
    '{"time": "t"}',
]


def test_the_summary_counts_a_hand_made_log(tmp_path):
    log = tmp_path / "class.jsonl"
    log.write_text(
        "\n".join(HAND_MADE) + "\n" + line("n", [0.25, 0.25, 0.5])[:40], encoding="utf-8"
    )  # cut off
    done = run(LESSON, str(log), "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    (beat,) = found["beats"]
    assert (beat["beat"], beat["stage"], beat["row"], beat["answered"], beat["right"]) == (
        4,
        "weights",
        2,
        6,
        3,
    )
    assert [(m["mistake"], m["count"]) for m in beat["mistakes"]] == [("unscaled", 2), ("other", 1)]
    assert "√d_k" in beat["mistakes"][0]["words"]
    # medians of a, b, c, d, e and f's latest, by hand: "the" sorted 0.21 0.212 0.248 0.25 0.25
    # 0.9 → (0.248 + 0.25)/2; "cat" 0.05 0.21 0.212 0.248 0.25 0.25 → (0.212 + 0.248)/2; "sat"
    # 0.05 0.5 0.5 0.503 …
    assert beat["median"] == pytest.approx([0.249, 0.230, 0.5015])
    assert beat["correct"] == pytest.approx([0.248, 0.248, 0.503], abs=5e-4)
    assert found["skipped"] == 13


def test_text_and_markdown_and_what_is_not_a_log(tmp_path):
    log = tmp_path / "class.jsonl"
    log.write_text("\n".join(HAND_MADE[:7]) + "\n", encoding="utf-8")
    text = run(LESSON, str(log))
    assert (
        text.returncode == 0
        and "6 answered, 3 right" in text.stdout
        and "2 forgot to divide" in text.stdout
        and "skipped: 0" in text.stdout
    )
    markdown = run(LESSON, str(log), "--markdown")
    assert (
        markdown.returncode == 0
        and "## Beat 4" in markdown.stdout
        and "| sat | " in markdown.stdout
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    none = json.loads(run(LESSON, str(empty), "--json").stdout)
    assert (
        none["skipped"] == 0
        and none["beats"][0]["answered"] == 0
        and none["beats"][0]["median"] == [None] * 3
    )
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused = run(LESSON, str(fifo))  # a FIFO would never end: refused, not waited on
    assert refused.returncode == 2 and "not a regular file" in refused.stderr
    missing = run(LESSON, str(tmp_path / "nothing.jsonl"))
    assert missing.returncode == 2 and "nothing.jsonl" in missing.stderr
    no_lesson = run(str(SCENARIOS / "cat_sat.yaml"), str(log))
    assert no_lesson.returncode == 2 and "has no lesson" in no_lesson.stderr
    assert run(LESSON, str(log), "--json", "--markdown").returncode == 2


def test_the_log_is_written_a_whole_line_at_a_time_and_reads_back(tmp_path):
    scenario = load(LESSON)
    beats = predict_beats(scenario)
    path = tmp_path / "class.jsonl"
    log = ResponseLog(str(path))
    log.write("3f9a0c1e", beats[4], Answer(4, 2, (0.25, None, 0.5)))
    # written through at once: another reader sees the whole line before the log is closed
    written = path.read_bytes()
    assert written.endswith(b"\n") and written.count(b"\n") == 1
    found = read_line(written, beats)
    assert found.student == "3f9a0c1e" and found.answer == Answer(4, 2, (0.25, None, 0.5))
    assert (
        json.loads(written)["time"].endswith("+00:00") and json.loads(written)["stage"] == "weights"
    )
    log.close()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(OSError):
        ResponseLog(str(link))  # never through a link


def test_hostile_lines_in_a_log_are_each_skipped_and_counted(tmp_path):
    # (#44's attacks) every line below is refused, each for a reason worked out by hand; two
    # good answers between them still count; a 10 MB line is skipped without being held whole
    good = line("p", [0.25, 0.25, 0.5])
    hostile = [
        line("h", [1e400, 0.2, 0.3]).replace("Infinity", "1e400"),  # json reads 1e400 as inf
        '{"time": "t", "student": "h", "beat": 4, "stage": "weights", "row": 2, '
        '"guess": [NaN, 0.2, 0.3]}',
        '{"time": "t", "student": "h", "beat": 4, "stage": "weights", "row": 2, "guess": ['
        + "0.1, " * 2_000_000
        + "0.1]}",  # 10 MB
        "x" * 10_000_000,  # 10 MB, not even JSON
        line("h", [0.25, 0.25, 0.5], beat=9),
        line("h", [0.25, 0.25, 0.5], beat=-1),
        line("h", [0.25, 0.25, 0.5], beat=True),
        "[" * 100_000,
        "[" * 4000,  # too long; nested past Python's recursion
        line("h", [0.25, 0.25, 0.5, 0.1]),
        line("a" * 65, [0.25, 0.25, 0.5]),
    ]
    log = tmp_path / "class.jsonl"
    with log.open("wb") as out:
        out.write((good + "\n").encode())
        for text in hostile:
            out.write(text.encode() + b"\n")
        out.write(b"\xff\xfe garbage\n")  # not UTF-8
        out.write(
            (line("\x1b[2J[/INST]", [0.212, 0.212, 0.576]) + "\n").encode()
        )  # a valid answer, an odd id
    done = run(LESSON, str(log), "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    (beat,) = found["beats"]
    assert (beat["answered"], beat["right"]) == (2, 1)
    assert found["skipped"] == len(hostile) + 1
    assert found["skipped_why"] == {
        "a guess that is not a number": 2,
        "too long": 3,
        "not JSON": 2,
        "beat 9 asks for no prediction": 1,
        "beat -1 asks for no prediction": 1,
        "no beat, stage or row": 1,
        "beat 4's row has 3 columns, not 4": 1,
        "no time or student": 1,
    }
    text = run(LESSON, str(log))
    assert (
        text.returncode == 0 and "\x1b" not in text.stdout
    )  # nothing from the log reaches the terminal raw


def test_every_text_a_person_reads_counts_rows_from_1_and_names_the_token(tmp_path):
    log = tmp_path / "class.jsonl"
    log.write_text("\n".join(HAND_MADE[:7] + [line("j", [0.25, 0.25, 0.5], row=1)]) + "\n")
    text = run(LESSON, str(log)).stdout
    # the lesson predicts "sat", the third token: the log's row 2 counted from 0
    assert text.startswith('beat 4 (weights, row 3, "sat"): 6 answered, 3 right\n'), text
    assert 'skipped: 1 (1 beat 4 asks for row 3 ("sat"), not row 2)' in text, text
    markdown = run(LESSON, str(log), "--markdown").stdout
    assert '## Beat 4: weights of "sat"' in markdown
    assert json.loads(run(LESSON, str(log), "--json").stdout)["beats"][0]["row"] == 2  # as logged


def named_line(student, name, guess, beat=4) -> str:
    found = json.loads(line(student, guess, beat=beat))
    return json.dumps({**found, "name": name})


def test_names_in_the_log_credit_who_answered(tmp_path):
    log = tmp_path / "class.jsonl"
    log.write_text(
        "\n".join(
            [
                named_line("a", "Ada", [0.25, 0.25, 0.5]),
                named_line("b", None, [0.25, 0.25, 0.5]),  # stayed anonymous
                named_line("c", "Grace", [0.212, 0.212, 0.576]),
                named_line("d", "\x1b[31mEve", [0.25, 0.25, 0.5]),  # not a first name
                line("e", [0.25, 0.25, 0.5]),  # a log written without --record-names
            ]
        )
        + "\n"
    )
    found = json.loads(run(LESSON, str(log), "--json").stdout)
    assert found["beats"][0]["answered"] == 4 and found["skipped"] == 1
    assert found["named"] == [
        {"name": "Ada", "student": "a", "beats": [4]},
        {"name": "Grace", "student": "c", "beats": [4]},
    ]
    assert "answered, by name: Ada (beat 4); Grace (beat 4)\n" in run(LESSON, str(log)).stdout
    assert "- Ada: beat 4" in run(LESSON, str(log), "--markdown").stdout
