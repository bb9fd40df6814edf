"""Every key of the app, declared once: ``KEYS``. The debugger's bindings and the footer
(``tui.key_bindings``), the help screen, docs/keys.md's table and the monkey test's key list
(``tui.key_lists``) are all made from it; ``tui.key_availability`` says which keys work here, and
why a key that does not is off.

A key belongs to a place (where it works) and a group (how help orders it). Keys of the input
matrices and of the cell editor are handled by those widgets themselves (in the order they
arrive), so they are not bindings of the screen, but they are listed here all the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from attn_tui.core.engine.stages import step_keys, toggled

STAGE, INPUT, EDITOR, ANYWHERE = "stage view", "input matrix", "a cell being edited", "anywhere"
MODEL_VIEW = "model view"  # the grid of layers × heads an index opens: its own screen's keys
TRAIN_VIEW = "train view"  # attention learning its weights (t): its own screen's keys
DECODE_VIEW = "decode view"  # the tokens a model generated (generated:): its own screen's keys
OTHER_SCREENS = (MODEL_VIEW, TRAIN_VIEW, DECODE_VIEW)  # screens of their own, not the debugger's


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
            stage.turned_on.toggle.key,
            stage.turned_on.toggle.key,
            stage.turned_on.toggle.does,
            STAGE,
            f"toggle({stage.name!r})",
            stage.turned_on.toggle.footer,
        )
        for stage in toggled()
        if stage.turned_on.toggle.key
    ),
    Key(
        "p",
        "p",
        "projector mode: the focus row large (n, N: the lesson's beats); p or Esc leaves",
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
        "leading a class, at a predict beat: the class's answers on the projector (p's view, "
        "where n and N lead on); D again leaves",
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
    Key("left", "←", "the step before: the token chosen before", DECODE_VIEW, "step(-1)", "Step"),
    Key("right", "→", "the next step: the next token chosen", DECODE_VIEW, "step(1)", "Step"),
    Key("h", "h", "the next head", DECODE_VIEW, "next_head", "Head"),
    Key(
        "enter",
        "Enter",
        "open the row that chose this step's token in the debugger",
        DECODE_VIEW,
        "open",
        "Open",
    ),
    Key(
        "escape",
        "Esc",
        "in the debugger opened from the decode view: back to the steps",
        DECODE_VIEW,
        "back_to_decode",
        "Decode view",
    ),
)
