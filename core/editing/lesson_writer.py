"""Writing beats into a scenario file's ``lesson:``, keeping its comments and layout.

As saving does for numbers, the new beats are inserted into the author's own text at node
positions: after the last beat of a ``lesson:`` list (or before the ``]`` of one written in
flow style), or as a new ``lesson:`` at the end of the file. The new text is read back and
compared with what it must hold — the same numbers and options as the file on disk, and its
lesson followed by exactly the new beats — before anything is written, atomically.
"""

from __future__ import annotations

import os

from attn_tui.core.editing.save_root import SaveRoot
from attn_tui.core.errors import SaveError, ScenarioError
from attn_tui.core.files.atomic_write import write_atomic
from attn_tui.core.files.yaml_source import Alias, Mapping, Sequence, content_end, deref
from attn_tui.core.files.yaml_text import yaml_number, yaml_quoted
from attn_tui.core.loading.scenario_file import loads
from attn_tui.core.model.lesson import Beat
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.reading.keys import entries

HEADER = "# recorded with ctrl+r: add say: (and ask:, answer:) to each beat"


def beat_fields(beat: Beat, scenario: Scenario) -> list[tuple[str, str]]:
    """A beat as YAML keys and values: rows and columns by token where a token names one alone,
    heads by name, edits' cells by number."""
    fields: list[tuple[str, str]] = []
    for name in ("say", "ask", "answer"):
        if getattr(beat, name):
            fields.append((name, yaml_quoted(getattr(beat, name))))
    if beat.step is not None:
        fields.append(("step", beat.step))
    if beat.row is not None:
        fields.append(("row", _token(scenario.row_tokens, beat.row)))
    if beat.column is not None:
        fields.append(("column", _token(scenario.tokens, beat.column)))
    if beat.head is not None:
        fields.append(("head", yaml_quoted(scenario.head_names[beat.head])))
    if beat.edits:
        edits = [_edit(edit, scenario) for edit in beat.edits]
        fields.append(("edit", edits[0] if len(edits) == 1 else "[" + ", ".join(edits) + "]"))
    if beat.options:
        fields.append(
            (
                "set",
                "{" + ", ".join(f"{name}: {_option(value)}" for name, value in beat.options) + "}",
            )
        )
    if beat.predict:
        fields.append(("predict", "row"))
    return fields


def _token(tokens: tuple[str, ...], index: int) -> str:
    token = tokens[index]
    return yaml_quoted(token) if tokens.count(token) == 1 else str(index + 1)


def _edit(edit, scenario: Scenario) -> str:
    rows = {
        "Q": scenario.row_tokens,
        "X_q": scenario.row_tokens,
        "K": scenario.tokens,
        "V": scenario.tokens,
        "X": scenario.tokens if scenario.cross else scenario.row_tokens,
    }.get(edit.matrix)
    row = _token(rows, edit.row) if rows is not None else str(edit.row + 1)
    head = f"head: {edit.head + 1}, " if edit.head is not None else ""
    return (
        f"{{matrix: {edit.matrix}, {head}row: {row}, col: {edit.col + 1}, "
        f"to: {yaml_number(float(edit.value))}}}"
    )


def _option(value: bool | float) -> str:
    return "true" if value is True else "false" if value is False else yaml_number(float(value))


def with_beats(scenario: Scenario, beats: tuple[Beat, ...], settings: dict | None = None) -> str:
    """The scenario's file text with ``beats`` added to its lesson, checked by reading it back,
    and the keys of the steps they show that the file has not (turned on in the app, d or the
    tiles: their ``settings``, by default the scenario's). ``SaveError`` if the file's layout
    cannot take them."""
    document = scenario.source
    if document is None or scenario.path is None:
        raise SaveError("this scenario has no file text to add a lesson to")
    text = document.text
    root = deref(document.root)
    if not isinstance(root, Mapping) or root.flow:
        raise SaveError(
            "the file is written as one flow mapping ({…}); "
            "write it in block style to record into it"
        )
    top = entries(root, "the scenario")
    keys = _step_keys(scenario, beats, scenario.stage_settings if settings is None else settings)
    if keys:
        text = _with_keys(text, root, top, keys)
        try:
            top = entries(deref(loads(text, scenario.path).source.root), "the scenario")
        except ScenarioError as error:
            raise SaveError(
                f"with the keys of the steps the recorded beats show, the file would not load "
                f"({error.message}); nothing was written"
            ) from None
    if "lesson" not in top:
        lines = ["lesson:", "  " + HEADER] + [
            line for beat in beats for line in _block(beat, scenario, "  ")
        ]
        new = text + ("" if text.endswith("\n") or not text else "\n") + "\n".join(lines) + "\n"
    else:
        node = top["lesson"].value
        if isinstance(node, Alias):
            raise SaveError(
                "the file's lesson: is an alias (*…); write its beats out to record into it"
            )
        node = deref(node)
        if not isinstance(node, Sequence):
            raise SaveError("the file's lesson: is not a list of beats")
        if node.flow:
            insert = node.end - 1  # before the closing ]
            addition = "".join(
                ", {" + ", ".join(f"{k}: {v}" for k, v in beat_fields(beat, scenario)) + "}"
                for beat in beats
            )
        else:
            insert = text.find(
                "\n", content_end(node)
            )  # after the last beat's line, comment and all
            insert = len(text) if insert < 0 else insert
            indent = _dash_indent(text, node)
            addition = "".join(
                "\n" + line
                for line in [indent + HEADER]
                + [line for beat in beats for line in _block(beat, scenario, indent)]
            )
        new = text[:insert] + addition + text[insert:]
    verify(new, scenario, beats)
    return new


