"""The headless commands: ``json``, ``print``, ``markdown`` and ``check`` of one scenario, and
``list`` of the built-ins."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

from attn_tui.core.text import visible
from attn_tui.tui.cli.streams import (
    EXIT_DIFFERS,
    EXIT_OK,
    EXIT_USAGE,
    OutputError,
    flush_out,
    say_problems,
    write_all,
    write_out,
)


def headless(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """A headless command of the scenario ``args`` names (a model index: ``json`` lists it)."""
    from attn_tui.core import ScenarioError, load
    from attn_tui.core.loading.model_index import index_or_none

    try:
        path = scenario_path(args.scenario)
        index = index_or_none(path)
        if index is not None:  # every layer of a capture
            return list_index(parser, args, index)
        scenario = with_views(parser, args, load(path))
        if getattr(args, "lesson", False) and scenario.lesson is None:
            raise ScenarioError("has no lesson: (see docs/classroom.md: lessons)", path=path)
    except ScenarioError as error:
        say_problems(error)
        return EXIT_USAGE
    if sys.stdout is None:  # before the work: a closed output would otherwise pass unnoticed
        raise OutputError("standard output is closed")
    try:
        return {"json": write_json, "print": write_walk, "markdown": write_walk, "check": check}[
            args.command
        ](parser, args, scenario)
    except ScenarioError as error:  # found while working (a training step that overflows)
        say_problems(error)
        return EXIT_USAGE


def _comparison(scenario):
    if not scenario.expect:
        return None
    from attn_tui.core.teaching.compare import compare

    return compare(scenario)


def write_json(parser, args, scenario) -> int:
    from attn_tui.core.outputs.json_export import json_chunks

    comparison = _comparison(scenario)
    document = None
    if comparison is not None:
        from attn_tui.core.teaching.comparison_report import to_json

        document = to_json(comparison)
    write_all(json_chunks(scenario, document))
    return EXIT_OK


def write_walk(parser, args, scenario) -> int:
    """``print`` and ``markdown``: the walk-through, a worksheet, its key, or a lesson's handout."""
    try:
        rows = select_rows(args.row, scenario.row_tokens)
    except ValueError as exc:
        parser.error(str(exc))
    if args.command == "print":
        from attn_tui.core.outputs.report import text_chunks

        write_all(text_chunks(scenario, rows=rows))
        return EXIT_OK
    # "--markdown --worksheet FILE (--answers: its answer key)" invites adding --answers to the
    # worksheet's command: the key of that worksheet
    sheet = "answers" if args.answers else "worksheet" if args.worksheet else None
    if args.lesson:
        if sheet == "worksheet":
            parser.error("--lesson is a handout of its own; --answers fills it in")
        if args.row:
            parser.error("--row goes with the walk-through; a lesson's beats name their own rows")
        if args.no_extras:
            parser.error(
                "--no-extras goes with the walk-through and worksheets; a lesson's handout has no "
                "max or entropy columns to leave out"
            )
        from attn_tui.core.outputs.lesson_handout import lesson_markdown

        write_out(lesson_markdown(scenario, answers=sheet == "answers"))
    else:
        from attn_tui.core.outputs.markdown import markdown_chunks

        write_all(markdown_chunks(scenario, rows=rows, sheet=sheet, extras=not args.no_extras))
    return EXIT_OK


def check(parser, args, scenario) -> int:
    if getattr(args, "impl", None):
        return check_impl(parser, args, scenario)
    for option in ("cases", "open", "backward", "timeout", "memory", "verbose"):
        if getattr(args, option, None) not in (None, False):
            parser.error(f"--{option} goes with --impl FILE.py (the student's own code)")
    from attn_tui.core.engine.stages.backward_steps import loss
    from attn_tui.core.engine.stages.mask import leak_warnings
    from attn_tui.core.outputs.report import attentions_of

    if loss(scenario) is not None and loss(scenario).train is not None:
        from attn_tui.core.engine.training import train

        for attention in attentions_of(
            scenario
        ).values():  # (a learning rate that overflows is told here too)
            train(scenario, attention.options)
    comparison = _comparison(scenario)
    if comparison is None:
        write_out(visible(f"{scenario.display_name}: ok: {summary(scenario)}") + "\n")
    else:
        from attn_tui.core.teaching.comparison_report import summary as comparison_summary

        verdict = "your values match" if comparison.ok else "your values differ"
        write_out(visible(f"{scenario.display_name}: {verdict}: {summary(scenario)}") + "\n")
        write_out(comparison_summary(comparison, scenario) + "\n")
    for line in leak_warnings(attentions_of(scenario)):
        write_out(visible(line) + "\n")
    if scenario.lesson is not None:  # (one that does not read is an error at FILE:LINE:COL, above)
        write_out(lesson_line(scenario.lesson) + "\n")
    return EXIT_DIFFERS if comparison is not None and not comparison.ok else EXIT_OK


def lesson_line(lesson) -> str:
    """What ``check`` says of a lesson that was read: its beats, and that each is playable."""
    beats = len(lesson.beats)
    predict = sum(beat.predict for beat in lesson.beats)
    asked = sum(bool(beat.ask) for beat in lesson.beats)
    parts = [
        f"{predict} to predict" if predict else "",
        f"{asked} with a question" if asked else "",
    ]
    kinds = ", ".join(part for part in parts if part)
    return (
        f"lesson: {beats} beat{'s' * (beats != 1)}{f' ({kinds})' if kinds else ''}, read fine: "
        "every beat's step, row, head and edits are this scenario's (n plays it in the app)"
    )


