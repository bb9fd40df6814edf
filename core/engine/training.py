"""Attention learning its weights: gradient descent on the scenario's loss, a step at a time.

``train: {learn: [Wq, Wk], lr: 0.1, steps: 200}`` moves the named inputs by −lr·gradient each
step (``optimizer: adam``: Adam with PyTorch's defaults, β = (0.9, 0.999), ε = 1e-8, written in
the order ``torch.optim.Adam`` computes it). A :class:`Run` keeps every state it passed through,
so a step can be undone exactly; ``--json``'s ``training`` and the app's Train view read it.
A step can be worked out ahead (:meth:`Run.ahead`, on another thread: the Train view does while
the user reads the last one) and taken when asked for (:meth:`Run.take`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from attn_tui.core.engine.attention import Attention
from attn_tui.core.engine.stages.backward_steps import loss
from attn_tui.core.model.options import Options
from attn_tui.core.model.scenario import Scenario

UNDO_BYTES = 256 << 20  # a run keeps the states it passed through for undo up to this much
BETAS = (0.9, 0.999)
EPS = 1e-8


@dataclass(frozen=True)
class State:
    """One point of a run: the scenario's inputs as they are, its loss, Adam's moments."""

    scenario: Scenario
    loss: float
    moments: dict = field(default_factory=dict)  # name → (m, v), for Adam
    step: int = 0


@dataclass(frozen=True)
class Ahead:
    """The step after ``base``, worked out before it was asked for: the state it leads to and
    that state's attention, or the error that refuses it."""

    base: State
    state: State | None
    attention: Attention | None
    error: ArithmeticError | None = None


