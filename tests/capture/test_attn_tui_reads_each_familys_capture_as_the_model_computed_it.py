"""attn-tui's own loader and core read each capture of a tiny model of every family beyond GPT-2
and Llama (tests/capture/test_capture_families.py) as the model computed it: every head's
weights and the projected output within 1e-5 of the model's own (tests/capture/family_attention.py),
with no reference of the tests' in between.
"""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # nothing here may reach the network

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from tests.conftest import NEEDS_MODELS  # noqa: E402

pytest.importorskip("torch", reason=NEEDS_MODELS)
pytest.importorskip("transformers", reason=NEEDS_MODELS)

from attn_tui.tui.cli import main  # noqa: E402
from tests.capture.family_attention import (  # noqa: E402
    ENCODER_DECODERS,
    FAMILIES,
    TARGET,
    TOLERANCE,
    capture,
    model_attention,
)

pytestmark = pytest.mark.models


# ---- read back by attn-tui itself --------------------------------------------------------------


def core_attention(path: Path):
    """The scenario as attn-tui's own loader and core compute it: every head's weights and the
    projected output."""
    from attn_tui.core import load
    from attn_tui.core.engine.attention import Attention

    scenario = load(path)
    attention = Attention(scenario)
    rows, keys = range(scenario.T), range(scenario.T_k)
    weights = np.stack(
        [attention.head(h).values("softmax", rows, keys) for h in range(scenario.heads)]
    )
    return weights, attention.values("project", None, rows, range(scenario.d_out))


@pytest.mark.parametrize(
    "family, config, layer, part",
    [
        *((family, {}, 1, None) for family in FAMILIES),
        *((family, {}, 1, part) for family in ENCODER_DECODERS for part in ("decoder", "cross")),
        ("mistral", {"sliding_window": 3}, 1, None),
        ("gemma2", {"sliding_window": 3, "attn_logit_softcapping": 2.0}, 0, None),
        ("phi3", {"partial_rotary_factor": 0.5}, 1, None),
        ("bloom", {"heads": 6, "hidden": 48}, 1, None),
        # sinks on a sliding layer; chunks, interleaved RoPE and the L2 QK-norm
        ("gpt_oss", {}, 0, None),
        ("llama4_text", {}, 0, None),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_attn_tui_reads_each_capture_as_the_model_computed_it(
    family, config, layer, part, models, tmp_path
):
    """The loader and core, not this file's reference: Bias (T5's, ALiBi), windows, padding,
    cross-attention, softcap and partial rotary, against the model itself."""
    folder = models(family, **config)
    out = tmp_path / "layer.yaml"
    extra = ("--part", part, "--target-text", TARGET) if part else ()
    assert capture(folder, out, layer, *extra) == 0
    weights, output = core_attention(out)
    model_weights, model_output = model_attention(folder, family, layer, part or "encoder")
    assert np.abs(weights - model_weights).max() < TOLERANCE
    assert np.abs(output - model_output).max() < TOLERANCE


def test_attn_tui_reads_a_padded_pair_as_bert_computed_it(models, tmp_path):
    folder = models("bert")
    out = tmp_path / "pair.yaml"
    assert (
        main(
            [
                "capture",
                str(folder),
                "--text",
                "The cat sat",
                "--text",
                "the dog",
                "--pad-to",
                "12",
                "--layer",
                "1",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    weights, output = core_attention(out)
    model_weights, model_output = model_attention(
        folder, "bert", 1, texts=("The cat sat", "the dog"), pad_to=12
    )
    assert np.abs(weights - model_weights).max() < TOLERANCE
    assert np.abs(output - model_output).max() < TOLERANCE
