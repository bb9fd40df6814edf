"""The backward pass's keys: ``loss:`` (what the output should have been) and ``train:`` (which
inputs learn, and how).

``loss: {target: MATRIX}`` gives the output wanted, so L = ½·Σ(output − target)²;
``loss: {grad: MATRIX}`` gives dL/d(output) itself (a course's "suppose the layer above sends
back this gradient"), and L is then unknown. Either matrix has the final output's shape:
T_q × d_v for one head, T_q × heads·d_v for several, T_q × d_out after Wo. ``{npy: file.npy}``
works for either, as for every matrix.

``train: {learn: [Wq, Wk], lr: 0.1, steps: 200, optimizer: sgd}`` moves the named inputs by
gradient descent on that loss (``optimizer: adam`` for Adam with PyTorch's defaults); it needs
``loss: {target: …}``, since a gradient given once stays the same whatever is learned.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from attn_tui.core.files.yaml_matrices import file_shape, file_values, largest, shape_of, values_of
from attn_tui.core.files.yaml_numbers import count, located, number, scalar_text, whole_number
from attn_tui.core.files.yaml_source import Sequence, deref
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.limits import MAX_NUMBERS
from attn_tui.core.reading.keys import Entry, check_keys, entries

KEYS = ("loss", "train")
LOSS_KEYS = ("target", "grad")
TRAIN_KEYS = ("learn", "lr", "steps", "optimizer")
OPTIMIZERS = ("sgd", "adam")
MAX_STEPS = 100_000
# The work a train: may ask for, in units of half a nanosecond here (2e9 a second). A step costs
# T·T_k·(PER_WEIGHT + PER_WIDTH·(d_k + d_v)) a head, and STEP_FLOOR for the program's own
# bookkeeping. Measured (2 cores, NumPy's OpenBLAS): 34–67 ns a weight at d_k = d_v = 1
# (the exps, the softmax's backward and the updates, which multiply-adds alone missed: T = 16,384
# took ~18 s a step where 2.7 s was estimated), about 1–2.5 ns more per unit of d_k + d_v, and
# 0.5 ms a step at T = 2. The constants are near the slow end of those. At most ~20 s of training.
MAX_WORK = 4e10
PER_WEIGHT = 130
PER_WIDTH = 3
STEP_FLOOR = 2e6
RATE = 2e9  # units a second


def step_work(plan) -> float:
    """What one training step of a scenario of ``plan``'s sizes costs, in MAX_WORK's units."""
    return STEP_FLOOR + plan.heads * plan.T * plan.T_k * (
        PER_WEIGHT + PER_WIDTH * (plan.d_k + plan.d_v)
    )


def _duration(work: float) -> str:
    seconds = work / RATE
    return f"{seconds:.0f} seconds" if seconds < 120 else f"{seconds / 60:.0f} minutes"


LIMIT = 1e150  # |target| or |grad| at most: the output minus the target, squared, stays finite


@dataclass(frozen=True)
class TrainSetting:
    """Which inputs learn, the learning rate, the number of steps and the optimizer."""

    learn: tuple[str, ...]
    lr: float = 0.1
    steps: int = 100
    optimizer: str = "sgd"
    where: tuple[int, int] = field(
        default=(0, 0), compare=False
    )  # line and column of lr (or of train:)

    def yaml(self) -> str:
        names = ", ".join(self.learn)
        return (
            f"train: {{learn: [{names}], lr: {yaml_number(float(self.lr))}, steps: {self.steps}, "
            f"optimizer: {self.optimizer}}}\n"
        )


@dataclass(frozen=True, eq=False)
class LossSetting:
    """The output wanted (``target``) or dL/d(output) given (``grad``), and training, if any."""

    target: np.ndarray | None = None
    grad: np.ndarray | None = None
    train: TrainSetting | None = None
    source: object = None  # the .npy file the matrix came from, if it did

    @property
    def matrix(self) -> np.ndarray:
        return self.target if self.target is not None else self.grad

    @property
    def kind(self) -> str:
        return "target" if self.target is not None else "grad"

    def describe(self) -> str:
        told = "loss ½·Σ(output − target)²" if self.target is not None else "dL/d(output) given"
        if self.train is not None:
            told += (
                f" · training {', '.join(self.train.learn)} "
                f"({self.train.optimizer}, lr {self.train.lr:g})"
            )
        return told

    def yaml(self, matrix) -> str:
        inner = matrix(
            self.kind, self.matrix, self.source
        )  # "target:\n- [...]\n" or "target: {npy: …}"
        text = "loss:\n" + "".join(f"  {line}\n" for line in inner.splitlines())
        return text + (self.train.yaml() if self.train is not None else "")

    def of_head(self, h: int, heads: int) -> LossSetting | None:
        return None  # a head taken alone has no output of the layer's to compare

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LossSetting):
            return NotImplemented
        return (
            self.kind == other.kind
            and self.train == other.train
            and np.array_equal(self.matrix, other.matrix)
        )

    __hash__ = None  # type: ignore[assignment]


def learnable(plan) -> tuple[str, ...]:
    """The inputs a scenario can learn: Q, K, V given directly, or X (X_q) and the W's; Wo, bo."""
    order = (
        ("X", "X_q", "Wq", "Wk", "Wv", "Wo", "bo")
        if "X" in plan.inputs
        else ("Q", "K", "V", "Wo", "bo")
    )
    return tuple(name for name in order if name in plan.inputs)