class Run:
    """One training run of a scenario under one set of options (its own, or a variant's)."""

    def __init__(
        self,
        scenario: Scenario,
        options: Options | None = None,
        name: str = "",
        keep: int | None = None,
    ) -> None:
        """``keep``: how many states to keep for undo (None: as many as ``UNDO_BYTES`` holds)."""
        setting = loss(scenario)
        if setting is None or setting.train is None:
            raise ValueError(
                "this scenario has no train: (train: {learn: [...], lr: 0.1, steps: 100})"
            )
        self.setting = setting.train
        self.options = options
        self.name = name
        self._attention = Attention(scenario, options)
        self.states = [State(scenario, self._attention.backward.loss())]
        self.losses = [self.states[0].loss]  # every step's, however many states are kept
        if keep is None:
            each = sum(scenario.inputs[name].nbytes for name in self.setting.learn)
            each *= 3 if self.setting.optimizer == "adam" else 1
            keep = max(2, UNDO_BYTES // max(1, each))
        self.keep = keep

    @property
    def state(self) -> State:
        return self.states[-1]

    @property
    def scenario(self) -> Scenario:
        return self.state.scenario

    @property
    def done(self) -> bool:
        """Whether the run has taken its ``steps`` steps."""
        return self.state.step >= self.setting.steps

    @property
    def attention(self) -> Attention:
        """The current state's attention (its weights, its gradients), computed once."""
        if self._attention is None or self._attention.scenario is not self.scenario:
            self._attention = Attention(self.scenario, self.options)
        return self._attention

    def learned(self) -> dict[str, np.ndarray]:
        return {name: self.scenario.inputs[name] for name in self.setting.learn}

    def step(self) -> State:
        """One step of gradient descent (or Adam); a step that would leave float64's range is
        refused (ArithmeticError), the run staying where it was."""
        return self.take(self._ahead(self.state, self.attention))

    def ahead(self, state: State) -> Ahead:
        """The step after ``state`` (this run's now), worked out but not taken. It reads only
        that state (its arrays are read-only) and makes its own Attention, so it may run on
        another thread while this run is drawn; :meth:`take` takes it if the run is still there."""
        return self._ahead(state, Attention(state.scenario, self.options))

    def take(self, ahead: Ahead) -> State:
        """Take a step worked out by :meth:`ahead` (ValueError if the run has moved since;
        the ArithmeticError of a refused step)."""
        if ahead.base is not self.state:
            raise ValueError("that step was worked out from another state of the run")
        if ahead.error is not None:
            raise ahead.error
        self.states.append(ahead.state)
        if (
            len(self.states) > self.keep
        ):  # the oldest state goes: undo reaches back self.keep − 1 steps
            del self.states[0]
        self.losses.append(ahead.state.loss)
        self._attention = ahead.attention
        return self.state

    def _ahead(self, state: State, attention: Attention) -> Ahead:
        try:
            with np.errstate(all="ignore"):  # (every number is checked below)
                fresh, following = self._next(state, attention)
        except ArithmeticError as error:
            return Ahead(state, None, None, error)
        return Ahead(state, fresh, following)

    def _next(self, state: State, attention: Attention) -> tuple[State, Attention]:
        """The state after ``state`` (whose attention is ``attention``), and its attention."""
        gradients = attention.backward.inputs()
        inputs = dict(state.scenario.inputs)
        moments = dict(state.moments)
        t = state.step + 1
        lr = self.setting.lr
        for name in self.setting.learn:
            x, g = inputs[name], gradients[name]
            if not np.all(np.isfinite(g)):
                raise ArithmeticError(
                    f"step {t}: the gradient of {name} left float64's range: lower lr "
                    f"(it is {lr:g})"
                )
            if self.setting.optimizer == "adam":
                m, v = moments.get(name, (np.zeros_like(x), np.zeros_like(x)))
                m = BETAS[0] * m + (1 - BETAS[0]) * g
                v = BETAS[1] * v + (1 - BETAS[1]) * (g * g)
                moments[name] = (m, v)
                correction1, correction2 = 1 - BETAS[0] ** t, 1 - BETAS[1] ** t
                denominator = np.sqrt(v) / math.sqrt(correction2) + EPS
                fresh = x - (lr / correction1) * (m / denominator)
            else:
                fresh = x - lr * g
            if not np.all(np.isfinite(fresh)):
                raise ArithmeticError(
                    f"step {t} would take {name} past float64's range: lower lr (it is {lr:g})"
                )
            fresh.flags.writeable = False
            inputs[name] = fresh
        scenario = dataclasses.replace(state.scenario, inputs=inputs)
        following = Attention(scenario, self.options)
        loss = following.backward.loss()
        if not math.isfinite(loss):
            raise ArithmeticError(f"step {t} makes the loss overflow: lower lr (it is {lr:g})")
        return State(scenario, loss, moments, t), following

    def undo(self) -> bool:
        """Back one step; False at the start (or as far back as the states kept reach)."""
        if len(self.states) == 1:
            return False
        self.states.pop()
        del self.losses[self.states[-1].step + 1 :]
        return True

    def run(self, steps: int | None = None) -> None:
        for _ in range((self.setting.steps if steps is None else steps)):
            self.step()


@dataclass(frozen=True)
class Training:
    losses: list[float]
    learned: dict[str, np.ndarray]


def train(scenario: Scenario, options: Options | None = None, steps: int | None = None) -> Training:
    """The scenario's ``train:`` run whole: its losses (steps + 1: before any step, then after
    each) and every learned matrix at the end. A step that would leave float64's range is a
    ``ScenarioError`` at the file's ``lr`` (the learning rate is what to change)."""
    from attn_tui.core.errors import ScenarioError

    run = Run(scenario, options, keep=1)
    try:
        run.run(steps)
    except ArithmeticError as error:
        line, col = run.setting.where
        raise ScenarioError(str(error), line or None, col or None, scenario.display_name) from None
    return Training(run.losses, run.learned())


def runs(scenario: Scenario) -> list[Run]:
    """The scenario's own run and one per variant, each from the same start."""
    found = [Run(scenario)]
    for variant in scenario.variants:
        found.append(Run(scenario, variant.options(scenario.options), variant.name))
    return found


def compared_runs(scenario: Scenario) -> list[Run]:
    """The runs shown side by side (the Train view, ``figure --train``): each variant's, from the
    same start, or the scenario's own when it has none."""
    found = runs(scenario)
    return found[1:] if len(found) > 1 else found


def stalled(losses: list[float]) -> float:
    """The share of the loss a run removed: 1 − last/first (0 if the loss was 0)."""
    return 0.0 if losses[0] == 0 else 1.0 - losses[-1] / losses[0]
