"""``attn-tui responses LESSON FILE.jsonl``: the class's answers after class, per predict beat:
how many answered, how many were right, the mistakes with their counts and each column's
median guess (a student's latest answer at a beat counts). Lines that are not valid answers
are skipped and counted, never fatal."""

from __future__ import annotations

from typing import BinaryIO

from attn_tui.core.classroom.beats import predict_beats
from attn_tui.core.classroom.log import MAX_LOG_LINE, read_line
from attn_tui.core.classroom.tally import BeatTally, Counts
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.numbers import fixed
from attn_tui.core.text import visible


def summarise(scenario: Scenario, stream: BinaryIO) -> dict:
    """The summary as JSON-ready data, from a log read line by line (a line longer than
    ``MAX_LOG_LINE`` is skipped without being held whole). Its ``row`` is the query row counted
    from 0, as in the log; ``named``, each student whose lines carry a first name
    (--record-names) and the beats they answered."""
    beats = predict_beats(scenario)
    tallies = {number: BeatTally(beat) for number, beat in beats.items()}
    skipped = 0
    reasons: dict[str, int] = {}
    names: dict[str, str] = {}  # student id → the first name its lines carry (--record-names)
    answered: dict[str, set[int]] = {}  # a named student id → the beats it answered
    while True:
        line = stream.readline(MAX_LOG_LINE + 1)
        if not line:
            break
        if len(line) > MAX_LOG_LINE:
            while line and not line.endswith(b"\n"):  # the rest of an overlong line
                line = stream.readline(1 << 16)
            why = "too long"
        elif not line.strip():
            continue
        else:
            found = read_line(line, beats)
            if not isinstance(found, str):
                tallies[found.answer.beat].add(found.student, found.answer.guess)
                if found.name is not None:
                    names[found.student] = found.name
                    answered.setdefault(found.student, set()).add(found.answer.beat)
                continue
            why = found
        skipped += 1
        reasons[why] = reasons.get(why, 0) + 1
    return {
        "beats": [_beat(tallies[number].counts(), beats[number]) for number in sorted(tallies)],
        "skipped": skipped,
        "skipped_why": dict(sorted(reasons.items(), key=lambda item: -item[1])),
        "named": [
            {"name": names[student], "student": student, "beats": sorted(answered[student])}
            for student in sorted(names, key=lambda student: (names[student], student))
        ],
    }


def _beat(counts: Counts, beat) -> dict:
    return {
        "beat": counts.beat,
        "stage": beat.key,
        "row": beat.row,
        "answered": counts.answered,
        "right": counts.right,
        "mistakes": [
            {"mistake": key, "words": words, "count": count}
            for key, words, count in counts.mistakes
        ],
        "median": [spread.median for spread in counts.spreads],
        "correct": [spread.correct for spread in counts.spreads],
    }


def as_markdown(summary: dict, scenario: Scenario, label: str) -> str:
    """The summary for the course notes."""
    from attn_tui.core.engine.stages import column_labels, stage_keyed
    from attn_tui.core.model.labels import token_labels

    p = scenario.precision
    lines = [f"# The class's answers: {_md(label)}", ""]
    if not summary["beats"]:
        lines += ["The lesson has no predict beat.", ""]
    for beat in summary["beats"]:
        stage = stage_keyed(beat["stage"])
        token = token_labels(scenario.row_tokens)[beat["row"]]
        lines += [
            f'## Beat {beat["beat"]}: {stage.numbers} of "{_md(token)}"',
            "",
            f"{beat['answered']} answered, {beat['right']} right.",
            "",
        ]
        wrong = [item for item in beat["mistakes"]]
        if wrong:
            lines += [f"- {item['count']} {_md(item['words'])}" for item in wrong] + [""]
        columns = column_labels(scenario, stage)
        lines += ["| column | median guess | correct |", "| --- | --- | --- |"]
        for name, median, correct in zip(columns, beat["median"], beat["correct"]):
            lines.append(
                f"| {_md(name)} | {'—' if median is None else fixed(median, p)} "
                f"| {fixed(correct, p)} |"
            )
        lines.append("")
    if summary["named"]:
        lines += ["## Who answered, by name", ""]
        lines += [f"- {_md(item['name'])}: {_beats(item['beats'])}" for item in summary["named"]]
        lines.append("")
    if summary["skipped"]:
        why = "; ".join(f"{count} {reason}" for reason, count in summary["skipped_why"].items())
        lines += [
            f"{summary['skipped']} line{'' if summary['skipped'] == 1 else 's'} skipped ({why}).",
            "",
        ]
    return "\n".join(lines)


def query_row(scenario: Scenario, row: int) -> str:
    """A query row as a person reads it: counted from 1, and its token ("row 3, \"sat\"")."""
    from attn_tui.core.model.labels import token_labels

    return f'row {row + 1}, "{visible(token_labels(scenario.row_tokens)[row])}"'


def _beats(beats: list[int]) -> str:
    return f"beat{'s' if len(beats) > 1 else ''} " + ", ".join(str(beat) for beat in beats)


def as_text(summary: dict, scenario: Scenario) -> str:
    """The summary for a terminal: a beat's query row counted from 1 and named by its token."""
    lines = []
    for beat in summary["beats"]:
        lines.append(
            f"beat {beat['beat']} ({beat['stage']}, {query_row(scenario, beat['row'])}): "
            f"{beat['answered']} answered, {beat['right']} right"
        )
        lines += [f"  {item['count']} {visible(item['words'])}" for item in beat["mistakes"]]
        medians = ", ".join("—" if value is None else f"{value:.3f}" for value in beat["median"])
        lines.append(f"  median guess: [{medians}]")
    if not summary["beats"]:
        lines.append("the lesson has no predict beat")
    if summary["named"]:
        lines.append(
            "answered, by name: "
            + "; ".join(
                f"{visible(item['name'])} ({_beats(item['beats'])})" for item in summary["named"]
            )
        )
    lines.append(
        f"skipped: {summary['skipped']}"
        + (
            f" ({'; '.join(f'{n} {why}' for why, n in summary['skipped_why'].items())})"
            if summary["skipped"]
            else ""
        )
    )
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return (
        visible(text)
        .replace("|", "\\|")
        .replace("*", "\\*")
        .replace("_", "\\_")
        .replace("`", "\\`")
    )
