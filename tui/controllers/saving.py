"""The dialogs around files: saving (and where to), a file changed on disk, and the unsaved
edits an earlier session left behind. The decisions are the core Session's; this module only
asks the user and tells them what happened."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from attn_tui.core.editing.recovery import UnreadableCopy
from attn_tui.core.editing.session import DiskChanged, NeedsRewrite, SaveError
from attn_tui.core.errors import ScenarioError
from attn_tui.tui.text import tell

if TYPE_CHECKING:
    from attn_tui.tui.screens.debugger import DebuggerScreen

# The restore question appears as the app opens, unasked: keys typed for the debugger in the
# first moments (d toggles Decode, r reveals) must not answer it unseen. Half a second is what
# a reader needs to see that a question came up.
RECOVERY_SETTLE = 0.5


class Saving:
    """Save, Save As and recovery, for one debugger screen."""

    def __init__(self, screen: DebuggerScreen) -> None:
        self.screen = screen

    @property
    def session(self):
        return self.screen.session

    def save(self, then=None) -> None:
        if not self.screen.commit_editing():
            return
        if self.session.read_only:
            self.save_as(then)
            return
        self._save(None, False, then)

    def save_as(self, then=None) -> None:
        if not self.screen.commit_editing():
            return
        path = self.session.scenario.path
        suggestion = (
            os.path.basename(path) if path and self.session.read_only else (path or "scenario.yaml")
        )

        def chosen(target: str | None) -> None:
            if target:
                self._save(target, False, then)

        from attn_tui.tui.screens.save_as import (
            SaveAsScreen,  # (when asked: the first frame needs none of it, #30)
        )

        self.screen.app.push_screen(SaveAsScreen(suggestion), chosen)

    def _save(self, path: str | None, force: bool, then=None, rewrite: bool = False) -> None:
        try:
            written = self.session.save(
                path, force=force, rewrite=rewrite, leave_out=self.session.journal.left_out()
            )
        except NeedsRewrite as layout:
            self._ask(
                f"{layout}.\nWrite the file whole (every number kept)?",
                ("rewrite", "Rewrite"),
                lambda: self._save(path, force, then, rewrite=True),
                then,
            )
            return
        except DiskChanged as conflict:
            self._ask(
                f"{conflict}.\nOverwrite it with your version?",
                ("overwrite", "Overwrite"),
                lambda: self._save(path, True, then, rewrite),
                then,
            )
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
        """Ask before a save that would lose something: go ahead, Save as…, or Cancel (the
        default)."""

        def decided(choice: str | None) -> None:
            if choice == go_ahead[0]:
                then_go_ahead()
            elif choice == "save_as":
                self.save_as(then)

        from attn_tui.tui.screens.choice import (
            ChoiceScreen,  # (when asked: the first frame needs none of it, #30)
        )

        self.screen.app.push_screen(
            ChoiceScreen(
                question,
                [go_ahead, ("save_as", "Save as…"), ("cancel", "Cancel")],
                default="cancel",
            ),
            decided,
        )

    def offer_recovery(self) -> None:
        """If an earlier session left unsaved edits for this scenario, offer them back."""
        try:
            found = self.session.journal.pending()
        except (
            UnreadableCopy
        ) as refused:  # planted or damaged: said, left alone, and the app goes on
            tell(self.screen, str(refused), severity="warning", timeout=10)
            return
        if found is None or not found.edits:
            return
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(found.saved_at))
        changed = (
            "\nThe file has changed since; the edits set their values again on top of it."
            if found.file_changed
            else ""
        )
        count = found.count

        def decided(choice: str | None) -> None:
            if choice == "discard":
                self.session.journal.discard()
                tell(self.screen, "Unsaved edits from the earlier session discarded", timeout=3)
                return
            skipped = self.session.journal.restore(
                found
            )  # Esc restores too: it loses nothing, and u undoes
            self.screen.after_change()
            if not skipped:
                tell(
                    self.screen,
                    f"Restored {count} unsaved edit{'s' if count > 1 else ''} (u undoes them)",
                    timeout=4,
                )
                return
            # the reasons quote the copy, which may hold anything: tell() shows them as plain text
            tell(
                self.screen,
                f"Restored {count - len(skipped)} of {count} unsaved edits; skipped, as they "
                "do not fit the file now: " + "; ".join(skipped),
                severity="warning",
                timeout=15,
            )

        from attn_tui.tui.screens.choice import ChoiceScreen

        self.screen.app.push_screen(
            ChoiceScreen(
                f"{self.screen.file_name} has {count} unsaved "
                f"edit{'s' if count > 1 else ''} from {when}, kept "
                f"when attn-tui last stopped without saving.{changed}\nRestore them?",
                [("restore", "Restore"), ("discard", "Discard")],
                settle=RECOVERY_SETTLE,
                escape="restores too",
            ),
            decided,
        )

    def screenshot(self) -> None:
        """Save what the screen shows as SVG: beside the scenario, or (a built-in, or a folder that
        cannot be written) in the current folder; in a browser, hand it to the browser; in a served
        app, into its save folder."""
        screen = self.screen
        session = screen.session
        path = session.scenario.path
        folder = (
            os.getcwd() if session.read_only or not path else os.path.dirname(os.path.abspath(path))
        )
        stem = os.path.splitext(os.path.basename(path or "scenario"))[0]
        name = f"{stem}-step{screen.step + 1}-{time.strftime('%Y%m%d-%H%M%S')}.svg"
        if screen.app.is_web:  # the student's own machine gets it; nothing is written here
            screen.app.deliver_screenshot(filename=name)
            return
        if session.save_root is not None:
            folder = session.save_root.folder
        try:
            written = screen.app.save_screenshot(filename=name, path=folder)
        except OSError as error:
            tell(
                screen,
                f"Cannot write the screenshot in {folder}: {error.strerror or error}",
                severity="error",
                timeout=8,
            )
            return
        tell(screen, f"Screenshot saved: {written}", timeout=6)

    def figure(self) -> None:
        """Write the focused pane as an SVG figure (core.outputs.figures): an input matrix when
        one has the focus, else the current stage (of the head shown); where ctrl+t's screenshot
        goes: beside the scenario, the current folder for a built-in, a served app's save folder,
        or in a browser its downloads; the bar says where."""
        import io

        from attn_tui.core.outputs.figures.heat_map import FigureError, heat_map
        from attn_tui.core.outputs.figures.inputs import input_map
        from attn_tui.tui.cli.figure import write_file

        screen = self.screen
        session = screen.session
        stage = screen.described
        head = screen.head if stage.arithmetic.per_head else 0
        shown = next(
            (name for name, view in screen.input_views.items() if view is screen.focused), None
        )
        predictions = session.predictions
        if (
            shown is None
            and predictions is not None
            and predictions.hidden_rows(stage.name, head).any()
        ):
            tell(
                screen,
                "No figure of this step yet: it would give a prediction away (reveal it first)",
                severity="warning",
                timeout=8,
            )
            return
        try:
            if (
                shown is not None
            ):  # (of a per-head input, the head its pane shows: panes.show_inputs)
                text = input_map(
                    session.scenario, shown, getattr(screen.focused, "head", None) or 0
                )
            else:
                text = heat_map(session.attention, stage.key, head)
        except FigureError as error:
            tell(screen, f"No figure of this step: {error}", severity="warning", timeout=8)
            return
        path = session.scenario.path
        folder = (
            os.getcwd() if session.read_only or not path else os.path.dirname(os.path.abspath(path))
        )
        stem = os.path.splitext(os.path.basename(path or "scenario"))[0]
        name = f"{stem}-{shown or stage.key}-{time.strftime('%Y%m%d-%H%M%S')}.svg"
        data = text.encode("utf-8")
        if screen.app.is_web:  # as the screenshot: the student's own machine gets it
            screen.app.deliver_binary(
                io.BytesIO(data), save_filename=name, mime_type="image/svg+xml"
            )
            tell(screen, f"Figure sent to this browser's downloads: {name}", timeout=6)
            return
        if session.save_root is not None:
            folder = session.save_root.folder
        written = os.path.join(folder, name)
        for again in range(2, 1000):  # (two in the same second: the second beside the first)
            if not os.path.lexists(written):
                break
            written = os.path.join(folder, name.replace(".svg", f"-{again}.svg"))
        try:
            write_file(written, data)
        except OSError as error:
            tell(
                screen,
                f"Cannot write the figure in {folder}: {error.strerror or error}",
                severity="error",
                timeout=8,
            )
            return
        tell(screen, f"Figure saved: {written}", timeout=6)


def file_name(session) -> str:
    """The file as the header and messages name it: its path (relative where shorter), or a
    built-in's, a served file's or a read-only file's name."""
    path = session.scenario.path
    if path is None:
        return "(no file)"
    if session.read_only:
        from attn_tui.core.loading.catalog import is_builtin

        # (read-only and neither: check --impl --open's scenario, holding the student's numbers)
        kind = (
            "served"
            if session.save_root is not None
            else "built-in"
            if is_builtin(path)
            else "read-only"
        )
        return f"{os.path.splitext(os.path.basename(path))[0]} ({kind})"
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else path
