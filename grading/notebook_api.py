"""attn-tui in a Jupyter or Colab notebook: ``check(attention)``, a student's self-check of the
function they just wrote, and ``show("cat_sat", stage="weights")``, a stage's figure.

``check`` runs the cases ``attn-tui check --impl`` runs, on the function object, in the kernel
that holds it (grading/in_process.py: no file, no other process: it is the student's own code),
judged as the command judges (grading/calling.py, grading/check.py). Its report shows as HTML in
a notebook (``_repr_html_``: ✓/✗ per stage and case, the first differing cells, the named
mistake and its fix) and as the command's text in a terminal. ``show`` returns the SVG figure
``attn-tui figure`` writes (core/outputs/figures), displayed through ``_repr_svg_``: one
self-contained SVG, no JavaScript, nothing fetched from the network.

Neither imports Textual nor Rich; ``import attn_tui`` does not import this module until
``attn_tui.check`` or ``attn_tui.show`` is first asked for.
"""

from __future__ import annotations

import dataclasses
import os
from html import escape

from attn_tui.core.model.scenario import Scenario
from attn_tui.core.text import visible
from attn_tui.grading.check import Checked, run_check, told
from attn_tui.grading.in_process import CheckError, InProcess
from attn_tui.grading.report import case_line, differing_cells, read_as, with_expect

MAX_CELLS = 5  # differing cells listed per stage (the command lists as many)
MAX_PRINTED_SHOWN = 2000  # characters of what the function printed, in the report


class ScenarioNotFound(ValueError):
    """The scenario named is no built-in and no file (or cannot be read): said in one line."""


def check(function, scenario: str | Scenario = "cat_sat", *, cases: bool = False) -> SelfCheck:
    """Check ``function`` (a function, a lambda, a method, a class or an object with ``forward``)
    as ``attn-tui check SCENARIO --impl`` checks a file: on the scenario (a built-in's name, a
    file, or a Scenario), and with ``cases=True`` on the whole battery ``grade`` uses too.
    Returns a report; in a notebook it shows itself."""
    from attn_tui.grading import cases as battery

    submission = InProcess(function)
    found = _scenario(scenario)
    label = scenario if isinstance(scenario, str) else found.display_name
    if not battery.plain(found):
        raise ValueError(
            f"{visible(found.display_name)}: check takes attention(Q, K, V, causal); this "
            "scenario has more (heads, a bias, RoPE, a window or padding mask, or a scale of "
            "its own): give a plain one, such as cat_sat"
        )
    checked = dataclasses.replace(run_check(submission, found, cases), label=label)
    return SelfCheck(submission, checked)


class SelfCheck:
    """What ``check`` found: ``ok``, ``passed`` of ``of`` cases (with ``cases=True``), the
    report as text (``str``) and as HTML (a notebook shows it)."""

    def __init__(self, submission: InProcess, checked: Checked) -> None:
        self.checked = checked
        self.name = submission.name
        self.printed = submission.output()

    @property
    def ok(self) -> bool:
        return self.checked.ok

    @property
    def passed(self) -> int:
        return self.checked.count.passed

    @property
    def of(self) -> int:
        return self.checked.count.of

    def lines(self) -> list[str]:
        """The report as ``attn-tui check --impl`` words it, line by line (made visible)."""
        lines = told(self.checked, visible(self.name), "check(…, cases=True)")
        if self.printed:
            lines.append("What it printed (made visible, the first lines):")
            lines += visible(self.printed[:MAX_PRINTED_SHOWN], multiline=True).splitlines()
        return lines

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        checked = self.checked
        main = checked.main
        on = f"{visible(self.name)} on {visible(checked.scenario_name)}"
        parts = [f'<div class="attn-tui-check" style="{STYLE["box"]}">']
        if main.error is not None:
            parts.append(_headline(False, f"{on}: {visible(main.error)}"))
        else:
            from attn_tui.core.teaching.compare import compare

            judged = with_expect(main)
            comparison = compare(judged)
            verdict = "your values match" if comparison.ok else "your values differ"
            parts.append(_headline(comparison.ok, f"{on}: {verdict}"))
            parts.append(f'<div style="{STYLE["quiet"]}">{escape(read_as(main))}</div>')
            parts.append(_stages(comparison, judged))
            parts.append(_diagnosis(comparison))
        if checked.results:
            parts.append(_cases(checked))
        elif main.ok:
            parts.append(
                f'<div style="{STYLE["quiet"]}">That is this scenario only: '
                "<code>check(…, cases=True)</code> also tries T = 1, d_k = 1, random T up to 64, "
                "scores of ~1,000 and a fully masked row.</div>"
            )
        if checked.own_softmax is not None:
            good, line, _ = checked.own_softmax
            line = line.replace("✓ ", "", 1) if good else line.replace("✗ ", "", 1)
            parts.append(f"<div>{_mark(good)} {escape(visible(line))}</div>")
        if self.printed:
            shown = visible(self.printed[:MAX_PRINTED_SHOWN], multiline=True)
            parts.append(
                f"<details><summary>What it printed</summary><pre>{escape(shown)}</pre></details>"
            )
        parts.append("</div>")
        return "\n".join(part for part in parts if part)