def check_impl(parser, args, scenario) -> int:
    """check --impl: the student's own code (attn_tui.grading); --open then opens the app."""
    from attn_tui.grading.check import check_impl as run
    from attn_tui.tui.cli.streams import say

    status = run(args, scenario, write_out, say)
    opened = getattr(args, "opened", None)
    if args.open and opened is not None:
        from attn_tui.tui.cli.app import start_app

        flush_out()
        # at the first wrong stage, row and cell (the student's numbers are not saved into it)
        start_app(opened, read_only=True, start=getattr(args, "opened_at", None))
    return status


def list_index(parser, args, index) -> int:
    """A model index: ``json`` lists its layers; the other modes need one layer's scenario."""
    if args.command != "json":
        parser.error(
            "a model index lists one scenario per layer: --json lists them, "
            "'attn-tui heads FILE' scores their heads, and the app opens them as the model "
            "view; give one layer's scenario for --print, --markdown, --check or --present"
        )
    import json

    from attn_tui.core.loading.model_index import to_json

    write_out(json.dumps(to_json(index), indent=1, allow_nan=False) + "\n")
    return EXIT_OK


def list_builtins(parser=None, args=None) -> int:
    from attn_tui.core import load
    from attn_tui.core.loading import catalog

    entries = [(builtin.name, load(builtin.path).title) for builtin in catalog.builtins()]
    width = max(len(name) for name, _ in entries)
    for name, title in entries:
        write_out(visible(f"{name:<{width}}  {title}") + "\n")
    return EXIT_OK


def with_views(parser: argparse.ArgumentParser, args: argparse.Namespace, scenario):
    """The scenario with the steps options such as --tiles and --decode add (as its own keys
    would), for this run: saving keeps the file's own settings of them unless they are changed
    in the app."""
    from attn_tui.core.engine.stages import toggled

    own = dict(scenario.stage_settings)
    for stage in toggled():
        toggle = stage.turned_on.toggle
        given = getattr(args, toggle.option.lstrip("-").replace("-", "_"), None)
        if given in (None, False):
            continue
        try:
            setting = toggle.on(scenario) if toggle.value is None else toggle.parse(given)
            if scenario.stage_settings.get(stage.name) != setting:
                scenario = toggle.switch(scenario, setting).apply(scenario)
        except ValueError as problem:  # (NotApplicable is one)
            shown = toggle.option if toggle.value is None else f"{toggle.option} {given!r}"
            parser.error(f"{shown}: {problem}")
    changed = {
        name: own.get(name)
        for name in {*own, *scenario.stage_settings}
        if own.get(name) != scenario.stage_settings.get(name)
    }
    return dataclasses.replace(scenario, file_settings=changed) if changed else scenario


def scenario_path(name: str) -> str:
    """A file path, or failing that the file of a built-in; errors name what was tried."""
    from attn_tui.core import ScenarioError
    from attn_tui.core.loading import catalog

    if os.path.lexists(name):  # a broken link or a loop is the user's file too: say what is wrong
        return name
    builtin = catalog.find(name)
    if builtin is not None:
        return str(builtin)
    if os.sep in name or name.endswith((".yaml", ".yml")):
        raise ScenarioError("no such file", path=name)
    known = ", ".join(b.name for b in catalog.builtins())
    raise ScenarioError(
        f"no such file, and no built-in scenario of that name (built-ins: {known})", path=name
    )


def select_rows(row: str | None, tokens: tuple[str, ...]) -> list[int] | None:
    """``--row`` as row indices: ``all``, a 1-based number, or a token."""
    if row is None:
        return None
    if row == "all":
        return list(range(len(tokens)))
    if row.isascii() and row.isdigit() and 1 <= int(row) <= len(tokens):  # not "٣" or "３"
        return [int(row) - 1]
    if tokens.count(row) > 1:
        rows = ", ".join(str(i + 1) for i, token in enumerate(tokens) if token == row)
        raise ValueError(
            f"--row {row!r} is ambiguous: rows {rows} are all {row!r}; give the number"
        )
    if row in tokens:
        return [tokens.index(row)]
    shown = " ".join(tokens[:8]) + (f" … ({len(tokens) - 8:,} more)" if len(tokens) > 8 else "")
    raise ValueError(
        f"--row {row!r}: not 'all', a number from 1 to {len(tokens)}, or a token ({shown})"
    )


def summary(scenario) -> str:
    tokens = (
        f"T = {scenario.T}" if not scenario.cross else f"{scenario.T} queries × {scenario.T_k} keys"
    )
    parts = [
        visible(scenario.title),
        tokens,
        f"d_k = {scenario.d_k}",
        f"d_v = {scenario.d_v}",
        scenario.describe(),
    ]
    if scenario.multi_head:
        parts.append(f"{scenario.heads} head{'s' if scenario.heads != 1 else ''}")
    if scenario.variants:
        parts.append(f"{len(scenario.variants)} variants")
    return " · ".join(parts)
