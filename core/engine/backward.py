"""The backward pass: how the loss changes with every number attention computed, and with every
input it started from.

Read from the end back, as autograd does (the names are FlashAttention-2's):

    dO = output − target            (or the scenario's dL/d output; back through Wo: dO·Woᵀ)
    dV = Pᵀ·dO                      dP = dO·Vᵀ            D = rowsum(dO ∘ O)
    dS = P ∘ (dP − D)               softmax's backward: 0 where a key is hidden
    dRaw = dS ∘ f′ ∘ …              back through each stage between the scores and the mask, by
                                    its declared ChainRule (each cell × its derivative)
    dQ = dRaw·K                     dK = dRawᵀ·Q          (each turned back by RoPE, then back
                                    through QK-norm: core.model.qk_norm.normed_back)

then GQA's dK and dV summed over the query heads that share them, and the projections:
dW = Xᵀ·dQ, dX = dQ·Wᵀ (summed over Q, K and V). :class:`Backward` computes the query-row
matrices (dP, dS, dRaw) for the window a view asks, and the rest in one pass over the query rows a
block at a time (never a T×T array), kept until an edit; :func:`gradients` gathers everything
for one scenario as dense arrays, for ``--json``, training and the tests. The gradient measured
by finite differences is ``core.engine.gradient_check``'s; how much of it reaches each variant's
scores, in words, ``core.engine.gradient_sizes``'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_tui.core.engine.attention import Window
from attn_tui.core.engine.stages.backward_steps import loss as loss_setting
from attn_tui.core.engine.stages.contract import Adds, between_scores_and_mask
from attn_tui.core.model.qk_norm import normed_back

BLOCK = 128  # query rows per block of the pass over the rows
TINY = np.finfo(np.float64).tiny


class Backward:
    """One :class:`~attn_tui.core.engine.attention.Attention`'s backward pass, computed on
    demand."""

    def __init__(self, attention) -> None:
        self.attention = attention
        self._kept: dict = {}

    @property
    def scenario(self):
        return self.attention.scenario

    @property
    def setting(self):
        return loss_setting(self.scenario)

    # ---- the output end ----------------------------------------------------------------------

    def final_output(self) -> np.ndarray:
        """The layer's output (the last forward stage), every row."""
        return self._keep("final", self._final_output)

    def _final_output(self) -> np.ndarray:
        a = self.attention
        stage = last_forward(a.steps)
        rows, cols = range(a.T), range(stage.column_count(a.scenario))
        return a.values(stage.name, None if not stage.arithmetic.per_head else 0, rows, cols)

    def loss(self) -> float | None:
        """L = ½·Σ(output − target)², or None when the scenario gives dL/d output itself."""
        if self.setting.target is None:
            return None
        return self._keep(
            "loss", lambda: 0.5 * float(np.sum((self.final_output() - self.setting.target) ** 2))
        )

    def d_output(self) -> np.ndarray:
        """dL/d(the layer's output)."""
        setting = self.setting
        if setting.target is None:
            return setting.grad
        return self._keep("d_output", lambda: self.final_output() - setting.target)

    def d_concat(self) -> np.ndarray:
        """dL/d(the heads side by side): back through Wo (dO·Woᵀ), else dL/d output itself."""
        inputs = self.scenario.inputs
        if "Wo" not in inputs:
            return self.d_output()
        return self._keep("d_concat", lambda: self.d_output() @ inputs["Wo"].T)

    def d_head_output(self, h: int) -> np.ndarray:
        """dO of head ``h``: its columns of dL/d concat."""
        d_v = self.scenario.d_v
        return self.d_concat()[:, h * d_v : (h + 1) * d_v]

    def head_output(self, h: int) -> np.ndarray:
        a = self.attention
        return self._keep(
            ("O", h), lambda: a.values("weighted_sum", h, range(a.T), range(a.scenario.d_v))
        )

    def rowsum(self, h: int) -> np.ndarray:
        """D = rowsum(dO ∘ O): each row's Σ_j P_ij·dP_ij, the term softmax's backward subtracts."""
        return self._keep(
            ("D", h), lambda: np.einsum("ij,ij->i", self.d_head_output(h), self.head_output(h))
        )

    # ---- windows of the query-row matrices ---------------------------------------------------

    def d_weights(self, h: int, rows: range, cols: range) -> np.ndarray:
        """dP = dO·Vᵀ: how the loss changes with each weight."""
        V = self.attention.inputs.V(h)
        return self.d_head_output(h)[rows.start : rows.stop] @ V[cols.start : cols.stop].T

    def weights(self, h: int, rows: range, cols: range, keep=True) -> np.ndarray:
        a = self.attention
        P = a.values("softmax", h, rows, cols, keep)
        return np.where(P < TINY, 0.0, P)  # as the weighted sum multiplies them

    def d_scores(
        self, h: int, rows: range, cols: range, keep=True, P: np.ndarray | None = None
    ) -> np.ndarray:
        """dS = P ∘ (dP − D), 0 where a key is hidden (the mask value is a constant) and on a row
        that sees nothing (``P``: the window's weights, when the caller has them already)."""
        a = self.attention
        P = self.weights(h, rows, cols, keep) if P is None else P
        dS = P * (self.d_weights(h, rows, cols) - self.rowsum(h)[rows.start : rows.stop, None])
        hidden = a.blocked(rows, cols) | a.empty(rows, keep)[:, None]
        return np.where(hidden, 0.0, dS)

    def derivatives(self, h: int, rows: range, cols: range, keep=True) -> list[tuple]:
        """(stage, d its values / d what it reads) for each stage from the scores to the mask, in
        step order, for the window: each its ChainRule's derivative (what the Why pane writes)."""
        a = self.attention
        return [
            (stage, stage.gradient.derivative(Window(a, stage, h, rows, cols, keep)))
            for stage in self._cellwise()
        ]

    def _cellwise(self) -> list:
        """The head's stages from the scores (excluded) up to the mask (excluded): each computed
        cell by cell from the one before it, each declaring its ChainRule."""
        return between_scores_and_mask(self.attention.steps)

    def through(
        self, h: int, rows: range, cols: range, keep=True, dS: np.ndarray | None = None
    ) -> dict:
        """dL/d the values of each stage from the scores to the one before the mask: dS (the
        mask passes a visible score on, and a hidden one is a constant) passed back through each
        stage (its ChainRule's ``back``); ``"score"``: dL/d(Q·Kᵀ)."""
        a = self.attention
        gradient = self.d_scores(h, rows, cols, keep) if dS is None else dS
        found = {}
        for stage in reversed(self._cellwise()):
            found[stage.name] = gradient
            gradient = stage.gradient.back(Window(a, stage, h, rows, cols, keep), gradient)
        found["score"] = gradient
        return found

    def _added_inputs(self) -> dict[str, str]:
        """The inputs the scenario gives that a stage between the scores and the mask adds cell
        for cell (an explicit matrix, declared by its Adds rule), with that stage's name: dL/d
        such an input is dL/d the stage's values."""
        given = self.scenario.inputs
        return {
            stage.score_range.input: stage.name
            for stage in self._cellwise()
            if isinstance(stage.score_range, Adds) and stage.score_range.input in given
        }

    def d_raw_scores(
        self, h: int, rows: range, cols: range, keep=True, dS: np.ndarray | None = None
    ) -> np.ndarray:
        """dL/d(Q·Kᵀ): dS back through every stage between the scores and the mask."""
        return self.through(h, rows, cols, keep, dS)["score"]

    # ---- the pass over every query row -------------------------------------------------------

    def head(self, h: int) -> dict[str, np.ndarray]:
        """Head ``h``'s dQ (rotated back, and back through QK-norm), dK and dV (this head's share,
        before GQA sums them), dQ, dK as RoPE left them (``dQ_turned``, ``dK_turned``) and as
        the norm left them (``dQ_normed``, ``dK_normed``: the gradient of the normed ones)."""
        return self._keep(("head", h), lambda: self._through_the_norm(h))

    def _turned_back(self, h: int) -> dict[str, np.ndarray]:
        return self._keep(("turned back", h), lambda: self._head(h))

    def _through_the_norm(self, h: int) -> dict[str, np.ndarray]:
        """dQ and dK of the queries and keys as projected, from those of the normed ones: per
        head, or (over the whole projection) from every head's at once."""
        found = dict(self._turned_back(h))
        norm = self.scenario.stage_settings.get("qk_norm")
        if norm is None:
            found.update(dQ=found["dQ_normed"], dK=found["dK_normed"])
            return found
        inputs, d_k = self.attention.inputs, self.scenario.d_k
        for name, kind, projected in (("dQ", "q", inputs.q_raw), ("dK", "k", inputs.k_raw)):
            if norm.whole:  # (every head has its own keys: heads = kv_heads)
                x = np.hstack(projected)
                dy = np.hstack(
                    [self._turned_back(g)[name + "_normed"] for g in range(len(projected))]
                )
                whole = normed_back(x, norm.gain(kind, x.shape[1]), norm.eps, dy)
                found[name] = whole[:, h * d_k : (h + 1) * d_k]
            else:
                x = projected[h if kind == "q" else inputs.kv(h)]
                found[name] = normed_back(
                    x, norm.gain(kind, d_k), norm.eps, found[name + "_normed"]
                )
        return found

    def _head(self, h: int) -> dict[str, np.ndarray]:
        a = self.attention
        scenario = a.scenario
        Q, K, V = a.inputs.Q(h), a.inputs.K(h), a.inputs.V(h)
        keys = range(scenario.T_k)
        dO = self.d_head_output(h)
        dQ = np.zeros(Q.shape)
        dK = np.zeros(K.shape)
        dV = np.zeros(V.shape)
        sizes = np.empty(a.T)
        added = {
            name: np.empty((a.T, scenario.T_k)) for name in self._added_inputs()
        }  # dL/d each added input
        for start in range(0, a.T, BLOCK):
            rows = range(start, min(start + BLOCK, a.T))
            scratch: dict = {}  # what this block's weights are computed from, computed once for it
            P = self.weights(h, rows, keys, keep=scratch)
            dS = self.d_scores(h, rows, keys, keep=scratch, P=P)
            sizes[start : rows.stop] = np.linalg.norm(dS, axis=1)
            back = self.through(h, rows, keys, keep=scratch, dS=dS)
            raw = back["score"]
            for (
                name,
                stage,
            ) in self._added_inputs().items():  # added: its gradient is the stage's values'
                added[name][start : rows.stop] = back[stage]
            dQ[start : rows.stop] = raw @ K
            dK += raw.T @ Q[start : rows.stop]
            dV += P.T @ dO[start : rows.stop]
        found = {"dQ_turned": dQ, "dK_turned": dK, "dV": dV, "row_sizes": sizes}
        found.update({("added", name): gradient for name, gradient in added.items()})
        rope = scenario.rope
        if rope is None:
            found.update(dQ_normed=dQ, dK_normed=dK)
        else:  # a rotation's transpose turns back: the same pairs by −θ
            found.update(
                dQ_normed=rope.rotate(dQ, -np.arange(a.T)),
                dK_normed=rope.rotate(dK, -np.arange(scenario.T_k)),
            )
        return found

    # ---- the inputs --------------------------------------------------------------------------

    def inputs(self) -> dict[str, np.ndarray]:
        """dL/d every input the scenario gives, each the shape of the input."""
        return self._keep("inputs", self._inputs)

    def _inputs(self) -> dict[str, np.ndarray]:
        scenario = self.scenario
        given = scenario.inputs
        group = scenario.heads // scenario.kv_heads
        per_head = [self.head(h) for h in range(scenario.heads)]
        dQ = [found["dQ"] for found in per_head]
        dK = [
            sum(per_head[h]["dK"] for h in range(g * group, (g + 1) * group))
            for g in range(scenario.kv_heads)
        ]
        dV = [
            sum(per_head[h]["dV"] for h in range(g * group, (g + 1) * group))
            for g in range(scenario.kv_heads)
        ]
        found: dict[str, np.ndarray] = {}
        if scenario.kind == "qkv":
            for name, parts in (("Q", dQ), ("K", dK), ("V", dV)):
                found[name] = np.stack(parts) if given[name].ndim == 3 else sum(parts)
        else:
            X = given["X"]
            X_q = given["X_q"] if scenario.cross else X
            d_k, d_v = scenario.d_k, scenario.d_v
            found["X"] = np.zeros(X.shape)
            if scenario.cross:
                found["X_q"] = np.zeros(X_q.shape)
            for name, parts, width, source in (
                ("Wq", dQ, d_k, "X_q" if scenario.cross else "X"),
                ("Wk", dK, d_k, "X"),
                ("Wv", dV, d_v, "X"),
            ):
                W = given[name]
                dW = np.zeros(W.shape)
                for which, part in enumerate(parts):
                    cols = slice(which * width, (which + 1) * width)
                    dW[:, cols] = given[source].T @ part
                    found[source] += part @ W[:, cols].T
                found[name] = dW
        for (
            name
        ) in self._added_inputs():  # added to the scores: its gradient is theirs (0 where masked)
            parts = [found_head[("added", name)] for found_head in per_head]
            found[name] = np.stack(parts) if given[name].ndim == 3 else sum(parts)
        if "Wo" in given:
            concat = np.hstack([self.head_output(h) for h in range(scenario.heads)])
            dO = self.d_output()
            found["Wo"] = concat.T @ dO
            if "bo" in given:
                found["bo"] = dO.sum(axis=0, keepdims=True).reshape(given["bo"].shape)
        return {name: found[name] for name in given if name in found}

    def _keep(self, key, make):
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = make()
            if isinstance(found, np.ndarray):
                found.flags.writeable = False
        return found


