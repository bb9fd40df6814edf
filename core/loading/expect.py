"""A student's own numbers: ``expect:`` (per stage: rows, ``{npy: file}``, or one matrix per head
for a stage of each head), ``expect_npz:``, ``expect_tolerance:``, and the stages to
``predict:``. Which stages a student may give, and their shapes, come from the stage registry
(read only when a file has such keys: checking any other file needs no NumPy)."""

from __future__ import annotations

import difflib
import os

from attn_tui.core.files.numpy_files import ArrayRef, NumpyFileError, npz_members
from attn_tui.core.files.yaml_matrices import expected_file, expected_values
from attn_tui.core.files.yaml_numbers import located, named, number, scalar_text
from attn_tui.core.files.yaml_source import Sequence, deref
from attn_tui.core.reading.files import Files
from attn_tui.core.reading.keys import Entry, check_keys, entries

KEYS = ("expect", "expect_npz", "expect_tolerance", "predict")


def expectations(files: Files, top: dict[str, Entry], plan) -> dict[str, tuple]:
    """``expect:`` and ``expect_npz:`` as (values, given) pairs per stage key: a student's
    numbers may be NaN or infinite (their code's bug), and a cell left out (null) is not
    compared. ``plan`` is what is known of the scenario (its layout, its steps' conditions)."""
    if "expect" not in top and "expect_npz" not in top:
        return {}
    from attn_tui.core.engine.stages import expect_keys, stage_keyed

    allowed = expect_keys(plan)
    found: dict[str, tuple] = {}
    if "expect_npz" in top:
        node = top["expect_npz"].value
        path = files.external_path(node, "expect_npz")
        try:
            members = [name for name in npz_members(path) if name in allowed]
        except NumpyFileError as error:
            raise located(node, f"expect_npz: {error}") from None
        if not members:
            raise located(
                node, f"expect_npz: {os.path.basename(path)} holds none of {', '.join(allowed)}"
            )
        for name in members:
            found[name] = expected_file(
                ArrayRef(path, name), f"expect {name}", node, stage_keyed(name).shape(plan)
            )
    if "expect" in top:
        given = entries(top["expect"].value, "expect")
        for name, entry in given.items():
            if name in expect_keys() and name not in allowed:
                raise located(
                    entry.key,
                    f"expect {name}: this scenario has no {stage_keyed(name).title} "
                    f"step; give {', '.join(allowed)}",
                )
        check_keys(given, allowed, "expect")
        for name, entry in given.items():
            shape = stage_keyed(name).shape(plan)
            ref = files.npy_ref(entry.value, f"expect {name}")
            found[name] = (
                expected_file(ref, f"expect {name}", entry.value, shape)
                if ref
                else expected_values(entry.value, f"expect {name}", shape)
            )
    return found


def predict(entry: Entry | None, plan) -> tuple[str, ...]:
    """``predict:`` — the keys of the stages whose cells start hidden in the app."""
    if entry is None:
        return ()
    from attn_tui.core.engine.stages import expect_keys, stage_keyed

    node = deref(entry.value)
    items = node.items if isinstance(node, Sequence) else [node]
    allowed = expect_keys(plan)
    stages = []
    for item in items:
        name = scalar_text(item, "a stage to predict")
        if name in expect_keys() and name not in allowed:  # a stage this scenario does not have
            raise located(
                item,
                f"predict: {named(name)}: this scenario has no {stage_keyed(name).title} step; "
                f"predict {', '.join(allowed)}",
            )
        if name not in allowed:
            close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise located(
                item,
                f"predict: {named(name)} is not a stage one can predict here "
                f"({', '.join(allowed)}){hint}",
            )
        stages.append(name)
    return tuple(dict.fromkeys(stages))


def tolerance(entry: Entry | None) -> float:
    if entry is None:
        return 1e-6
    node = entry.value
    value = number(node, "expect_tolerance")
    if value <= 0:
        raise located(node, f"expect_tolerance must be positive, not {deref(node).value}")
    return value


__all__ = ["KEYS", "expectations", "predict", "tolerance"]
