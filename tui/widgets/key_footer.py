"""KeyFooter: the keys that work now, on the screen's last line, as Textual's Footer shows them,
but one widget drawing one line.

Textual's Footer is a widget per key (22 of the debugger's 37 widgets), each styled, laid out
and composed anew whenever the screen's bindings change: most of the cost of starting, of a
lesson's beat (the keys that work change) and of a switch of screens was the footer's. This one
works out its line from the same bindings (the same order, groups, labels and the command
palette's key at the right) and draws it.

The keys are the screen's bindings in their order, and a narrow terminal leaves out the ones at
the end, whole: the debugger puts Help, Save and Quit first
(``tui.key_bindings.screen_bindings``).
Under 100 columns the footer is compact (less space between keys); under 50, ctrl+p's entry goes
too (the key still works, and help lists it), which leaves room for those three at 30 columns.
A click on a key presses it; a key that does not work now is dim, and a click on it rings.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import groupby

from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

COMPACT_BELOW, PALETTE_FROM = 100, 50


@dataclass(frozen=True)
class Entry:
    """One entry of the footer: a key (or a group's keys) and what it does."""

    keys: tuple[tuple[str, str], ...]  # (key, how it is shown), one each, or a group's
    description: str
    enabled: bool


class KeyFooter(Widget):
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
    }
    KeyFooter > .key-footer--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    KeyFooter > .key-footer--description {
        color: $footer-description-foreground;
        background: $footer-description-background;
    }
    KeyFooter > .key-footer--palette {
        color: $foreground 20%;
    }
    """
    COMPONENT_CLASSES = {"key-footer--key", "key-footer--description", "key-footer--palette"}

    def __init__(self) -> None:
        super().__init__()
        self.entries: tuple[Entry, ...] = ()
        self.palette: Entry | None = None
        self._spans: list[tuple[int, int, Entry]] = []  # where each drawn entry is: for clicks

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen) -> None:
        if screen is not self.screen:
            return
        entries, palette = self._entries(screen)
        if (entries, palette) != (self.entries, self.palette):
            self.entries, self.palette = entries, palette
            self.refresh()

    def _entries(self, screen: Screen) -> tuple[tuple[Entry, ...], Entry | None]:
        """The footer's entries, as Textual's Footer works them out: the shown bindings, the
        first of each action; a group of more than one action is its keys and the group's label."""
        active = screen.active_bindings
        by_action: defaultdict[str, list] = defaultdict(list)
        for _node, binding, enabled, _tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled))
        entries = []
        for group, members in groupby(by_action.values(), lambda bindings: bindings[0][0].group):
            firsts = [bindings[0] for bindings in members]
            if group is not None and len(firsts) > 1:
                entries.append(
                    Entry(
                        tuple((b.key, self.app.get_key_display(b)) for b, _ in firsts),
                        group.description,
                        all(enabled for _, enabled in firsts),
                    )
                )
            else:
                entries += [
                    Entry(((b.key, self.app.get_key_display(b)),), b.description, enabled)
                    for b, enabled in firsts
                ]
        palette = None
        if self.app.ENABLE_COMMAND_PALETTE and self.app.COMMAND_PALETTE_BINDING in active:
            _node, binding, enabled, _tooltip = active[self.app.COMMAND_PALETTE_BINDING]
            palette = Entry(
                ((binding.key, self.app.get_key_display(binding)),), binding.description, enabled
            )
        return tuple(entries), palette

    def render(self) -> Text:
        width = self.size.width
        compact = width < COMPACT_BELOW
        key_style = self.get_component_rich_style("key-footer--key")
        description_style = self.get_component_rich_style("key-footer--description")

        def drawn(entry: Entry) -> Text:
            keys = "".join(shown for _, shown in entry.keys)
            text = Text.assemble(
                (keys if compact else f" {keys} ", key_style),
                (
                    f" {entry.description}" if compact else f"{entry.description} ",
                    description_style,
                ),
            )
            if not entry.enabled:
                text.stylize("dim")
            return text

        tail = Text()
        if self.palette is not None and width >= PALETTE_FROM:
            tail = Text.assemble(
                ("▏", self.get_component_rich_style("key-footer--palette")),
                drawn(self.palette),
                " " if compact else "",
            )
        line, self._spans = Text(), []
        gap = " " if compact else ""
        for entry in self.entries:
            text = drawn(entry)
            start = line.cell_len + (len(gap) if line.cell_len else 0)
            if start + text.cell_len > width - tail.cell_len:
                break
            if line.cell_len:
                line.append(gap)
            line.append_text(text)
            self._spans.append((start, start + text.cell_len, entry))
        if tail.cell_len:
            line.pad_right(width - tail.cell_len - line.cell_len)
            self._spans.append((line.cell_len + 1, width, self.palette))
            line.append_text(tail)
        return line

    def on_click(self, event: events.Click) -> None:
        for start, end, entry in self._spans:
            if start <= event.x < end:
                if entry.enabled:
                    self.app.simulate_key(entry.keys[0][0])
                else:
                    self.app.bell()
                return