def last_forward(steps) -> object:
    """The stage whose values are the layer's output: the last of the forward pass."""
    return [
        stage for stage in steps if not stage.arithmetic.branch and not stage.arithmetic.backward
    ][-1]


@dataclass(frozen=True)
class HeadGradients:
    d_weights: np.ndarray  # dL/dP, T × T_k
    d_scores: np.ndarray  # dL/d the scores entering softmax, T × T_k (0 where masked)
    d_raw_scores: np.ndarray
    dQ: np.ndarray
    dK: np.ndarray
    dV: np.ndarray


@dataclass(frozen=True)
class Gradients:
    """Every gradient of one scenario under one set of options, as dense arrays."""

    loss: float | None
    d_output: np.ndarray
    inputs: dict[str, np.ndarray]
    heads: tuple[HeadGradients, ...]


def gradients(scenario, options=None) -> Gradients:
    """Every gradient of ``scenario`` (under a variant's ``options``), which has a ``loss:``."""
    from attn_tui.core.engine.attention import Attention

    if loss_setting(scenario) is None:
        raise ValueError("this scenario has no loss: (loss: {target: …} or loss: {grad: …})")
    attention = Attention(scenario, options)
    back = attention.backward
    rows, keys = range(scenario.T), range(scenario.T_k)
    heads = []
    for h in range(scenario.heads):
        found = back.head(h)
        heads.append(
            HeadGradients(
                back.d_weights(h, rows, keys),
                back.d_scores(h, rows, keys),
                back.d_raw_scores(h, rows, keys),
                found["dQ"],
                found["dK"],
                found["dV"],
            )
        )
    return Gradients(back.loss(), back.d_output(), back.inputs(), tuple(heads))


def row_sizes(attention, h: int = 0) -> np.ndarray:
    """‖dS‖ of each query row: how much gradient reaches that row's scores (the seeds' point:
    without ÷√d_k, a peaky softmax passes almost none)."""
    return attention.backward.head(h)["row_sizes"]
