"""``--markdown --lesson``: a scenario's lesson as a handout, for a student going through it alone.

The inputs as the lesson starts, then each beat: the stage and row it shows, what it changes,
the teacher's words, a row to predict (blanks) and a question with room for the answer. With
``answers``, the same handout filled in: each predicted row's values at that beat (computed
from the beat's own numbers and options) and each answer. The student's copy prints no number
the lesson asks for. Text from the file goes through the Markdown pieces of
``core.outputs.markdown_syntax``: made visible, escaped, never read as Markdown.
"""

from __future__ import annotations

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.stages import column_labels, stage_named, step_number
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.lessons.lesson import start_position
from attn_tui.core.model.labels import input_labels, token_labels
from attn_tui.core.model.lesson import Beat
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.numbers import fixed
from attn_tui.core.outputs.markdown import input_tables
from attn_tui.core.outputs.markdown_syntax import BLANK, escape, grid, heading, paragraphs, quoted
from attn_tui.core.outputs.report import summary_line
from attn_tui.core.text import visible

ANSWER_LINES = 3  # lines left to write an answer on


HANDOUT_NUMBERS = 4096  # an input matrix of more numbers is named, not printed: pages, not a dump
HANDOUT_COLUMNS = 32  # a row to predict shows this many columns at most (the beat's among them)
HANDOUT_TOKENS = 256  # the tokens line names this many at most


def shown_columns(count: int, column: int, most: int = HANDOUT_COLUMNS) -> range:
    """The columns of a predicted row a handout prints: all of ``count``, or ``most`` of them
    around the beat's ``column`` (a page holds a table of 32 columns, not 16,384)."""
    if count <= most:
        return range(count)
    first = max(0, min(column - most // 2, count - most))
    return range(first, first + most)


def lesson_markdown(scenario: Scenario, answers: bool = False) -> str:
    """The handout of ``scenario``'s lesson (``ValueError`` if it has none); ``answers`` fills it
    in."""
    lesson = scenario.lesson
    if lesson is None:
        raise ValueError("the scenario has no lesson: (see docs/classroom.md: lessons)")
    title = visible(scenario.title).strip() or "Untitled scenario"
    blocks = [heading(1, title + (" — lesson, with answers" if answers else " — lesson"))]
    if not answers:
        blocks.append(
            escape(
                "Go through the beats in order, in the app (attn-tui FILE, n for the next beat) "
                "or on paper. Name: " + "_" * 20 + "  Date: " + "_" * 12
            )
        )
    if scenario.description.strip():
        blocks.append(paragraphs(visible(scenario.description.strip(), multiline=True)))
    labels = token_labels(scenario.tokens)
    keys = ", ".join(quoted(token) for token in labels[:HANDOUT_TOKENS])
    if len(labels) > HANDOUT_TOKENS:
        keys += escape(f", … ({len(labels) - HANDOUT_TOKENS:,} more)")
    blocks.append(
        f"Tokens ({scenario.T_k:,}): {keys} · "
        + escape(summary_line(scenario, with_file=False).split(" · ", 1)[1])
    )
    blocks.append(heading(2, "Inputs, as the lesson starts"))
    blocks += input_tables(scenario, most=HANDOUT_NUMBERS)
    start = start_position(scenario)
    at_beats = lesson.scenarios(scenario)
    for index, beat in enumerate(lesson.beats):
        blocks += _beat(
            scenario, index, beat, lesson.position(index, start), next(at_beats), answers
        )
    return "\n\n".join(blocks) + "\n"


def _beat(
    scenario: Scenario, index: int, beat: Beat, where, at: Scenario, answers: bool
) -> list[str]:
    """A beat's blocks; ``at`` is the scenario at this beat (its numbers fill in the answers)."""
    stage = stage_named(where.step)
    label = token_labels(scenario.row_tokens)[where.row]
    head = (
        f" · {visible(scenario.head_names[where.head])}"
        if scenario.heads > 1 and stage.arithmetic.per_head
        else ""
    )
    blocks = [
        heading(
            2,
            f"Beat {index + 1} · Step {step_number(scenario, stage.name)} {stage.title}"
            f'{head} · row "{label}"',
        )
    ]
    changes = [_change(scenario, edit) for edit in beat.edits] + [
        _option(scenario, name, value) for name, value in beat.options
    ]
    if changes:
        blocks.append("\n".join(f"- {escape(change)}" for change in changes))
    if beat.say:
        blocks.append(paragraphs(visible(beat.say, multiline=True)))
    if beat.predict:
        labels = column_labels(scenario, stage)
        keys = shown_columns(len(labels), where.column)
        columns = [labels[k] for k in keys]
        blocks.append(
            escape(
                f'Predict the {stage.numbers} of "{label}" before you look:'
                if not answers
                else f'The {stage.numbers} of "{label}" at this beat (check your prediction):'
            )
        )
        attention = Attention(at, block=1)  # one row is asked for, not its block of 16
        rows = range(where.row, where.row + 1)
        # a masked cell is given (−∞, a weight of 0), not asked, as the app shows it
        given = (
            attention.blocked(rows, keys)[0] if stage.teaching.masked_given else [False] * len(keys)
        )
        if answers or any(given):
            values = attention.values(stage.name, where.head, rows, keys)[0]
            cells = [
                fixed(float(value), scenario.precision) if answers or known else BLANK
                for value, known in zip(values, given)
            ]
        else:
            cells = [BLANK] * len(columns)
        if (
            answers and stage.arithmetic.empty_rows and attention.empty(rows)[0]
        ):  # nothing to attend to: no weights, not 0s
            cells = ["—"] * len(columns)
        blocks.append(grid(["row", *columns], [[label, *cells]], numeric_from=1))
        if len(keys) < len(labels):
            blocks.append(
                escape(
                    f"(columns {keys.start + 1}–{keys.stop} of {len(labels):,}: "
                    "the app shows the whole row)"
                )
            )
        if not answers:
            blocks.append(escape("Write your prediction down before you read on."))
    if beat.ask:
        blocks.append("**Question:** " + paragraphs(visible(beat.ask, multiline=True)))
        if answers and beat.answer:
            blocks.append("**Answer:** " + paragraphs(visible(beat.answer, multiline=True)))
        elif not answers:
            blocks.append(
                "\n".join(["Answer: " + escape("_" * 60)] + [escape("_" * 68)] * (ANSWER_LINES - 1))
            )
    return blocks


def _change(scenario: Scenario, edit) -> str:
    rows, columns = input_labels(scenario, edit.matrix)
    which = "" if edit.head is None else f" (head {edit.head + 1})"
    return (
        f"{edit.matrix}{which}[{rows[edit.row]}, {columns[edit.col]}] "
        f"is set to {yaml_number(edit.value)}"
    )


def _option(scenario: Scenario, name: str, value) -> str:
    if name == "causal":
        return "the causal mask is turned " + ("on" if value else "off")
    shown = scenario.with_options(scale=value).options.scale_text(scenario.d_k)
    return "the scores are not scaled" if shown == "none" else f"the scores are scaled: {shown}"
