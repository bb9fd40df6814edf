"""core/reading/softcap.py: ``softcap: c`` read as the Softcap stage's setting, refused unless a
positive finite number, and said and written back as it was."""

from __future__ import annotations

import pytest

from attn_tui.core import ScenarioError, loads
from attn_tui.core.reading.softcap import SoftcapSetting

BASE = "tokens: [a, b]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 2], [3, 4]]\n"


def test_a_cap_turns_the_stage_on():
    assert "softcap" not in loads(BASE).stage_settings
    assert loads(BASE + "softcap: 30\n").stage_settings["softcap"] == SoftcapSetting(30.0)


def test_the_setting_says_and_writes_itself():
    setting = SoftcapSetting(50.0)
    assert setting.describe() == "softcap 50"
    assert setting.yaml(None) == "softcap: 50\n"
    assert setting.of_head(1, 2) is setting  # one cap for every head


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "r.yaml:5:10: softcap must be a positive number (Gemma 2 uses 50), not 0"),
        ("-5", "r.yaml:5:10: softcap must be a positive number (Gemma 2 uses 50), not -5"),
        (".inf", "r.yaml:5:10: softcap is .inf; numbers must be finite"),
    ],
)
def test_a_cap_that_is_not_positive_and_finite_is_refused(value, message):
    with pytest.raises(ScenarioError) as caught:
        loads(BASE + f"softcap: {value}\n", "r.yaml")
    assert str(caught.value) == message
