"""Reading a scenario's ``lesson:`` from its YAML nodes, with FILE:LINE:COL errors.

Every beat is checked against the scenario it belongs to, once the scenario is built: a stage
by the registry's names for this scenario, a row or column by token or number, a head by name
or number, an edit's matrix, cell and value, and the options a beat sets. Then the state of
every beat that changes numbers is checked for overflow, as the loader checks the file's own
numbers, so a lesson that loads can be played to its end (those two checks, which play the beats
in order, are ``core.lessons.played_in_order``).

Text (``say:``, ``ask:``, ``answer:``) is kept as written; views make it visible and never
read it as markup.
"""

from __future__ import annotations

import difflib

from attn_tui.core.engine.stages import needing_causal, stages_for
from attn_tui.core.errors import ScenarioError
from attn_tui.core.files.yaml_numbers import (
    TAG,
    boolean,
    describe_scalar,
    kind_of,
    located,
    named,
    number,
    scalar_text,
    scale_option,
    some_of,
    whole_number,
)
from attn_tui.core.files.yaml_source import Mapping, Node, Scalar, Sequence, deref
from attn_tui.core.lessons.played_in_order import check_numbers_in_range, check_predictions
from attn_tui.core.model.labels import input_labels, token_labels
from attn_tui.core.model.lesson import (
    MAX_BEATS,
    MAX_EDITS_PER_BEAT,
    MAX_TEXT,
    Beat,
    CellEdit,
    Lesson,
)
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.reading.keys import Entry, check_keys, entries

BEAT_KEYS = ("say", "step", "row", "column", "head", "edit", "set", "predict", "ask", "answer")
EDIT_KEYS = ("matrix", "head", "row", "col", "to")
SET_KEYS = ("causal", "scale")
EXAMPLE = "lesson:\n  - {say: Look at the scores, step: score, row: sat}"


def read_lesson(entry: Entry | None, scenario: Scenario) -> Lesson | None:
    """The lesson of ``scenario`` (None without ``lesson:``); ``ScenarioError`` at the first
    beat that does not fit it."""
    if entry is None:
        return None
    node = deref(entry.value)
    if isinstance(node, Scalar) and node.tag == TAG + "null":
        raise located(entry.key, f"lesson is empty; give a list of beats, like:\n{EXAMPLE}")
    if not isinstance(node, Sequence):
        raise located(node, f"lesson must be a list of beats, not {kind_of(node)}")
    if not node.items:
        raise located(node, "lesson has no beats")
    if len(node.items) > MAX_BEATS:
        raise located(
            node.items[MAX_BEATS],
            f"the lesson has {len(node.items):,} beats; at most {MAX_BEATS:,}",
        )
    reader = _BeatReader(scenario)
    beats = tuple(reader.beat(item, number) for number, item in enumerate(node.items, 1))
    lesson = Lesson(beats)
    check_predictions(lesson, scenario, node.items)
    check_numbers_in_range(lesson, scenario, node.items)
    return lesson


