"""Every key of the app, declared once: the debugger's bindings, the footer, the help screen,
docs/keys.md's table and the monkey test's key list are all made from ``KEYS``; ``available``
says which work here, and ``OFF_BECAUSE`` why a key that does not is off.

A key belongs to a place (where it works) and a group (how help orders it). Keys of the input
matrices and of the cell editor are handled by those widgets themselves (in the order they
arrive), so they are not bindings of the screen, but they are listed here all the same.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.binding import Binding

from attn_tui.core.engine.stages import stage_named, step_keys, toggled
from attn_tui.core.engine.views import mask_rules

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen

STAGE, INPUT, EDITOR, ANYWHERE = "stage view", "input matrix", "a cell being edited", "anywhere"
MODEL_VIEW = "model view"  # the grid of layers × heads an index opens: its own screen's keys
TRAIN_VIEW = "train view"  # attention learning its weights (t): its own screen's keys
OTHER_SCREENS = (MODEL_VIEW, TRAIN_VIEW)  # keys of screens of their own, not the debugger's


@dataclass(frozen=True)
class Key:
    keys: str  # Textual's names, comma-separated: "u,ctrl+z"
    shown: str  # as a person reads them: "u  ctrl+z"
    does: str  # what help says
    where: str = ANYWHERE
    action: str = ""  # the screen's action; empty for keys a widget handles itself
    footer: str = ""  # the footer's word for it (shown there when set)
    group: str = ""  # the footer's group: keys with one group share one footer entry


# The digits that jump to steps 1, 2, …: 1 … 9, then 0 for a tenth (as many as the registry's
# stages); a scenario with more steps reaches the rest with g or the palette.
STEP_KEYS = step_keys()
_DIGITS_SHOWN = f"1 … {STEP_KEYS[min(len(STEP_KEYS), 9) - 1]}" + (
    ", 0" if len(STEP_KEYS) > 9 else ""
)

KEYS: tuple[Key, ...] = (
    Key("left", "←", "step back", STAGE, "step(-1)", "Step", "step"),
    Key("right", "→", "step on", STAGE, "step(1)", "Step", "step"),
    Key("home", "Home", "first step", STAGE, "goto(1)"),
    Key("end", "End", "last step", STAGE, "last_step"),
    Key(
        ",".join(STEP_KEYS),
        _DIGITS_SHOWN,
        "jump to a step (as many as the scenario has; g or the palette: any step by name)",
        STAGE,
        "goto_key",
    ),
    Key("up", "↑", "the query row above", STAGE, "row(-1)", "Row", "row"),
    Key("down", "↓", "the query row below", STAGE, "row(1)", "Row", "row"),
    Key("pageup", "PgUp", "a page of rows up", STAGE, "page(-1)"),
    Key("pagedown", "PgDn", "a page of rows down", STAGE, "page(1)"),
    Key(
        "left_square_bracket",
        "[",
        "the key column to the left (at online softmax: the tile)",
        STAGE,
        "column(-1)",
        "Key",
        "column",
    ),
    Key(
        "right_square_bracket",
        "]",
        "the key column to the right",
        STAGE,
        "column(1)",
        "Key",
        "column",
    ),
    Key(
        "left_square_bracket",
        "[",
        "at a stage whose columns are not keys (Weighted sum, Project, a "
        "gradient): the column to the left, the one the Why pane explains",
        STAGE,
        "out_column(-1)",
        "Column",
        "out_column",
    ),
    Key(
        "right_square_bracket",
        "]",
        "at such a stage: the column to the right",
        STAGE,
        "out_column(1)",
        "Column",
        "out_column",
    ),
    Key("g", "g", "go to a row and column (a token or a number)", STAGE, "go_to"),
    Key("x", "x", "unfold / fold long sums in the explanation", STAGE, "expand"),
    Key(
        "z",
        "z",
        "zoom: the inputs hidden, the stage and the Why pane take the width (many keys); "
        "z or Tab brings them back",
        STAGE,
        "zoom",
        "Zoom",
    ),
    Key("h", "h", "the next head (multi-head scenarios)", STAGE, "next_head", "Head"),
    Key("a", "a", "all heads side by side; Enter there picks one", STAGE, "all_heads", "All heads"),
    Key("m", "m", "cycle the mask shown: all rules, then each rule alone", STAGE, "cycle_mask"),
    *(
        Key(
            stage.toggle.key,
            stage.toggle.key,
            stage.toggle.does,
            STAGE,
            f"toggle({stage.name!r})",
            stage.toggle.footer,
        )
        for stage in toggled()
        if stage.toggle.key
    ),
    Key(
        "p",
        "p",
        "projector mode: the focus row large; p or Esc leaves",
        STAGE,
        "present",
        "Projector",
    ),
    Key(
        "t",
        "t",
        "train: the Train view, attention learning its weights (a scenario with train:)",
        STAGE,
        "train",
        "Train",
    ),
    Key("enter", "Enter", "at a stage to predict: open a guess in the cell", STAGE),
    Key(
        "r",
        "r",
        "reveal the predicted row (each guess ✓ within 0.05, or ✗), or the beat's answer",
        STAGE,
        "reveal",
        "Reveal",
    ),
    Key(
        "y",
        "y",
        "show the student's own values (expect:) or attention's",
        STAGE,
        "toggle_theirs",
        "Yours/ours",
    ),
    Key(
        "tab",
        "Tab  shift+Tab",
        "move between the input matrices and the stage view",
        ANYWHERE,
        "next_pane(1)",
        "Inputs",
    ),
    Key("arrows", "arrows  Home End", "move the cell cursor; first / last column", INPUT),
    Key("pageup,pagedown", "PgUp PgDn", "a page of rows", INPUT),
    Key(
        "enter,e", "Enter  e", "edit the cell: the old value is selected, typing replaces it", INPUT
    ),
    Key("0-9", "a digit", "start editing the cell afresh with that digit", INPUT),
    Key(
        "plus,minus", "+  -", "nudge the cell by 0.1 (type a negative number with Enter, -)", INPUT
    ),
    Key("escape", "Esc", "back to the stage view", INPUT),
    Key("enter", "Enter", "commit (text that is not a finite number is refused, kept)", EDITOR),
    Key("tab", "Tab", "commit and move to the next cell", EDITOR),
    Key("escape", "Esc", "cancel: the old value stays", EDITOR),
    Key("ctrl+u", "ctrl+u", "clear the text", EDITOR),
    Key("c", "c", "toggle the causal mask", ANYWHERE, "toggle_causal", "Causal"),
    Key(
        "s",
        "s",
        "cycle the scaling: ÷√d_k, none, the file's own divisor",
        ANYWHERE,
        "cycle_scale",
        "Scale",
    ),
    Key(
        "u,ctrl+z",
        "u  ctrl+z",
        "undo (edits and option changes alike)",
        ANYWHERE,
        "undo",
        "Undo",
        "history",
    ),
    Key("U,ctrl+y", "U  ctrl+y", "redo", ANYWHERE, "redo", "Redo", "history"),
    Key(
        "v",
        "v",
        "check a gradient: the input cell under the cursor nudged by ±ε, (L(x+ε) − L(x−ε))/2ε "
        "beside dL/dx (a scenario with loss: {target: …})",
        ANYWHERE,
        "check_gradient",
        "Check ∂L",
    ),
    Key(
        "n",
        "n",
        "the lesson's next beat (and back to its script after exploring)",
        ANYWHERE,
        "next_beat",
        "Next beat",
    ),
    Key("N", "N", "the lesson's previous beat (its edits undone)", ANYWHERE, "previous_beat"),
    Key(
        "f",
        "f",
        "following a teacher: leave, or rejoin at the teacher's beat",
        ANYWHERE,
        "follow",
        "Follow",
    ),
    Key(
        "R",
        "R",
        "leading a class, at a predict beat: reveal the answer to every follower",
        ANYWHERE,
        "reveal_class",
        "Reveal to class",
    ),
    Key(
        "D",
        "D",
        "leading a class, at a predict beat: the class's answers on the projector (p's view)",
        ANYWHERE,
        "class_projector",
        "Class answers",
    ),
    Key(
        "ctrl+r",
        "ctrl+r",
        "record a lesson: moves and edits become beats; again: write them into lesson:",
        ANYWHERE,
        "record",
    ),
    Key(
        "ctrl+s",
        "ctrl+s",
        "save: only changed numbers are rewritten, comments kept",
        ANYWHERE,
        "save",
        "Save",
    ),
    Key(
        "ctrl+p",
        "ctrl+p",
        "command palette: step to…, save as…, heads, themes, open a built-in",
        ANYWHERE,
    ),
    Key("ctrl+t", "ctrl+t", "save a screenshot (SVG)", ANYWHERE, "screenshot"),
    Key(
        "F",
        "F",
        "save this step as a figure for slides (SVG heat map; attn-tui figure for more)",
        ANYWHERE,
        "figure",
    ),
    Key(
        "q,ctrl+q",
        "q  ctrl+q",
        "quit (asks first if there are unsaved edits)",
        ANYWHERE,
        "app.quit",
        "Quit",
    ),
    Key("question_mark", "?", "this help (Esc closes it)", ANYWHERE),
    Key("left", "←", "the head to the left", MODEL_VIEW, "move(0,-1)", "Head", "grid"),
    Key("right", "→", "the head to the right", MODEL_VIEW, "move(0,1)", "Head", "grid"),
    Key("up", "↑", "the layer above", MODEL_VIEW, "move(-1,0)", "Layer", "layer"),
    Key("down", "↓", "the layer below", MODEL_VIEW, "move(1,0)", "Layer", "layer"),
    Key("enter", "Enter", "open this layer and head in the debugger", MODEL_VIEW, "open", "Open"),
    Key(
        "s",
        "s",
        "colour each head by a pattern score: none, previous, first, self, local, induction",
        MODEL_VIEW,
        "next_score",
        "Score",
    ),
    Key(
        "escape",
        "Esc",
        "in the debugger opened from the model view: back to the grid",
        MODEL_VIEW,
        "back_to_model",
        "Model view",
    ),
    Key("space", "Space", "one step of every run", TRAIN_VIEW, "step_once", "Step"),
    Key("r", "r", "run (every run to its last step) or pause", TRAIN_VIEW, "run", "Run/pause"),
    Key(
        "u,ctrl+z", "u  ctrl+z", "undo one step of every run", TRAIN_VIEW, "undo_step", "Undo step"
    ),
    Key(
        "left",
        "←",
        "the run to the left (the one Enter keeps)",
        TRAIN_VIEW,
        "choose(-1)",
        "Run",
        "run",
    ),
    Key("right", "→", "the run to the right", TRAIN_VIEW, "choose(1)", "Run", "run"),
    Key(
        "enter",
        "Enter",
        "keep what the chosen run learned in the scenario (one edit: u undoes it)",
        TRAIN_VIEW,
        "keep",
        "Keep",
    ),
    Key("escape", "Esc", "back to the debugger, keeping nothing", TRAIN_VIEW, "leave", "Back"),
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
        bindings.append(
            Binding(
                key.keys,
                key.action,
                key.footer or key.does,
                show=bool(key.footer),
                group=GROUPS.get(key.group),
            )
        )
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
    return [
        Binding(
            key.keys,
            key.action,
            key.footer or key.does,
            show=bool(key.footer),
            group=GROUPS.get(key.group),
        )
        for key in KEYS
        if key.where == TRAIN_VIEW
    ]


def model_view_bindings(*actions: str) -> list[Binding]:
    """The bindings of the model view's keys with these actions (all when none are named)."""
    return [
        Binding(
            key.keys,
            key.action,
            key.footer or key.does,
            show=bool(key.footer),
            group=GROUPS.get(key.group),
        )
        for key in KEYS
        if key.where == MODEL_VIEW and (not actions or key.action in actions)
    ]


