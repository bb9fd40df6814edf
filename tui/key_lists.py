"""The lists of keys made from ``KEYS`` (tui/keys.py) for reading rather than pressing: the help
screen's sections, docs/keys.md's table, and the keys the monkey test presses."""

from __future__ import annotations

from attn_tui.tui.keys import (
    ANYWHERE,
    DECODE_VIEW,
    EDITOR,
    INPUT,
    KEYS,
    MODEL_VIEW,
    OTHER_SCREENS,
    STAGE,
    TRAIN_VIEW,
)

# what works everywhere first
HELP_ORDER = (ANYWHERE, STAGE, INPUT, EDITOR, TRAIN_VIEW, MODEL_VIEW, DECODE_VIEW)


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
