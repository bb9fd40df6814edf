"""The Train view's steps worked out ahead: the next step of every run is worked out on a
thread while the user reads this one, so that Space only shows it (a step at T = 1024 is ~60 ms
of arithmetic), and while running the thread works out a tick's worth of steps between two
frames. A part of TrainScreen (tui/screens/train.py), kept apart as the one concern it is."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from attn_tui.core.engine.training import Ahead, Run, State
from attn_tui.core.text import visible
from attn_tui.tui.text import tell

TICK_BUDGET = 0.03  # seconds of steps the thread works out between two frames while running


class StepsAhead:
    """Mixed into TrainScreen, which holds ``runs``, ``setting``, ``running``, ``version``, the
    timer of a run (``_timer``), the thread's pool and what it works on (``_pool``, ``_ahead``,
    ``_running_ahead``), whether it was left (``_left``), and shows what it has (``show``)."""

    def _unfinished(self) -> list[Run]:
        return [run for run in self.runs if not run.done]

    def _step_all(self) -> bool:
        """One step of every run not yet at its last; False when a step was refused."""
        for number, run in enumerate(self.runs):
            if run.done:
                continue
            base, pending = self._ahead.pop(number, (None, None))
            try:
                if base is run.state:
                    run.take(pending.result())  # (worked out, or being: no longer than anew)
                else:
                    if pending is not None:
                        pending.cancel()
                    run.step()
            except ArithmeticError as error:
                self._pause()
                tell(self, f"{visible(run.name) or 'the run'}: {error}")
                return False
        self.version += 1
        return True

    def _run_ahead(self) -> None:
        """While running: the next steps of every run, worked out on the thread for a tick's
        time (the key that pauses is handled at once, not after the steps: a step of three runs
        at T = 512 is ~33 ms)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="train-ahead")
        stop = threading.Event()
        states = [None if run.done else run.state for run in self.runs]
        self._running_ahead = (stop, self._pool.submit(self._steps_ahead, states, stop))

    def _steps_ahead(self, states: list[State | None], stop: threading.Event) -> list[list[Ahead]]:
        """(On the thread.) The steps after ``states``, every run in step, for TICK_BUDGET or
        until ``stop`` or a refusal; at least one step."""
        started = time.perf_counter()
        steps: list[list[Ahead]] = [[] for _ in states]
        total = self.setting.steps
        while True:
            for number, run in enumerate(self.runs):
                state = states[number]
                if state is None or state.step >= total:
                    continue
                ahead = run.ahead(state)
                steps[number].append(ahead)
                if ahead.error is not None:
                    return steps
                states[number] = ahead.state
            if (
                stop.is_set()
                or time.perf_counter() - started >= TICK_BUDGET
                or all(state is None or state.step >= total for state in states)
            ):
                return steps

    def _tick(self) -> None:
        """While running: take the steps the thread has worked out, if it has, and show them."""
        if self._running_ahead is None or not self._running_ahead[1].done():
            return  # (paused since, or the thread still at it)
        pending = self._running_ahead[1]
        for run, steps in zip(self.runs, pending.result()):
            for ahead in steps:
                try:
                    run.take(ahead)
                except ArithmeticError as error:
                    self._pause()
                    tell(self, f"{visible(run.name) or 'the run'}: {error}")
                    break
        self.version += 1
        if not self._unfinished():
            self._pause()
        if self.running:
            self._run_ahead()
        self.show()

    def _pause(self) -> None:
        self.running = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._running_ahead is not None:  # (steps being worked out stop after the one at hand)
            self._running_ahead[0].set()
            self._running_ahead = None

    def _look_ahead(self) -> None:
        """Work out each run's next step on a thread, once this frame is drawn."""
        if self._left:
            return
        for number, run in enumerate(self.runs):
            base, pending = self._ahead.get(number, (None, None))
            if base is run.state or run.done or self.running:
                continue
            if pending is not None:
                pending.cancel()
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="train-ahead")
            self._ahead[number] = (run.state, self._pool.submit(run.ahead, run.state))