def _headline(good: bool, text: str) -> str:
    return f'<div style="{STYLE["headline"]}">{_mark(good)} {escape(text)}</div>'


def _mark(good: bool | None) -> str:
    if good is None:
        return f'<span style="{STYLE["quiet"]}">–</span>'
    return (
        f'<span style="{STYLE["right"]}">✓</span>'
        if good
        else f'<span style="{STYLE["wrong"]}">✗</span>'
    )


def _stages(comparison, scenario: Scenario) -> str:
    rows = []
    for stage in comparison.stages:
        if stage.matches:
            said, cells = f"matches (tolerance {comparison.tolerance:g})", []
        else:
            said = f"{stage.count} cell{'s differ' if stage.count > 1 else ' differs'}"
            cells = differing_cells(scenario, stage, MAX_CELLS)
            if stage.count > MAX_CELLS:
                cells.append(f"… and {stage.count - MAX_CELLS} more")
        listed = "<br>".join(escape(cell) for cell in cells)
        columns = (_mark(stage.matches), f"<b>{escape(stage.name)}</b>", escape(said), listed)
        rows.append(
            "<tr>"
            + "".join(f'<td style="{STYLE["cell"]}">{column}</td>' for column in columns)
            + "</tr>"
        )
    return f'<table style="{STYLE["table"]}">' + "".join(rows) + "</table>"


def _diagnosis(comparison) -> str:
    first = comparison.first_difference
    if first is None:
        return ""
    diagnosis = comparison.diagnosis
    if diagnosis is None:
        return (
            f'<div style="{STYLE["mistake"]}">The first stage that differs is '
            f"{escape(first.name)}; it matches none of the known mistakes: step through that "
            "stage in the app (<code>attn-tui cat_sat</code>) to see where the arithmetic "
            "departs.</div>"
        )
    return (
        f'<div style="{STYLE["mistake"]}">The first stage that differs is {escape(first.name)}. '
        f"<b>Likely bug:</b> {escape(diagnosis.what)}.<br><b>Fix:</b> {escape(diagnosis.fix)}."
        "</div>"
    )


def _cases(checked: Checked) -> str:
    items = []
    for result in checked.results:
        good = None if result.not_run is not None else result.ok
        line = case_line(result)
        items.append(f"<li>{_mark(good)} {escape(line[1:].lstrip())}</li>")
    wrong = next(
        (r for r in checked.results if not r.ok and r.first_wrong and r.first_wrong.diagnosis),
        None,
    )
    fix = ""
    if wrong is not None:
        diagnosis = wrong.first_wrong.diagnosis
        fix = (
            f'<div style="{STYLE["mistake"]}">{escape(visible(wrong.case.name))}: '
            f"<b>{escape(diagnosis.what)}</b>.<br><b>Fix:</b> {escape(diagnosis.fix)}.</div>"
        )
    count = checked.count
    return (
        f"<div>{_mark(count.ok)} <b>{escape(count.line())}</b></div>"
        f'<ul style="{STYLE["list"]}">' + "".join(items) + "</ul>" + fix
    )


