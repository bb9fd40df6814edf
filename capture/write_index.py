"""The index that ``attn-tui capture --layer all`` writes beside its scenarios: the format is
core.loading.model_index's, every string double-quoted by PyYAML's emitter (see write_scenario)."""

from __future__ import annotations

import os

from attn_tui.capture.captured_layer import CapturedLayer
from attn_tui.capture.write_scenario import quoted_scalar
from attn_tui.core.files.yaml_text import yaml_number
from attn_tui.core.loading.model_index import VERSION


def index_yaml(
    title: str,
    description: str,
    layer_paths: list[tuple[int, str]],
    heads: int | None = None,
    kinds: list[dict] | None = None,
) -> str:
    """The index's text: ``layer_paths`` is (layer, scenario path) in order; each scenario is
    named by its file name, in the index's folder; ``heads``, each layer's number of heads;
    ``kinds``, each layer's kind (:func:`layer_kind`), in the same order."""
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
    for number, (layer, path) in enumerate(layer_paths):
        kind = ""
        if kinds is not None:
            kind = (
                ", kind: {"
                + ", ".join(
                    f"{key}: {yaml_number(value) if isinstance(value, float) else value}"
                    for key, value in kinds[number].items()
                )
                + "}"
            )
        lines.append(
            f"  - {{layer: {layer}, scenario: {quoted_scalar(os.path.basename(path))}{said}{kind}}}"
        )
    return "\n".join(lines) + "\n"


def layer_kind(captured: CapturedLayer) -> dict:
    """What sort of attention a captured layer is, as the index records it (the keys are
    core.loading.model_index's): full, sliding (and its window) or chunked (and its chunk);
    how position reaches it."""
    kind: dict = {"attention": "full"}
    if captured.window is not None:
        kind.update(attention="sliding", window=captured.window)
    elif captured.chunk is not None:
        kind.update(attention="chunked", chunk=captured.chunk)
    if captured.position is not None:
        kind["position"] = captured.position
    if captured.rope_base is not None:
        kind["rope_base"] = float(captured.rope_base)
    return kind
