"""The attn-tui App: a shell around one DebuggerScreen (or the chooser) with quit, help, the
command palette, and the theme and palette it remembers."""

from __future__ import annotations

import gc
import io
import os
import time
from typing import TYPE_CHECKING, Callable, Iterable

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.markup import escape
from textual.screen import Screen

from attn_tui.core.loading import catalog
from attn_tui.core.text import visible
from attn_tui.tui.settings import PALETTES, load_settings, save_settings
from attn_tui.tui.text import tell

if TYPE_CHECKING:
    from attn_tui.core.editing.save_root import SaveRoot
    from attn_tui.core.lessons.lesson import Position
    from attn_tui.core.loading.model_index import ModelIndex
    from attn_tui.core.model.scenario import Scenario
    from attn_tui.tui.classroom import Classroom
    from attn_tui.tui.screens.debugger import DebuggerScreen


# Work off the key path (the weights overview, the scan for a leaky mask: seconds of NumPy at a
# large T) waits while the user presses keys, until this long after the last: a key's frame then
# has the processor to itself. (Two apps side by side on two cores, each computing its map: a
# beat at T = 16,384 took 137 ms, and 50 ms with the maps held back.)
INPUT_QUIET = 0.5  # seconds
USER_INPUT = (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)


class AttnApp(App[int]):
    """Step through attention; ``scenario=None`` starts at the chooser of built-ins."""

    CSS_PATH = "app.tcss"
    TITLE = "attn-tui"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(
        self,
        scenario: Scenario | None = None,
        read_only: bool = False,
        save_root: SaveRoot | None = None,
        present: bool = False,
        remember: bool = True,
        classroom: Classroom | None = None,
        index: ModelIndex | None = None,
        start: Position | None = None,
    ) -> None:
        """Open ``scenario`` (or, without one, the chooser of built-ins; or a model ``index``,
        as the model view). ``save_root`` confines saving to a folder (a served app: see
        ``core.editing.save_root``); ``present`` starts in projector mode; ``remember`` reads and
        writes the settings file (tests turn it off); ``classroom`` says whether the scenario's
        lesson is played and the class it follows or leads; ``start`` is where the scenario opens
        (``check --impl --open``: the first wrong stage, row and cell), else at step 1."""
        super().__init__()
        self.classroom = classroom
        self.initial = scenario
        self.start = start
        self.index = index
        self.read_only = read_only
        self.save_root = save_root
        self.present = present
        # a served app starts from the lecturer's settings but writes none: the file is outside
        # its folder, and one student's theme is no other student's
        self.remember = remember and save_root is None
        self.palette_name = PALETTES[0]
        self.settings_notice: str | None = (
            None  # what was wrong with the settings file, told at mount
        )
        if remember:
            settings = load_settings()
            if settings.values.get("theme") in self.available_themes:
                self.theme = settings.values["theme"]
            self.palette_name = settings.values.get("palette", PALETTES[0])
            self.settings_notice = settings.notice
        self.crash: Exception | None = None  # what ended the app, if an exception did
        self.input_at = 0.0  # time.monotonic() of the last key or click

    def get_driver_class(self):
        """Textual's driver for this terminal; on Linux and macOS one whose Esc is not late
        (:mod:`attn_tui.tui.driver`)."""
        from textual.drivers.linux_driver import LinuxDriver

        driver_class = super().get_driver_class()
        if driver_class is LinuxDriver:
            from attn_tui.tui.driver import Driver

            return Driver
        return driver_class

    def _handle_exception(self, error: Exception) -> None:
        """An exception that escapes a handler ends the app, as Textual ends it, but without
        Textual's printed traceback: :func:`run_app` hands the exception to the command line,
        which reports it in one line (the traceback with --debug) once the terminal is back."""
        if self.crash is None:
            self.crash = error
        super()._handle_exception(error)
        self._exit_renderables.clear()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, USER_INPUT):
            self.input_at = time.monotonic()
        await super().on_event(event)

    def after_keys(self, stopped: Callable[[], bool]) -> Callable[[], bool]:
        """For a worker thread's long loop, the check it makes between its pieces: it waits there
        while keys are coming (until INPUT_QUIET after the last), so that each key's frame has
        the processor to itself, then says whether the work was ``stopped`` meanwhile."""

        def check() -> bool:
            while not stopped():
                wait = self.input_at + INPUT_QUIET - time.monotonic()
                if wait <= 0:
                    return False
                time.sleep(min(wait, 0.05))
            return True

        return check

    def on_mount(self) -> None:
        self.set_class(self.palette_name != PALETTES[0], "-colour-blind")
        if self.settings_notice:
            tell(self, self.settings_notice, severity="warning")
        if (
            not self.is_headless
        ):  # (a test process runs hundreds of apps: nothing of theirs is frozen)
            self.set_timer(1.0, _settle_garbage)
        if self.index is not None:
            from attn_tui.tui.screens.model_view import ModelViewScreen

            self.push_screen(ModelViewScreen(self.index))
        elif (
            self.initial is not None
            and self.initial.generated is not None
            and self.classroom is None
            and self.start is None
            and not self.present
        ):  # the tokens a model generated: stepped through first, each row a key away
            from attn_tui.tui.screens.decode_view import DecodeViewScreen

            self.push_screen(DecodeViewScreen(self.initial))
        elif self.initial is not None:
            from attn_tui.tui.screens.debugger import DebuggerScreen

            debugger = DebuggerScreen(self.initial, self.read_only, self.save_root, self.classroom)
            if self.start is not None:
                debugger.place(
                    self.start, stage_column=self.start.column
                )  # (before it mounts: its first frame is there)
            self.call_later(self.push_screen, debugger)
            if self.present:
                self.call_after_refresh(debugger.action_present)
        else:
            from attn_tui.tui.screens.chooser import ChooserScreen

            self.push_screen(ChooserScreen())

    def watch_theme(self, theme: str) -> None:
        if self.remember and self.is_mounted:
            problem = save_settings(theme=theme)
            if problem:
                tell(self, problem, severity="warning")

    def use_palette(self, name: str) -> None:
        """The heat-map palette: the theme's colours, or a colour-blind-safe scale."""
        self.palette_name = name
        self.set_class(name != PALETTES[0], "-colour-blind")
        self.refresh_css()
        if self.remember:
            problem = save_settings(palette=name)
            if problem:
                tell(self, problem, severity="warning")

    @property
    def debugger(self) -> DebuggerScreen | None:
        from attn_tui.tui.screens.debugger import DebuggerScreen

        screens = [screen for screen in self.screen_stack if isinstance(screen, DebuggerScreen)]
        return screens[-1] if screens else None

    def open_scenario(self, scenario: Scenario, read_only: bool = True) -> None:
        """Replace the current scenario (asking first if it has unsaved edits); built-ins are
        opened read-only: saving one asks where to put the copy."""
        from attn_tui.tui.screens.debugger import DebuggerScreen

        self._unless_unsaved(
            lambda: self.switch_screen(DebuggerScreen(scenario, read_only, self.save_root))
        )

    def action_help(self) -> None:
        from attn_tui.tui.screens.help import (
            HelpScreen,  # (when asked: the first frame needs none of it, #30)
        )

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        self._unless_unsaved(lambda: self.exit(0))

    def _unless_unsaved(self, proceed) -> None:
        debugger = self.debugger
        if debugger is not None and not debugger.commit_editing():
            tell(
                self,
                "A cell holds text that is not a number: fix it, or press Esc to drop it.",
                severity="warning",
            )
            return
        if debugger is None or not debugger.session.modified:
            proceed()
            return
        if debugger.session.journal.only_unkept():  # the lesson's edits: the file has them
            debugger.session.journal.discard()
            proceed()
            return

        def decided(choice: str | None) -> None:
            if choice == "save":
                debugger.saving.save(then=proceed)
            elif choice == "discard":
                debugger.session.journal.discard()
                proceed()

        from attn_tui.tui.screens.choice import ChoiceScreen

        self.push_screen(
            ChoiceScreen(
                f"{debugger.file_name} has unsaved edits. Save them first?",
                [("save", "Save"), ("discard", "Discard"), ("cancel", "Cancel")],
            ),
            decided,
        )

    def download_scenario(self) -> None:
        """Hand the scenario as last saved (and any data file it reads) to the browser, which
        textual-serve turns into downloads. Only offered in a served app: in a terminal,
        Textual would write a copy to ~/Downloads."""
        from attn_tui.core import ScenarioError
        from attn_tui.core.editing.save_root import download_name
        from attn_tui.core.loading.scenario_file import read_text
        from attn_tui.core.reading.files import named_files

        session = self.debugger.session
        path = session.saved.path
        try:
            data = read_text(path).encode("utf-8")  # bounded, and only a regular file
        except ScenarioError as error:
            tell(self, str(error), title="Not downloaded", severity="error")
            return
        self.deliver_binary(
            io.BytesIO(data), save_filename=download_name(path), mime_type="application/yaml"
        )
        # every file the text names (the bias's, the mask's, expect's too, not only the inputs')
        for ref in (
            named_files(session.saved.source, path) if session.saved.source is not None else ()
        ):
            if os.path.isfile(ref):
                self.deliver_binary(
                    ref, save_filename=download_name(ref), mime_type="application/octet-stream"
                )
        unsaved = (
            " (as last saved: ctrl+s first to take your unsaved edits too)"
            if session.modified
            else ""
        )
        tell(self, f"Sent {download_name(path)} to your browser{unsaved}", timeout=5)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from functools import partial

        from attn_tui.core import load
        from attn_tui.core.engine.stages import toggled
        from attn_tui.tui.keys import KEYS, OTHER_SCREENS
        from attn_tui.tui.screens.debugger import DebuggerScreen

        debugger = screen if isinstance(screen, DebuggerScreen) else None
        if debugger is not None:
            for number, stage in enumerate(debugger.stages, 1):
                yield SystemCommand(
                    f"Step to {number} {stage.title}",
                    stage.display.heading(
                        debugger.session.scenario, debugger.session.attention.options
                    ),
                    lambda n=number: debugger.action_goto(n),
                )
            for h, name in enumerate(
                debugger.session.scenario.head_names if debugger.session.scenario.heads > 1 else ()
            ):
                # the palette reads a title as markup: a head's name is outside text
                yield SystemCommand(
                    f"Show {escape(visible(name))}",
                    "every stage of this head (h cycles)",
                    lambda h=h: setattr(debugger, "head", h),
                )
            for key in KEYS:  # the screen's commands (not the moves: those are keys, not commands)
                if (
                    key.where not in OTHER_SCREENS
                    and key.action.isidentifier()
                    and key.action not in ("goto_key", "last_step")
                    and debugger.check_action(key.action, ())
                ):
                    yield SystemCommand(
                        key.does[0].upper() + key.does[1:],
                        f"key: {key.shown}",
                        getattr(debugger, f"action_{key.action}"),
                    )
            yield SystemCommand(
                "Save as…", "Save the scenario to another file", debugger.action_save_as
            )
            for stage in toggled():  # the stages a person turns on and off (their keys take a name)
                if not debugger.check_action("toggle", (stage.name,)):
                    continue
                hint = f"; key: {stage.turned_on.toggle.key}" if stage.turned_on.toggle.key else ""
                for title, does, setting in stage.turned_on.toggle.offers(
                    debugger.session.scenario
                ):
                    yield SystemCommand(
                        title,
                        does + hint,
                        partial(debugger.changes.switch_stage, stage.name, setting),
                    )
            if self.save_root is not None and debugger.session.saved.path:  # served: in a browser
                yield SystemCommand(
                    "Download the scenario",
                    "the file as last saved, to this browser's downloads",
                    self.download_scenario,
                )
            if debugger.session.predictions is not None:
                yield SystemCommand(
                    "Keep predictions as expect:",
                    "Your guesses become the scenario's expect: (then save)",
                    debugger.action_keep_predictions,
                )
        for name in PALETTES:
            if name != self.palette_name:
                yield SystemCommand(
                    f"Heat-map palette: {name}",
                    "colours of the matrices (remembered)",
                    lambda name=name: self.use_palette(name),
                )
        for builtin in catalog.builtins():
            yield SystemCommand(
                f"Open built-in: {builtin.name}",
                load(builtin.path).title,
                lambda path=builtin.path: self.open_scenario(load(path)),
            )
        yield SystemCommand("Help", "Every key (?)", self.action_help)
        # Textual's own, less the second key help ("Keys") and Maximize, which only confuses the
        # panes' layout; its Screenshot writes where ctrl+t is the app's own, so it goes too
        yield from (
            command
            for command in super().get_system_commands(screen)
            if command.title not in ("Keys", "Maximize", "Minimize", "Screenshot")
        )


def run_app(
    scenario: Scenario | None,
    read_only: bool = False,
    save_root: SaveRoot | None = None,
    present: bool = False,
    classroom: Classroom | None = None,
    index: ModelIndex | None = None,
    start: Position | None = None,
) -> int:
    """Run the app in the terminal (on the chooser without a scenario); returns the exit status.

    If the app crashed, the exception that ended it is raised here, after Textual has given the
    terminal back (recovery copies of unsaved edits stay where they are)."""
    app = AttnApp(
        scenario, read_only, save_root, present, classroom=classroom, index=index, start=start
    )
    result = app.run()
    if app.crash is not None:
        raise app.crash
    return result or 0


def _settle_garbage() -> None:
    """Once the app is up, set aside what it was built of (modules, widgets, styles) so that
    the collector stops scanning it: a full collection of all of it took ~43 ms, in 2 of 40
    keys at 8 heads (after: one of 3 ms)."""
    gc.collect()
    gc.freeze()
    gc.enable()  # (off since the command started: tui.cli.main)
