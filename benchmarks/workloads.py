"""The scenarios benchmarks/run.py measures, written into a folder: one head of T tokens (an
.npz of random Q, K, V, d = 64), with a lesson, with a loss, eight heads from X and projections,
a capture-shaped layer, a model index."""

from __future__ import annotations

from pathlib import Path

import numpy as np

D = 64  # the width of every head


def make_scenario(folder: Path, T: int) -> Path:
    rng = np.random.RandomState(T)
    np.savez(folder / f"head_{T}.npz", Q=rng.randn(T, D), K=rng.randn(T, D), V=rng.randn(T, D))
    path = folder / f"head_{T}.yaml"
    path.write_text(f"title: One head, T = {T}\nnpz: head_{T}.npz\n")
    return path


def make_lesson(folder: Path, T: int) -> Path:
    """The one-head scenario of ``T`` with a lesson of two beats: the second steps on, moves the
    row and edits a Q cell, so that n and N each apply (or take back) an edit and a step."""
    make_scenario(folder, T)
    path = folder / f"lesson_{T}.yaml"
    path.write_text(
        f"title: A lesson, T = {T}\nnpz: head_{T}.npz\nlesson:\n"
        "  - {step: softmax, row: 1}\n"
        "  - {step: weighted_sum, row: 2, edit: {matrix: Q, row: 2, col: 1, to: 3.5}}\n"
    )
    return path


def make_multihead(folder: Path, T: int = 1024, d_model: int = 512, heads: int = 8) -> Path:
    """Multi-head attention from X and projections: T × d_model embeddings, 8 heads of 64."""
    rng = np.random.RandomState(heads)
    width = heads * D
    np.savez(
        folder / "heads.npz",
        X=rng.randn(T, d_model),
        Wq=rng.randn(d_model, width) / 8,
        Wk=rng.randn(d_model, width) / 8,
        Wv=rng.randn(d_model, width) / 8,
        Wo=rng.randn(width, d_model) / 8,
    )
    path = folder / "heads.yaml"
    path.write_text(
        f"title: {heads} heads, T = {T}, d_model = {d_model}\nnpz: heads.npz\nheads: {heads}\n"
    )
    return path


def make_capture_shaped(folder: Path, T: int = 2048) -> Path:
    """A scenario shaped as ``attn-tui capture`` writes a Llama layer: Q, K, V per head in an
    .npz (4 query heads sharing 2 key/value heads, d_k = 16), RoPE, Wo."""
    rng = np.random.RandomState(T)
    np.savez(
        folder / "capture.npz",
        Q=rng.randn(4, T, 16),
        K=rng.randn(2, T, 16),
        V=rng.randn(2, T, 16),
        Wo=rng.randn(64, 64) / 8,
    )
    path = folder / "capture.yaml"
    path.write_text(
        f"title: capture-shaped, T = {T}\nnpz: capture.npz\nheads: 4\nkv_heads: 2\n"
        "rope: {base: 10000}\n"
    )
    return path


def make_backward(folder: Path, T: int) -> Path:
    """The one-head scenario of ``T`` with a loss (a random target) and training of Q and K."""
    make_scenario(folder, T)
    np.save(folder / f"target_{T}.npy", np.random.RandomState(T + 1).randn(T, D))
    path = folder / f"backward_{T}.yaml"
    path.write_text(
        f"title: backward, T = {T}\nnpz: head_{T}.npz\nloss:\n  target: {{npy: target_{T}.npy}}\n"
        "train: {learn: [Q, K], lr: 0.001, steps: 20}\n"
    )
    return path


def make_small_index(folder: Path, layers: int = 12, heads: int = 4, T: int = 32) -> Path:
    """An index of ``layers`` layers, each ``heads`` heads of T tokens: the model view's grid."""
    rng = np.random.RandomState(layers)
    np.savez(
        folder / "layer.npz",
        Q=rng.randn(heads, T, 16),
        K=rng.randn(heads, T, 16),
        V=rng.randn(heads, T, 16),
    )
    (folder / "layer.yaml").write_text(f"title: a layer\nnpz: layer.npz\nheads: {heads}\n")
    lines = "".join(
        f"  - {{layer: {i}, scenario: layer.yaml, heads: {heads}}}\n" for i in range(layers)
    )
    path = folder / "index.yaml"
    path.write_text(f"model_index: 1\ntitle: {layers} layers\nlayers:\n{lines}")
    return path


def make_walked(folder: Path, T: int, extra: str, name: str) -> Path:
    """The one-head scenario of ``T`` tokens with a branch step turned on by ``extra`` (online
    softmax's tiles, decoding)."""
    path = folder / f"{name}_{T}.yaml"
    path.write_text(f"title: {name}, T = {T}\nnpz: head_{T}.npz\n{extra}")
    return path