def read(files, top: dict[str, Entry], plan) -> LossSetting | None:
    if "loss" not in top:
        if "train" in top:
            raise located(
                top["train"].key,
                "train: needs loss: {target: …} — the output it should "
                "learn to give — to know which way is downhill",
            )
        return None
    node = top["loss"].value
    found = entries(node, "loss")
    check_keys(found, LOSS_KEYS, "loss")
    given = [name for name in LOSS_KEYS if name in found]
    if len(given) != 1:
        raise located(
            node,
            "loss needs one of target: (the output wanted: L = ½·Σ(output − target)²) "
            "or grad: (dL/d output itself)" + (", not both" if given else ""),
        )
    kind = given[0]
    entry = found[kind]
    values, source = _matrix(files, entry, f"loss {kind}", (plan.T, plan.d_out), plan)
    train = _train(top["train"], plan) if "train" in top else None
    if train is not None and kind == "grad":
        raise located(
            top["train"].key,
            "train: needs loss: {target: …}: a gradient given as grad: "
            "would stay the same however the inputs moved",
        )
    return LossSetting(
        values if kind == "target" else None, values if kind == "grad" else None, train, source
    )


def _matrix(files, entry: Entry, what: str, shape: tuple[int, int], plan):
    node = entry.value
    ref = files.npy_ref(node, what)
    found = file_shape(ref, what, node) if ref is not None else shape_of(node, what)
    if tuple(found) != shape:
        rows = count(shape[0], "query row" if plan.cross else "token")
        raise located(
            node,
            f"{what} is {found[0]}×{found[1]} but the output is {shape[0]}×{shape[1]} "
            f"({rows} × {_width(plan)}): one number per output cell",
        )
    if plan.numbers + shape[0] * shape[1] > MAX_NUMBERS:
        raise located(
            node,
            f"too many numbers: {plan.numbers + shape[0] * shape[1]:,} in all with {what}, "
            f"at most {MAX_NUMBERS:,}",
        )
    values = file_values(ref, what, node) if ref is not None else values_of(node, what, found)
    array = np.array(values, dtype=np.float64)
    if not largest(array) < LIMIT:
        raise located(
            node, f"{what} holds {largest(array):.3e}; keep every number below {LIMIT:.0e}"
        )
    array.flags.writeable = False
    return array, ref


def _width(plan) -> str:
    if "Wo" in plan.inputs:
        return f"d_out = {plan.d_out}, Wo's columns"
    if plan.heads > 1:
        return f"{plan.heads} heads × d_v = {plan.d_v}"
    return f"d_v = {plan.d_v}"


def _train(entry: Entry, plan) -> TrainSetting:
    node = entry.value
    found = entries(node, "train")
    check_keys(found, TRAIN_KEYS, "train")
    if "learn" not in found:
        raise located(node, "train needs learn: the inputs to learn, e.g. learn: [Wq, Wk]")
    names_node = deref(found["learn"].value)
    items = names_node.items if isinstance(names_node, Sequence) else [found["learn"].value]
    can = learnable(plan)
    learn: list[str] = []
    for item in items:
        name = scalar_text(item, "learn")
        if name not in can:
            raise located(
                item,
                f"train can learn {', '.join(can)}, not {name!r}: the inputs this scenario gives",
            )
        if name in learn:
            raise located(item, f"{name} is named twice in learn")
        learn.append(name)
    if not learn:
        raise located(found["learn"].value, "learn names no input; e.g. learn: [Wq, Wk]")
    lr = number(found["lr"].value, "train lr") if "lr" in found else 0.1
    if not (lr > 0 and math.isfinite(lr)):
        raise located(found["lr"].value, f"train lr must be a positive number, not {lr:g}")
    steps = (
        whole_number(found["steps"].value, "train steps", 1, MAX_STEPS) if "steps" in found else 100
    )
    optimizer = "sgd"
    if "optimizer" in found:
        optimizer = scalar_text(found["optimizer"].value, "train optimizer").strip().lower()
        if optimizer not in OPTIMIZERS:
            raise located(
                found["optimizer"].value,
                f"train optimizer must be sgd (plain gradient descent) or adam, not {optimizer!r}",
            )
    written = found["lr"].value if "lr" in found else entry.key
    per_step = step_work(plan)
    runs = 1 + len(plan.variants)  # --json trains the scenario's own and each variant's
    if steps * runs * per_step > MAX_WORK:
        allowed = int(MAX_WORK // (runs * per_step))
        where = found["steps"].value if "steps" in found else node
        asked = (
            f"train asks for {steps:,} step{'s' if steps > 1 else ''} "
            f"× {runs} run{'s' if runs > 1 else ''} "
            f"(the scenario's own{' and each variant' if runs > 1 else ''}) at T = {plan.T}: about "
            f"{_duration(steps * runs * per_step)} of work, and attn-tui trains for at most "
            f"{_duration(MAX_WORK)}; "
        )
        if allowed >= 1:
            raise located(where, asked + f"at most {allowed:,} steps for a scenario this size")
        fewer = "fewer tokens (T)" + (" or fewer variants" if runs > 1 else "")
        raise located(
            where,
            asked + f"even one step {'of every run ' if runs > 1 else ''}is more: train {fewer}",
        )
    return TrainSetting(tuple(learn), lr, steps, optimizer, (written.line, written.col))