class _BeatReader:
    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.stages = stages_for(scenario)

    def beat(self, node: Node, number: int) -> Beat:
        what = f"lesson beat {number}"
        found = entries(node, what)
        check_keys(found, BEAT_KEYS, what)
        if not found:
            raise located(node, f"{what} is empty: give at least one of {', '.join(BEAT_KEYS)}")
        if "answer" in found and "ask" not in found:
            raise located(
                found["answer"].key, f"{what}: answer goes with ask (the question it answers)"
            )
        scenario = self.scenario
        text = {
            name: scalar_text(found[name].value, f"{what} {name}", MAX_TEXT)
            if name in found
            else ""
            for name in ("say", "ask", "answer")
        }
        step = self.step(found["step"].value, what) if "step" in found else None
        row = (
            self.position(
                found["row"].value,
                scenario.row_tokens,
                f"{what} row",
                "query tokens" if scenario.cross else "tokens",
            )
            if "row" in found
            else None
        )
        column = (
            self.position(
                found["column"].value,
                scenario.tokens,
                f"{what} column",
                "key tokens" if scenario.cross else "tokens",
            )
            if "column" in found
            else None
        )
        head = self.head(found["head"].value, what) if "head" in found else None
        edits = self.edits(found["edit"].value, what) if "edit" in found else ()
        options = self.options(found["set"].value, what) if "set" in found else ()
        predict = self.predict(found["predict"].value, what) if "predict" in found else False
        return Beat(
            text["say"],
            step,
            row,
            column,
            head,
            edits,
            options,
            predict,
            text["ask"],
            text["answer"],
            line=deref(node).line,
        )

    # ---- where to look --------------------------------------------------------------------

    def step(self, node: Node, what: str) -> str:
        name = scalar_text(node, f"{what} step")
        names = [stage.name for stage in self.stages]
        if name in names:
            return name
        by_title = [
            stage.name
            for stage in self.stages  # its title, or its name in expect: and --json
            if name.strip().lower() in (stage.title.lower(), stage.key)
        ]
        close = by_title or difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise located(
            node,
            f"{what}: step {named(name)} is not a stage of this scenario "
            f"(its stages: {', '.join(names)}){hint}",
        )

    def position(self, node: Node, tokens: tuple[str, ...], what: str, kind: str) -> int:
        """A row or column: a 1-based number, a token, or a token's label (``the₂``)."""
        node = deref(node)
        if isinstance(node, Scalar) and node.tag == TAG + "int":
            return whole_number(node, what, 1, len(tokens)) - 1
        name = scalar_text(node, what)
        labels = token_labels(tokens)
        if name in labels:
            return labels.index(name)
        matches = [i for i, token in enumerate(tokens) if token == name]
        if len(matches) > 1:
            rows = ", ".join(str(i + 1) for i in matches)
            raise located(
                node,
                f"{what} {named(name)} is ambiguous: positions {rows} are all {named(name)}; "
                "give the number instead",
            )
        if not matches:
            close = difflib.get_close_matches(name, tokens, n=1) if len(tokens) <= 256 else []
            hint = (
                f"; did you mean {named(close[0])}?" if close else f" ({kind}: {some_of(tokens)})"
            )
            raise located(node, f"{what} {named(name)} is not one of the {kind}{hint}")
        return matches[0]

    def head(self, node: Node, what: str) -> int:
        """A head by its name, or by number: ``head N`` where the heads are named so, else the
        N-th."""
        scenario = self.scenario
        names = scenario.head_names
        node = deref(node)
        if scenario.heads == 1:
            raise located(node, f"{what}: this scenario has one head; head: picks one of several")
        if isinstance(node, Scalar) and node.tag == TAG + "int":
            value = whole_number(node, f"{what} head", 0, 10**6)
            if f"head {value}" in names:
                return names.index(f"head {value}")
            if 1 <= value <= scenario.heads:
                return value - 1
            raise located(node, f"{what}: there is no head {value} (heads: {', '.join(names)})")
        name = scalar_text(node, f"{what} head")
        if name in names:
            return names.index(name)
        raise located(
            node,
            f"{what}: head {named(name)} is not one of this scenario's heads "
            f"({some_of(list(names))})",
        )

    # ---- what to change -------------------------------------------------------------------

    def edits(self, node: Node, what: str) -> tuple[CellEdit, ...]:
        value = deref(node)
        items = value.items if isinstance(value, Sequence) else [node]
        if not items:
            raise located(value, f"{what}: edit is an empty list")
        if len(items) > MAX_EDITS_PER_BEAT:
            raise located(
                items[MAX_EDITS_PER_BEAT],
                f"{what} sets {len(items):,} cells; at most {MAX_EDITS_PER_BEAT} in one beat",
            )
        return tuple(self.edit(item, what) for item in items)

    def edit(self, node: Node, what: str) -> CellEdit:
        scenario = self.scenario
        example = "{matrix: Q, row: sat, col: 1, to: 3.0}"
        if not isinstance(deref(node), Mapping):
            raise located(node, f"{what}: an edit is a mapping like {example}, not {kind_of(node)}")
        found = entries(node, f"{what} edit")
        check_keys(found, EDIT_KEYS, f"{what} edit")
        for required in ("matrix", "row", "col", "to"):
            if required not in found:
                raise located(node, f"{what}: an edit needs {required} ({example})")
        matrix = scalar_text(found["matrix"].value, f"{what} edit matrix")
        if matrix not in scenario.editable:
            close = difflib.get_close_matches(matrix, scenario.editable, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise located(
                found["matrix"].value,
                f"{what}: {named(matrix)} is not a matrix one can edit "
                f"here ({', '.join(scenario.editable)}){hint}",
            )
        values = scenario.inputs[matrix]
        head = None
        if values.ndim == 3:
            if "head" not in found:
                raise located(
                    node,
                    f"{what}: {matrix} holds one matrix per head ({values.shape[0]}); "
                    f"say which with head: 1 … {values.shape[0]}",
                )
            head = whole_number(found["head"].value, f"{what} edit head", 1, values.shape[0]) - 1
        elif "head" in found:
            raise located(
                found["head"].key,
                f"{what}: {matrix} is one matrix for every head; an edit of it takes no head",
            )
        rows, columns = input_labels(scenario, matrix)
        token_rows = {
            "Q": scenario.row_tokens,
            "X_q": scenario.row_tokens,
            "K": scenario.tokens,
            "V": scenario.tokens,
            "X": scenario.row_tokens if not scenario.cross else scenario.tokens,
        }
        row = self.label(
            found["row"].value, rows, token_rows.get(matrix), f"{what} edit row", f"{matrix}'s rows"
        )
        col = self.label(
            found["col"].value, columns, None, f"{what} edit col", f"{matrix}'s columns"
        )
        value = number(found["to"].value, f"{what} edit to")
        return CellEdit(matrix, row, col, value, head)

    def label(
        self,
        node: Node,
        labels: tuple[str, ...],
        tokens: tuple[str, ...] | None,
        what: str,
        kind: str,
    ) -> int:
        """An edit's row or column: a 1-based number, one of the labels, or a token."""
        node = deref(node)
        if isinstance(node, Scalar) and node.tag == TAG + "int":
            return whole_number(node, what, 1, len(labels)) - 1
        if tokens is not None:
            return self.position(node, tokens, what, "tokens")
        name = scalar_text(node, what)
        if name in labels:
            return labels.index(name)
        raise located(
            node,
            f"{what} {named(name)} is not one of {kind} ({some_of(list(labels))}, "
            f"or a number from 1 to {len(labels)})",
        )

    def options(self, node: Node, what: str) -> tuple[tuple[str, bool | float], ...]:
        scenario = self.scenario
        found = entries(node, f"{what} set")
        check_keys(found, SET_KEYS, f"{what} set")
        if not found:
            raise located(
                node, f"{what}: set is empty; give causal: or scale:, like {{causal: false}}"
            )
        chosen: list[tuple[str, bool | float]] = []
        if "causal" in found:
            causal = boolean(found["causal"].value, f"{what} set causal")
            if scenario.window is not None:
                raise located(
                    found["causal"].key,
                    f"{what}: the sliding window already hides the future "
                    "(each query sees only the most recent positions), "
                    "causal or not; set: causal changes nothing here",
                )
            if causal and scenario.cross:
                raise located(
                    found["causal"].value,
                    f"{what}: no causal mask in cross-attention: queries "
                    "and keys are different sequences",
                )
            needing = None if causal else needing_causal(scenario)
            if needing is not None:
                does, _, why = needing.turned_on.needs_causal
                raise located(
                    found["causal"].value,
                    f"{what}: the scenario {does}, which needs the causal mask: {why}",
                )
            chosen.append(("causal", causal))
        if "scale" in found:
            value = deref(found["scale"].value)
            if isinstance(value, Scalar) and value.plain and value.value == "none":
                chosen.append(("scale", False))
            else:
                try:
                    chosen.append(("scale", scale_option(value)))
                except ScenarioError as error:
                    raise located(
                        value, f"{what} set: {error.message} (none means no scaling too)"
                    ) from None
        return tuple(chosen)

    def predict(self, node: Node, what: str) -> bool:
        value = deref(node)
        if isinstance(value, Scalar) and value.tag == TAG + "bool":
            return boolean(value, f"{what} predict")
        if isinstance(value, Scalar) and value.value == "row":
            return True
        shown = describe_scalar(value) if isinstance(value, Scalar) else kind_of(value)
        raise located(
            value, f"{what}: predict takes row (the student guesses the row shown), not {shown}"
        )


def with_lesson(scenario: Scenario, entry: Entry | None) -> Scenario:
    """``scenario`` with its lesson read (unchanged without ``lesson:``); the error names its
    file."""
    if entry is None:
        return scenario
    import dataclasses

    try:
        return dataclasses.replace(scenario, lesson=read_lesson(entry, scenario))
    except ScenarioError as error:
        raise error.located(scenario.path or "<scenario>") from None
