"""The Textual bindings made from ``KEYS`` (tui/keys.py): the debugger screen's, in the footer's
order, the model view's and the Train view's, the digits that jump to a step; the footer's groups
of keys that share one entry; and the relabelling of a key's footer entry (a lesson's "Beat 3/12"
on n)."""

from __future__ import annotations

import dataclasses

from textual.binding import Binding

from attn_tui.tui.keys import (
    DECODE_VIEW,
    KEYS,
    MODEL_VIEW,
    OTHER_SCREENS,
    STEP_KEYS,
    TRAIN_VIEW,
)

GROUPS = {
    "step": Binding.Group("Step", compact=True),
    "row": Binding.Group("Row", compact=True),
    "history": Binding.Group("Undo/redo", compact=True),
    "grid": Binding.Group("Head", compact=True),
    "layer": Binding.Group("Layer", compact=True),
    "run": Binding.Group("Run", compact=True),
    "column": Binding.Group("Key", compact=True),
    "out_column": Binding.Group("Column", compact=True),
}


def key_binding(key) -> Binding:
    """A key of ``KEYS`` as Textual binds it: in the footer when it has a footer label, under its
    group's one entry when it shares one."""
    return Binding(
        key.keys,
        key.action,
        key.footer or key.does,
        show=bool(key.footer),
        group=GROUPS.get(key.group),
    )


def step_bindings(shown: bool = False) -> list[Binding]:
    """The digit keys that jump to a step (``goto_key`` in ``KEYS``), for the debugger and
    projector mode alike; ``shown``: one footer entry for them all."""
    group = Binding.Group("Jump to step", compact=True) if shown else None
    return [
        Binding(digit, f"goto({n})", f"Step {n}", show=shown, group=group)
        for n, digit in enumerate(STEP_KEYS, 1)
    ]


# after Help: what a narrow footer must not cut (KeyFooter): saving, quitting, and in a lesson its
# beat
FOOTER_FIRST = ("save", "app.quit", "next_beat")


def screen_bindings() -> list[Binding]:
    """The debugger screen's bindings, from ``KEYS``, in the footer's order: help first, so
    that a narrow footer still shows where every other key is explained, then save and quit;
    with the keys a Screen binds of its own (the screen inherits none, or Tab would lead)."""
    bindings = [Binding("question_mark", "app.help", "Help")]
    firsts = [key for action in FOOTER_FIRST for key in KEYS if key.action == action]
    for key in firsts + [key for key in KEYS if key not in firsts]:
        if not key.action or key.where in OTHER_SCREENS:
            continue
        if key.action == "goto_key":
            bindings += step_bindings()
            continue
        bindings.append(key_binding(key))
    return bindings + [
        Binding("shift+tab", "next_pane(-1)", "Focus previous", show=False),
        Binding("ctrl+c,super+c", "screen.copy_text", "Copy selected text", show=False),
    ]


def relabel(screen, action: str, description: str) -> None:
    """Show ``description`` in the footer for the key of ``action`` on ``screen`` (the lesson's
    "Beat 3/12" on n). Textual's footer reads a binding's description, which is otherwise fixed:
    the binding is replaced, and the footer's key already on screen told, so that the footer is
    not composed again (that cost a beat ~15 ms)."""
    from textual.widgets._footer import FooterKey

    bindings = screen._bindings.key_to_bindings
    for key, found in bindings.items():
        if any(binding.action == action for binding in found):
            bindings[key] = [
                dataclasses.replace(binding, description=description)
                if binding.action == action
                else binding
                for binding in found
            ]
    for shown in screen.query(FooterKey):
        if shown.action == action and shown.description != description:
            wider = len(shown.description) != len(description)
            shown.description = description
            shown.refresh(layout=wider)


def train_view_bindings() -> list[Binding]:
    """The Train view's bindings, from ``KEYS``."""
    return [key_binding(key) for key in KEYS if key.where == TRAIN_VIEW]


def model_view_bindings(*actions: str) -> list[Binding]:
    """The bindings of the model view's keys with these actions (all when none are named)."""
    return [
        key_binding(key)
        for key in KEYS
        if key.where == MODEL_VIEW and (not actions or key.action in actions)
    ]


def decode_view_bindings(*actions: str) -> list[Binding]:
    """The bindings of the decode view's keys with these actions (all when none are named)."""
    return [
        key_binding(key)
        for key in KEYS
        if key.where == DECODE_VIEW and (not actions or key.action in actions)
    ]
