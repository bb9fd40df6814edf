"""The dialogs around files: saving (and where to), a file changed on disk, and the unsaved
edits an earlier session left behind. The decisions are the core Session's; this module only
asks the user and tells them what happened."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from attn_tui.core.errors import ScenarioError
from attn_tui.core.editing.recovery import UnreadableCopy
from attn_tui.core.editing.session import DiskChanged, NeedsRewrite, SaveError
from attn_tui.tui.screens.choice import ChoiceScreen
from attn_tui.tui.screens.save_as import SaveAsScreen
from attn_tui.tui.text import tell

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen


class Saving:
    """Save, Save As and recovery, for one debugger screen."""

    def __init__(self, screen: DebuggerScreen) -> None:
        self.screen = screen

    @property
    def session(self):
        return self.screen.session

    def save(self, then=None) -> None:
        if not self.screen.flush_editor():
            return
        if self.session.read_only:
            self.save_as(then)
            return
        self._save(None, False, then)

    def save_as(self, then=None) -> None:
        if not self.screen.flush_editor():
            return
        path = self.session.scenario.path
        suggestion = os.path.basename(path) if path and self.session.read_only else (path or "scenario.yaml")

        def chosen(target: str | None) -> None:
            if target:
                self._save(target, False, then)

        self.screen.app.push_screen(SaveAsScreen(suggestion), chosen)

    def _save(self, path: str | None, force: bool, then=None, rewrite: bool = False) -> None:
        try:
            written = self.session.save(path, force=force, rewrite=rewrite)
        except NeedsRewrite as layout:
            self._ask(f"{layout}.\nWrite the file whole (every number kept)?", ("rewrite", "Rewrite"),
                      lambda: self._save(path, force, then, rewrite=True), then)
            return
        except DiskChanged as conflict:
            self._ask(f"{conflict}.\nOverwrite it with your version?", ("overwrite", "Overwrite"),
                      lambda: self._save(path, True, then, rewrite), then)
            return
        except (SaveError, ScenarioError) as error:
            tell(self.screen, str(error), title="Not saved", severity="error", timeout=10)
            return
        served = " · ctrl+p Download takes it to your browser" if self.session.save_root else ""
        tell(self.screen, f"Saved {written}{served}", timeout=5 if served else 3)
        self.screen.after_change()
        if then is not None:
            then()

    def _ask(self, question: str, go_ahead: tuple[str, str], then_go_ahead, then=None) -> None:
        """Ask before a save that would lose something: go ahead, Save as…, or Cancel (the default)."""
        def decided(choice: str | None) -> None:
            if choice == go_ahead[0]:
                then_go_ahead()
            elif choice == "save_as":
                self.save_as(then)

        self.screen.app.push_screen(ChoiceScreen(question, [go_ahead, ("save_as", "Save as…"), ("cancel", "Cancel")],
                                                 default="cancel"), decided)

    def offer_recovery(self) -> None:
        """If an earlier session left unsaved edits for this scenario, offer them back."""
        try:
            found = self.session.pending_recovery()
        except UnreadableCopy as refused:  # planted or damaged: said, left alone, and the app goes on
            tell(self.screen, str(refused), severity="warning", timeout=10)
            return
        if found is None or not found.edits:
            return
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(found.saved_at))
        changed = ("\nThe file has changed since; the edits set their values again on top of it."
                   if found.file_changed else "")
        count = found.count

        def decided(choice: str | None) -> None:
            if choice == "discard":
                self.session.discard_recovery()
                tell(self.screen, "Unsaved edits from the earlier session discarded", timeout=3)
                return
            skipped = self.session.restore(found)  # Esc restores too: it loses nothing, and u undoes
            self.screen.after_change()
            if not skipped:
                tell(self.screen, f"Restored {count} unsaved edit{'s' if count > 1 else ''} (u undoes them)",
                     timeout=4)
                return
            # the reasons quote the copy, which may hold anything: tell() shows them as plain text
            tell(self.screen, f"Restored {count - len(skipped)} of {count} unsaved edits; skipped, as they "
                              "do not fit the file now: " + "; ".join(skipped), severity="warning", timeout=15)

        self.screen.app.push_screen(ChoiceScreen(
            f"{self.screen.where} has {count} unsaved edit{'s' if count > 1 else ''} from {when}, kept "
            f"when attn-tui last stopped without saving.{changed}\nRestore them?",
            [("restore", "Restore"), ("discard", "Discard")]), decided)
