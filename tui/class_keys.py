"""The debugger screen's keys for a class's answers (tui/keys.py: R and D), in a module of its own:
the screen is built of it in every app, while the class's machinery (tui.class_answers, and
core.classroom's tally and judging) loads only in a class."""

from __future__ import annotations


class ClassKeys:
    """The debugger screen's keys for a class's answers (tui/keys.py: R and D)."""

    def action_reveal_class(self) -> None:
        lead = self.lessons.lead
        if lead is not None:
            lead.reveal_to_class()

    def action_class_projector(self) -> None:
        from attn_tui.tui.screens.class_present import ClassPresentScreen

        if self.lessons.lead is not None:
            self.app.push_screen(ClassPresentScreen(self))