def _step_keys(scenario: Scenario, beats: tuple[Beat, ...], settings: dict) -> list[str]:
    """The scenario keys (one line each) of the steps ``beats`` show that the file's own text has
    not: a step turned on in the app while recording."""
    from attn_tui.core.engine.stages import stages_for

    on_file = {stage.name for stage in stages_for(loads(scenario.source.text, scenario.path))}
    shown = dict.fromkeys(
        beat.step for beat in beats if beat.step is not None and beat.step not in on_file
    )
    lines = []
    for name in shown:
        if name in settings:
            line = settings[name].yaml(_no_matrix).rstrip("\n")
            if "\n" in line:
                raise SaveError(
                    f"the recorded beats show the {name} step, whose keys cannot be written here; "
                    "save the file first (ctrl+s), then ctrl+r"
                )
            lines.append(line)
    return lines


def _with_keys(text: str, root: Mapping, top: dict, keys: list[str]) -> str:
    """``text`` with each ``key: value`` line set: in place of the key's value where the file has
    the key (``decode: false``), else before the lesson (or at the end), indented as the file's
    keys are."""
    spans, added = [], []
    for line in keys:
        key, _, value = line.partition(": ")
        if key in top:
            node = top[key].value
            spans.append((node.start, content_end(node), value))
        else:
            added.append(" " * (root.col - 1) + line + "\n")
    if added:
        lesson = top.get("lesson")
        at = lesson.key.start - (lesson.key.col - 1) if lesson is not None else len(text)
        prefix = "\n" if at == len(text) and text and not text.endswith("\n") else ""
        spans.append((at, at, prefix + "".join(added)))
    for start, end, value in sorted(spans, reverse=True):
        text = text[:start] + value + text[end:]
    return text


def _no_matrix(name: str, values) -> str:
    raise SaveError(
        "the recorded beats show a step whose keys hold a matrix; save the file first (ctrl+s), "
        "then ctrl+r"
    )


def _dash_indent(text: str, node: Sequence) -> str:
    """The spaces before the ``-`` of a block list's first item (a list's own column is its
    anchor's, in ``lesson: &beats``)."""
    line = text[text.rfind("\n", 0, node.items[0].start) + 1 :]
    return " " * (len(line) - len(line.lstrip(" ")))


def _block(beat: Beat, scenario: Scenario, indent: str) -> list[str]:
    fields = beat_fields(beat, scenario)
    return [
        f"{indent}{'- ' if i == 0 else '  '}{key}: {value}" for i, (key, value) in enumerate(fields)
    ]


def verify(text: str, scenario: Scenario, beats: tuple[Beat, ...]) -> None:
    """``SaveError`` unless ``text`` reads back as the file on disk with ``beats`` added."""
    before = loads(scenario.source.text, scenario.path)
    try:
        after = loads(text, scenario.path)
    except ScenarioError as error:
        raise SaveError(
            f"with the recorded beats the file would not load ({error.message}); "
            "nothing was written"
        ) from None
    old = before.lesson.beats if before.lesson is not None else ()
    if not after.same_numbers(before) or after.lesson is None or after.lesson.beats != old + beats:
        raise SaveError(
            "the file would not read back with exactly the recorded beats; nothing was written"
        )


def write_lesson(
    scenario: Scenario,
    beats: tuple[Beat, ...],
    target: str | None = None,
    save_root: SaveRoot | None = None,
    settings: dict | None = None,
) -> str:
    """Add ``beats`` to the lesson of the scenario's file and write it to ``target`` (default:
    the file itself), atomically; returns the text written. ``settings``: the steps turned on
    in the app (by default the scenario's own)."""
    text = with_beats(scenario, beats, settings)
    target = target or scenario.path
    if save_root is not None:
        target = save_root.resolve(target)
    try:
        write_atomic(target, text)
    except OSError as error:
        raise SaveError(
            f"cannot write {error.filename or target}: {error.strerror or error}; the recorded "
            "beats are kept, try again or record into a copy"
        ) from None
    finally:
        if save_root is not None and os.path.exists(target):
            save_root.written(target)
    return text


def rendered_lesson(scenario: Scenario) -> str:
    """The scenario's lesson as a ``lesson:`` block, for a file written whole
    (``core.editing.render.render``)."""
    if scenario.lesson is None:
        return ""
    return (
        "\n".join(
            ["lesson:"]
            + [line for beat in scenario.lesson.beats for line in _block(beat, scenario, "  ")]
        )
        + "\n"
    )
