"""``attn-tui capture demo``: a model with hand-set weights whose heads show the patterns a class
looks for, built offline in one command (issue 29: a random tiny model scores ~0.18 on every
pattern and teaches nothing)."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # nothing here may reach the network

import pytest  # noqa: E402

from tests.conftest import NEEDS_MODELS  # noqa: E402

pytest.importorskip("torch", reason=NEEDS_MODELS)
pytest.importorskip("transformers", reason=NEEDS_MODELS)

from attn_tui.core.loading.model_index import read_index  # noqa: E402
from attn_tui.core.loading.scenario_file import load  # noqa: E402
from attn_tui.core.teaching.patterns import scenario_scores  # noqa: E402
from attn_tui.tui.cli import main  # noqa: E402

pytestmark = pytest.mark.models


def test_the_demo_model_is_captured_offline_and_its_heads_do_what_they_are_wired_for(
    tmp_path, monkeypatch, capfd
):
    monkeypatch.chdir(tmp_path)
    text = (
        "When Mary and John went to the store, John gave a drink to Mary. When Mary and John went"
    )
    assert main(["capture", "demo", "--layer", "all", "--text", text]) == 0
    assert capfd.readouterr().out.startswith(
        "Wrote demo_layers.yaml"
    )  # (the tokenizer's bar wrote 3 blank lines)
    index = read_index(str(tmp_path / "demo_layers.yaml"))
    scores = {
        (entry.layer, head.head): head.scores
        for entry in index.layers
        for head in scenario_scores(load(entry.path), entry.layer)
    }
    assert scores[(0, 0)]["previous"] > 0.95 and scores[(1, 1)]["previous"] > 0.95
    assert scores[(0, 1)]["first"] > 0.95 and scores[(1, 2)]["first"] > 0.95
    assert scores[(1, 0)]["induction"] > 0.8
    assert scores[(0, 2)]["self"] > 0.6
    random_like = max(scores[(0, 3)][name] for name in ("previous", "first", "induction"))
    assert random_like < 0.3  # the head left at zero weights averages: no pattern
