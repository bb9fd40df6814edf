"""Which of the debugger's keys (``KEYS``, tui/keys.py) work here: ``available`` is the
screen's ``check_action``, so that the footer always tells the truth, and ``OFF_BECAUSE`` says why
a key that does not is off, when it is pressed (``why_off``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_tui.core.engine.stages import stage_named
from attn_tui.core.engine.views import mask_rules
from attn_tui.tui.keys import ANYWHERE, KEYS, STAGE

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen


def available(screen: DebuggerScreen, action: str, parameters: tuple[object, ...]) -> bool | None:
    """The debugger's ``check_action``: whether a key works here (False: off, None: shown dimmed),
    so that the footer always tells the truth."""
    session = screen.session
    if action == "undo":  # (with nothing to undo, on_key says so: the footer still tells the truth)
        return session.history.can_undo
    if action == "redo":
        return session.history.can_redo
    if action == "column":
        return screen.keyed
    if action == "out_column":  # ([ and ] are bound to both: the one that works here runs)
        return not screen.keyed and screen.column_count > 1
    if action == "toggle_theirs":
        return screen.comparing
    if action == "reveal":
        return screen.revealable() or screen.lessons.reveal_pending()
    if action in ("next_beat", "previous_beat"):
        return screen.lessons.player is not None
    if action == "follow":
        return screen.lessons.follower is not None
    if action in ("reveal_class", "class_projector"):
        return screen.lessons.lead is not None and screen.lessons.lead.beat() is not None
    if action in ("next_head", "all_heads"):
        return session.scenario.heads > 1
    if action == "cycle_mask":
        return screen.described.arithmetic.masks and len(mask_rules(session)) > 1
    if action == "goto":
        return parameters[0] <= len(screen.stages) if parameters else True
    if (
        action == "toggle"
    ):  # a stage's key, dimmed where the stage cannot be on (the key says why not)
        stage = stage_named(parameters[0])
        on = stage.name in session.scenario.stage_settings
        return True if on or not stage.turned_on.toggle.unavailable(session.scenario) else None
    if action in ("train", "check_gradient"):
        from attn_tui.core.engine.stages.backward_steps import loss

        setting = loss(session.scenario)
        return setting is not None and (
            setting.train is not None if action == "train" else setting.target is not None
        )
    return True


# Why a key is off in this scenario, said in the bar when it is pressed: a key that does nothing
# silently looks broken. The footer hides such a key (``available`` returns False, which also stops
# its binding): the key then reaches the screen's on_key, which says the sentence (``why_off``).
OFF_BECAUSE = {
    "no_loss": "v: this scenario has no loss to check a gradient of "
    "(add a `loss: {target: …}` section)",
    "no_train": "t: this scenario has no training "
    "(add a `train:` section, with a `loss:` to learn from)",
    "one_head_h": "h: this scenario has one head: there is no other to switch to",
    "one_head_a": "a: this scenario has one head: there are no heads to lay side by side",
    "no_lesson": "{key}: this scenario has no lesson "
    "(add a `lesson:` section, or open a built-in one)",
    "not_following": "f: not following a teacher (attn-tui SCENARIO --join follows a class)",
    "no_mask": "m: this scenario masks nothing: there are no mask rules to cycle",
    "one_rule": "m: this scenario's mask has one rule ({rule}): there is nothing to cycle",
    "not_mask_step": "m: cycles the mask's rules at a step that draws the mask (Mask): "
    "this step is {step}",
}


def why_off(screen: DebuggerScreen, key: str) -> str | None:
    """The sentence for ``key`` pressed where its action is off here (``available`` is False),
    or None: the key works, is not one of the debugger's, or is off for a reason the footer
    shows."""
    found = next(
        (
            entry
            for entry in KEYS
            if key in entry.keys.split(",") and entry.action and entry.where in (STAGE, ANYWHERE)
        ),
        None,
    )
    if found is None or available(screen, found.action, ()) is not False:
        return None
    session = screen.session
    if found.action == "check_gradient":
        return OFF_BECAUSE["no_loss"]
    if found.action == "train":
        return OFF_BECAUSE["no_train"]
    if found.action == "next_head":
        return OFF_BECAUSE["one_head_h"]
    if found.action == "all_heads":
        return OFF_BECAUSE["one_head_a"]
    if found.action in ("next_beat", "previous_beat"):
        return OFF_BECAUSE["no_lesson"].format(key=key)
    if found.action == "follow":
        return OFF_BECAUSE["not_following"]
    if found.action == "cycle_mask":
        rules = session.attention.visibility.rules
        if not rules:
            return OFF_BECAUSE["no_mask"]
        if len(rules) == 1:
            return OFF_BECAUSE["one_rule"].format(rule=rules[0])
        return OFF_BECAUSE["not_mask_step"].format(step=screen.described.title)
    return None
