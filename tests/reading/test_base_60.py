"""YAML 1.1 reads a plain ``1:30`` as the base-60 number 90 (PyYAML's safe loader keeps it); a
scenario, a lesson or an index that writes one is refused where it is written, saying so,
never read silently as 90."""

from __future__ import annotations

import pytest

from attn_tui.core import ScenarioError
from attn_tui.core.loading.model_index import loads_index
from attn_tui.core.loading.scenario_file import loads

BASE = "tokens: [a, b]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"
LOSS = "loss: {target: [[0, 0], [0, 0]]}\n"


@pytest.mark.parametrize(
    "text, where, what, value",
    [
        (
            "tokens: [a, b]\nQ: [[1:30, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n",
            "2:6",
            "Q row 1 column 1 is 1:30",
            "1:30 = 90",
        ),
        (
            "tokens: [a, b]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, -1:30.5]]\n",
            "4:17",
            "V row 2 column 2 is -1:30.5",
            "-1:30.5 = -90.5",
        ),
        (
            BASE + LOSS + "train: {learn: [Q], steps: 1:30}\n",
            "6:28",
            "train steps is 1:30",
            "1:30 = 90",
        ),
        (
            BASE + LOSS + "train: {learn: [Q], lr: 0:0.5}\n",
            "6:25",
            "train lr is 0:0.5",
            "0:0.5 = 0.5",
        ),
        (BASE + "mask_value: -1:00:00\n", "5:13", "mask_value is -1:00:00", "-1:00:00 = -3600"),
        (
            BASE + "expect:\n  weights: [[1, 0], [2:30, 0.5]]\n",
            "6:22",
            "row 2 column 1 is 2:30",
            "2:30 = 150",
        ),
        (BASE + "focus: 1:30\n", "5:8", "focus is 1:30", "1:30 = 90"),
    ],
)
def test_a_base_60_number_is_refused_where_it_is_written(text, where, what, value):
    with pytest.raises(ScenarioError) as raised:
        loads(text, "s.yaml")
    said = str(raised.value)
    assert said.startswith(f"s.yaml:{where}: "), said
    assert (
        what in said and f"base-60 number ({value})" in said and "write the number itself" in said
    )


def test_a_base_60_number_in_a_lesson_beat_is_refused():
    text = BASE + "lesson:\n  - say: hello\n    set: {scale: 1:30}\n"
    with pytest.raises(ScenarioError, match="base-60"):
        loads(text, "s.yaml")


def test_a_base_60_layer_number_in_an_index_is_refused():
    with pytest.raises(
        ScenarioError, match=r"idx.yaml:2:18: layer is 1:30, which YAML 1.1 reads as a base-60"
    ):
        loads_index("model_index: 1\nlayers: [{layer: 1:30, scenario: a.yaml}]\n", "idx.yaml")


def test_text_that_looks_like_base_60_stays_text_where_text_is_wanted():
    scenario = loads('tokens: [10:30, "11:00"]\ntitle: 9:15\n' + BASE.split("\n", 1)[1])
    assert scenario.tokens == ("10:30", "11:00") and scenario.title == "9:15"