STYLE = {  # inline: a notebook's HTML output carries no stylesheet of ours
    "box": "font-family: sans-serif; line-height: 1.4",
    "headline": "font-weight: bold; font-size: 1.05em",
    "quiet": "color: #666666",
    "right": "color: #1a7f37; font-weight: bold",
    "wrong": "color: #cf222e; font-weight: bold",
    "table": "border-collapse: collapse; margin: 0.4em 0",
    "cell": "padding: 0.1em 0.6em 0.1em 0; vertical-align: top; text-align: left",
    "mistake": "border-left: 3px solid #cf222e; padding: 0.2em 0.6em; margin: 0.4em 0",
    "list": "list-style: none; padding-left: 0.5em; margin: 0.2em 0",
}


# ---- show ------------------------------------------------------------------------------------


def show(
    scenario: str | Scenario = "cat_sat",
    stage: str = "weights",
    *,
    head: str | int | None = None,
    row: str | int | None = None,
    variant: str | None = None,
) -> Figure:
    """The figure ``attn-tui figure SCENARIO --stage STAGE`` writes: a stage's heat map (every
    row), or one ``row``'s bars (a token, or a number from 1), of a ``head`` or a ``variant``;
    an input (Q, K, V, X, …) as its own map. In a notebook it shows itself as SVG."""
    from attn_tui.core.outputs.figures.stage_figure import stage_figure

    found = _scenario(scenario)
    index = None if row is None or row == "all" else _row(found, row)
    svg = stage_figure(
        found, stage, head=None if head is None else str(head), row=index, variant=variant
    )
    label = scenario if isinstance(scenario, str) else found.display_name
    return Figure(svg, f"{label}: {stage}")


class Figure:
    """A figure as SVG text (``svg``); ``save(path)`` writes it; a notebook displays it."""

    def __init__(self, svg: str, title: str) -> None:
        self.svg = svg
        self.title = title

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.svg)

    def __repr__(self) -> str:
        return (
            f"<attn-tui figure: {visible(self.title)}; .svg holds its SVG, .save(path) writes it>"
        )


def _scenario(given: str | Scenario) -> Scenario:
    """A Scenario as given, or the built-in of that name, or the file at that path."""
    if isinstance(given, Scenario):
        return given
    from attn_tui.core import ScenarioError, load
    from attn_tui.core.loading import catalog

    if not isinstance(given, (str, os.PathLike)):
        raise TypeError(f"a scenario is a built-in's name or a file, not a {type(given).__name__}")
    name = os.fspath(given)
    path = catalog.find(name) if not os.path.lexists(name) else name
    if path is None:
        known = ", ".join(builtin.name for builtin in catalog.builtins())
        raise ScenarioNotFound(
            f"{visible(name)}: no such file, and no built-in scenario of that name "
            f"(built-ins: {known})"
        )
    try:
        return load(path)
    except ScenarioError as error:
        raise ScenarioNotFound(visible(str(error))) from None


def _row(scenario: Scenario, row: str | int) -> int:
    """A row as a number from 1 or a token, as an index."""
    tokens = scenario.row_tokens
    if isinstance(row, int) and not isinstance(row, bool):
        if 1 <= row <= len(tokens):
            return row - 1
        raise ValueError(f"row {row} is not one of 1 to {len(tokens)}")
    found = [i for i, token in enumerate(tokens) if token == row]
    if len(found) == 1:
        return found[0]
    if found:
        rows = ", ".join(str(i + 1) for i in found)
        raise ValueError(f"row {visible(str(row))!r} is ambiguous: rows {rows}; give the number")
    raise ValueError(
        f"no row {visible(str(row))!r}: the rows are {', '.join(map(visible, tokens))}"
    )


__all__ = ["CheckError", "Figure", "ScenarioNotFound", "SelfCheck", "check", "show"]
