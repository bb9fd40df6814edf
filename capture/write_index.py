"""The index that ``attn-tui capture --layer all`` writes beside its scenarios: the format is
core.loading.model_index's, every string double-quoted by PyYAML's emitter (see write_scenario)."""

from __future__ import annotations

import os

from attn_tui.capture.write_scenario import quoted_scalar
from attn_tui.core.loading.model_index import VERSION


def index_yaml(
    title: str, description: str, layer_paths: list[tuple[int, str]], heads: int | None = None
) -> str:
    """The index's text: ``layer_paths`` is (layer, scenario path) in order; each scenario is
    named by its file name, in the index's folder; ``heads``, each layer's number of heads."""
    lines = [
        "# Every layer of one model on one text, captured by `attn-tui capture --layer all` in",
        "# one forward pass: one scenario (and its .npz) per layer, listed below.",
        "# `attn-tui THIS_FILE` opens the model view (layers × heads); `attn-tui heads",
        "# THIS_FILE` scores each head's pattern; `attn-tui --json THIS_FILE` lists the layers.",
        f"model_index: {VERSION}",
        f"title: {quoted_scalar(title)}",
        f"description: {quoted_scalar(description)}",
        "layers:",
    ]
    said = "" if heads is None else f", heads: {heads}"
    lines += [
        f"  - {{layer: {layer}, scenario: {quoted_scalar(os.path.basename(path))}{said}}}"
        for layer, path in layer_paths
    ]
    return "\n".join(lines) + "\n"