HELP_ORDER = (ANYWHERE, STAGE, INPUT, EDITOR, TRAIN_VIEW, MODEL_VIEW)  # what works everywhere first


def help_text() -> list[tuple[str, list[tuple[str, str]]]]:
    """The help screen's sections: (where, [(keys as shown, what they do)])."""
    sections: dict[str, list[tuple[str, str]]] = {where: [] for where in HELP_ORDER}
    for key in KEYS:
        sections[key.where].append((key.shown, key.does))
    return [(where, keys) for where, keys in sections.items() if keys]


def markdown_table() -> str:
    """The table of keys in docs/keys.md (tests/test_readme.py checks it is this)."""
    lines = ["| where | key | what it does |", "| --- | --- | --- |"]
    for where, keys in help_text():
        for number, (shown, does) in enumerate(keys):
            cell = (
                shown.replace("|", "\\|").replace("[", "`[`").replace("]", "`]`")
                if shown in ("[", "]")
                else shown.replace("|", "\\|")
            )
            lines.append(f"| {where if number == 0 else ''} | {cell} | {does} |")
    return "\n".join(lines)


def monkey_keys() -> list[str]:
    """Every key name that does something in the debugger without leaving it (for the monkey
    test): the bindings and the widgets' own keys."""
    names: list[str] = []
    for key in KEYS:
        if key.where in OTHER_SCREENS:
            continue  # another screen's: tests/tui/test_model_view.py, test_tui_train.py press them
        if key.keys in (
            "q,ctrl+q",
            "question_mark",
            "ctrl+s",
            "ctrl+p",
            "ctrl+t",
            "F",
            "ctrl+r",
            "g",
            "a",
            "p",
            "t",
        ):
            continue  # these open other screens or write files: they have tests of their own
        if key.keys == "arrows":
            names += ["up", "down", "left", "right", "home", "end", "ctrl+home", "ctrl+end"]
        elif key.keys == "0-9":
            names += list("0123456789.")
        else:
            names += key.keys.split(",")
    return sorted(set(names) | {"shift+tab", "backspace", "delete"})


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
        return screen.described.masks and len(mask_rules(session)) > 1
    if action == "goto":
        return parameters[0] <= len(screen.stages) if parameters else True
    if (
        action == "toggle"
    ):  # a stage's key, dimmed where the stage cannot be on (the key says why not)
        stage = stage_named(parameters[0])
        on = stage.name in session.scenario.stage_settings
        return True if on or not stage.toggle.unavailable(session.scenario) else None
    if action in ("train", "check_gradient"):
        from attn_tui.core.engine.stages.back_output import loss

        setting = loss(session.scenario)
        return setting is not None and (
            setting.train is not None if action == "train" else setting.target is not None
        )
    return True


# Why a key is off in this scenario, said in the bar when it is pressed (issue 50: they did
# nothing, silently). The footer hides such a key (``available`` returns False, which also stops
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
