"""Saving a scenario back into its author's YAML, keeping every comment and the layout.

Only the numbers that changed are rewritten, each at its own position in the original text.
Where an alias (``K: *qk``) would otherwise change along with an edited anchor, the alias is
replaced by the numbers it stood for. A scenario made by ``random:`` gets its numbers written
out. The result is read back and compared with what should have been saved before anything
is written; writing itself is atomic (a temporary file, then a rename).

Where the author's layout cannot take an edit (a scalar anchor shared with a variant, a tagged
number, …), :func:`render` writes the whole scenario afresh: every number, no comments. Save As
does that by itself; Save asks first (:class:`NeedsRewrite`).

An edited matrix from a data file goes to ``<scenario>.<name>.npy`` beside the scenario, or
``…-2.npy`` and on when a file of that name exists that attn-tui did not write for this
scenario: a file is only ever replaced if a record in the state folder says attn-tui wrote it,
for this scenario, with exactly its present content.
"""

from __future__ import annotations

import os

import numpy as np

from attn_tui.core.editing.data_files import data_file, remember
from attn_tui.core.editing.read_back import LAYOUT as _LAYOUT
from attn_tui.core.editing.read_back import verify
from attn_tui.core.editing.render import SavePlan, inputs_equal, render
from attn_tui.core.editing.save_root import SaveRoot
from attn_tui.core.editing.text_edits import TextEdits, input_node, write_out_random
from attn_tui.core.errors import NeedsRewrite, SaveError  # noqa: F401 (NeedsRewrite: read from here too)
from attn_tui.core.files.atomic_write import write_atomic
from attn_tui.core.files.numpy_files import npy_bytes
from attn_tui.core.loading.scenario_file import entries, loads
from attn_tui.core.model.scenario import Scenario, bits_equal


def plan(scenario: Scenario, target: str | None = None) -> SavePlan:
    """The original text with the current numbers and options written in, for ``target``
    (default: the scenario's own file). No file is touched.

    A matrix that came from a .npy or .npz file and was edited goes to a new file beside the
    target (:func:`data_file`; the student's data file is never overwritten), and the text
    points to it. Saved elsewhere, relative paths to data files are rewritten.
    ``NeedsRewrite`` when the text cannot take the edits in place.
    """
    document = scenario.source
    if document is None or scenario.path is None:
        raise NeedsRewrite(
            "this scenario has no file text to update; it can be written as a new file"
        )
    target = target or scenario.path
    original = loads(document.text, scenario.path)
    top = entries(document.root, "the scenario")
    edits = TextEdits(document, scenario.path)
    arrays: dict[str, np.ndarray] = {}
    target_dir = os.path.dirname(os.path.abspath(target))
    if scenario.random is not None and not inputs_equal(scenario, original):
        write_out_random(edits, scenario, top["random"])
    else:
        for name, current in scenario.inputs.items():
            if bits_equal(current, original.inputs[name]):
                continue
            if name in scenario.files:
                path = data_file(target, name)
                arrays[path] = current
                edits.file_reference(top, name, os.path.relpath(path, target_dir))
            else:
                edits.array(input_node(top, name), current, original.inputs[name])
        edits.keep_aliases(scenario, top)
    if target_dir != os.path.dirname(os.path.abspath(scenario.path)):
        edits.relocate_files(top, target_dir)
    if not _expect_equal(scenario, original):
        edits.expect(top, scenario.expect)
    if scenario.expect_tolerance != original.expect_tolerance:
        edits.option(top, "expect_tolerance", scenario.expect_tolerance)
    for name in ("causal", "scale"):
        value = getattr(scenario.options, name)
        if value != getattr(original.options, name) or type(value) is not type(
            getattr(original.options, name)
        ):
            edits.option(top, name, value)
    for name in sorted(set(scenario.stage_settings) | set(original.stage_settings)):
        edits.stage_setting(
            top, name, scenario.stage_settings.get(name), original.stage_settings.get(name)
        )
    try:
        return SavePlan(edits.result(), arrays)
    except ValueError:  # two edits overlap in the text: the layout cannot hold them both
        raise NeedsRewrite(_LAYOUT) from None


def save(
    scenario: Scenario,
    target: str | None = None,
    rewrite: bool = False,
    save_root: SaveRoot | None = None,
) -> str:
    """Write the scenario (and any edited data matrices) to ``target``; returns the text written.

    New .npy files are written first, then the text is read back and compared with the
    scenario, and only then does it replace the old file, atomically. If the author's text
    cannot take the edits, ``NeedsRewrite`` — or, with ``rewrite``, a whole new file
    (:func:`render`) with every number and no comments. With ``save_root``, every file to be
    written must pass its rule first (``OutsideSaveRoot`` otherwise, and nothing is written).
    """
    target = target or scenario.path
    try:
        return _write(plan(scenario, target), scenario, target, True, save_root)
    except NeedsRewrite:
        if not rewrite:
            raise
    return _write(render(scenario, target), scenario, target, False, save_root)


def _write(
    saving: SavePlan, scenario: Scenario, target: str, in_place: bool, save_root: SaveRoot | None
) -> str:
    if save_root is not None:
        for path in (*saving.arrays, target):
            save_root.resolve(path)
    try:
        for path, values in saving.arrays.items():
            data = npy_bytes(values)
            write_atomic(path, data)
            remember(path, data, target)
        verify(saving.text, scenario, target, in_place)
        write_atomic(target, saving.text)
    except OSError as exc:
        where = exc.filename or target
        raise SaveError(
            f"cannot write {where}: {exc.strerror or exc}; your edits are kept, "
            "save elsewhere with Save As"
        ) from None
    finally:
        if save_root is not None:  # even half a save wrote its .npy files: they are ours now
            for path in (*saving.arrays, target):
                if os.path.exists(path):
                    save_root.written(path)
    return saving.text


def updated_text(scenario: Scenario) -> str:
    """The scenario's own file text, updated and checked (for scenarios without data files)."""
    saving = plan(scenario)
    if saving.arrays:
        raise SaveError("edited matrices from .npy files are written by save(), not here")
    verify(saving.text, scenario, scenario.path)
    return saving.text


def _expect_equal(a: Scenario, b: Scenario) -> bool:
    return a.expect.keys() == b.expect.keys() and all(
        bits_equal(a.expect[s].values, b.expect[s].values)
        and np.array_equal(a.expect[s].given, b.expect[s].given)
        for s in a.expect
    )
