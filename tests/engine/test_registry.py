"""A stage is declared once (issue 19): a throwaway stage, "Doubled" (the scores times two),
put into a test-only registry with no other code changed, is carried by every view — the app's
step strip, keys, help, palette and highlighting, --json, --print, --markdown, expect: and
predict:. It runs in a fresh interpreter that installs the registry before anything reads it,
as a new stage's REGISTRY line would."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np

from attn_tui.core import load
from attn_tui.core.engine.stages import REGISTRY, highlights, reads, stages_for
from tests.conftest import ROOT, SCENARIOS

PROGRAM = r"""
import asyncio, json, sys
import attn_tui.core.engine.stages as stages
from attn_tui.core.engine.stages import KEYS, PREVIOUS, Arithmetic, Display, Stage
from attn_tui.core.engine.stages.contract import ChainRule, Grows, Multiplies


def compute(w):
    return 2.0 * w.previous()


def explain(w):
    w.add(("2 × the scores: ", ""), (w.vector(w.r.own, w.p), "result"))
    return "twice the scores"


DOUBLED = Stage(name="doubled", title="Doubled", key="doubled",
                arithmetic=Arithmetic(compute=compute, reads=(PREVIOUS,), columns=KEYS),
                display=Display(heading=lambda scenario, options: "2 × scores", explain=explain,
                                palette="diverging", changes="as the scores"),
                gradient=ChainRule(back=lambda w, gradient: 2.0 * gradient,
                                   derivative=lambda w: 2.0,
                                   heading=lambda scenario, options: " × 2",
                                   factor=lambda w, value: " × 2"),
                score_range=Multiplies(lambda scenario, options: 2.0,
                                       Grows("doubled score", lambda scenario, options: "doubled")))
registry = list(stages.REGISTRY)
registry.insert([stage.name for stage in registry].index("score") + 1, DOUBLED)
stages.REGISTRY = tuple(registry)

from attn_tui.core import load
from attn_tui.core import loads
from attn_tui.core.teaching.compare import compare
from attn_tui.core.outputs.json_export import to_json
from attn_tui.core.outputs.markdown import to_markdown
from attn_tui.core.outputs.report import to_text
from attn_tui.tui.app import AttnApp
from attn_tui.tui.key_lists import help_text
from tests.tui_helpers import explanation, matrix, screen_text

path = sys.argv[1]
found = {}
scenario = load(path)
found["json"] = to_json(scenario)
found["print"] = to_text(scenario, rows=[2])
found["markdown"] = to_markdown(scenario)
text = open(path).read()
doubled = [[2 * value for value in row] for row in [[1, 0, 1], [0, 1, 1], [1, 1, 2]]]
found["expect_ok"] = compare(loads(text + f"expect: {{doubled: {doubled}}}\n")).ok
doubled[2][2] = 5
found["expect_first"] = compare(
    loads(text + f"expect: {{doubled: {doubled}}}\n")
).first_difference.stage
found["predict"] = loads(text + "predict: [doubled]\n").predict
found["help"] = [shown for _, keys in help_text() for shown, _ in keys]


async def drive():
    app = AttnApp(scenario, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        found["stage"] = app.screen.stage
        found["strip"] = screen_text(app).splitlines()[1]
        found["why"] = explanation(app)
        found["marks"] = {name: sorted(matrix(app, name).marked_rows) for name in "QKV"}
        found["palette"] = [command.title for command in app.get_system_commands(app.screen)
                            if command.title.startswith("Step to")]
        await pilot.press("right")
        found["after"] = app.screen.stage

asyncio.run(drive())
print(json.dumps(found))
"""


def run_with_doubled() -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(SCENARIOS / "cat_sat.yaml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_stage_declared_in_the_registry_alone_is_in_every_view():
    found = run_with_doubled()
    doc = found["json"]
    scores = np.array(doc["scores"])
    assert np.array_equal(doc["doubled"], 2 * scores)
    assert np.allclose(
        doc["scaled"], 2 * scores / math.sqrt(2), rtol=0, atol=1e-15
    )  # Scale reads it now
    assert list(doc).index("doubled") == list(doc).index("scores") + 1
    assert "Step 2 — Doubled: 2 × scores" in found["print"]
    assert (
        "Step 2 — Doubled: twice the scores\n2 × the scores: [2.000, 2.000, 4.000]"
        in found["print"]
    )
    assert "## Step 2 — Doubled: 2 × scores" in found["markdown"]
    assert found["expect_ok"] is True and found["expect_first"] == "doubled"
    assert found["predict"] == ["doubled"]
    assert "1 … 9, 0" in found["help"]  # ten stages registered: the tenth is key 0
    assert (
        found["stage"] == "doubled"
        and "2 Doubled" in found["strip"]
        and "3 Scale" in found["strip"]
    )
    assert "Step 2 — Doubled: twice the scores" in found["why"]
    assert found["marks"] == {"Q": [2], "K": [0], "V": []}  # read cell by cell from the scores
    assert "Step to 2 Doubled" in found["palette"] and found["after"] == "scale"


def test_what_a_stage_reads_is_resolved_in_each_scenario():
    """PREVIOUS is whichever stage comes before: the scores, or ALiBi's bias before the mask."""
    steps = stages_for(load(SCENARIOS / "cat_sat.yaml"))
    by_name = {stage.name: stage for stage in steps}
    assert reads(by_name["mask"], steps) == ("scale",)
    assert reads(by_name["weighted_sum"], steps) == ("softmax", "V")
    assert highlights("mask", steps) == {"Q": "row", "K": "key"}
    assert highlights("softmax", steps) == {}  # row-wide: a step of its own
    assert highlights("weighted_sum", steps) == {"V": "all"}
    with_bias = stages_for(
        load(SCENARIOS / "cat_sat.yaml").__class__(
            title="t",
            tokens=("a",),
            inputs={"Q": [[1.0]], "K": [[1.0]], "V": [[1.0]]},
            stage_settings={"bias": object()},
        )
    )
    assert reads({stage.name: stage for stage in with_bias}["mask"], with_bias) == ("bias",)
    assert [stage.name for stage in REGISTRY].index("bias") == [
        stage.name for stage in REGISTRY
    ].index("scale") + 1


TOGGLED = r"""
import asyncio, contextlib, io, json, sys
from dataclasses import dataclass
import attn_tui.core.engine.stages as stages
from attn_tui.core.engine.stages import KEYS, PREVIOUS, Arithmetic, Display, Stage, Toggle, TurnedOn
from attn_tui.core.engine.stages.contract import AFTER_THE_MASK, NoGradient
from attn_tui.core.model.edits import SetStageSetting


@dataclass(frozen=True)
class Halved:
    largest = 0.0
    by: int = 2

    def describe(self):
        return f"halved by {self.by}"

    def yaml(self, matrix):
        return f"halved: {self.by}\n"

    def of_head(self, h, heads):
        return self


def switch(scenario, setting):
    return SetStageSetting("halved", setting, scenario.stage_settings.get("halved"))


HALVED = Stage(name="halved", title="Halved", key="halved",
               arithmetic=Arithmetic(
                   compute=lambda w: w.previous() / w.scenario.stage_settings["halved"].by,
                   reads=(PREVIOUS,), columns=stages.VALUES),
               display=Display(heading=lambda scenario, options: "output ÷ by",
                               explain=lambda w: "the output halved", palette="diverging",
                               changes="as the output"),
               gradient=NoGradient("a test's stage, never given a loss:"),
               score_range=AFTER_THE_MASK,
               applies=lambda scenario: "halved" in scenario.stage_settings,
               turned_on=TurnedOn(toggle=Toggle(
                             "--halved", "add the Halved step", switch=switch, value="BY",
                             parse=lambda text: Halved(int(text)), on=lambda scenario: Halved(),
                             offers=lambda scenario: (("Halve by 4", "a quarter", Halved(4)),),
                             key="w", does="halve the weights (again: off)", footer="Halve")))
registry = list(stages.REGISTRY)
registry.insert([stage.name for stage in registry].index("weighted_sum") + 1, HALVED)
stages.REGISTRY = tuple(registry)

from attn_tui.core import load
from attn_tui.tui.app import AttnApp
from attn_tui.tui.cli import main
from attn_tui.tui.cli.parser import options
from attn_tui.tui.keys import KEYS

found = {"options": sorted(o for o in options()
                           if o in ("--halved", "--decode", "--tiles"))}
out = io.StringIO()
with contextlib.redirect_stdout(out):
    found["status"] = main(["--json", sys.argv[1], "--halved", "4"])
found["json"] = json.loads(out.getvalue())
found["keys"] = [(key.keys, key.action) for key in KEYS if key.keys in ("w", "d")]


async def drive():
    app = AttnApp(load(sys.argv[1]), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("w")
        found["after_z"] = (app.screen.stage,
                            app.screen.session.scenario.stage_settings["halved"].by)
        found["palette"] = [command.title for command in app.get_system_commands(app.screen)]
        await pilot.press("w")
        found["after_zz"] = "halved" in app.screen.session.scenario.stage_settings

asyncio.run(drive())
print(json.dumps(found))
"""


def test_a_stage_toggled_on_and_off_is_an_option_a_key_and_palette_entries():
    """A stage's Toggle alone gives it a command-line option, a key (on, and again off) and the
    palette's entries: nothing in tui/ names the stage."""
    result = subprocess.run(
        [sys.executable, "-c", TOGGLED, str(SCENARIOS / "cat_sat.yaml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found["options"] == ["--decode", "--halved", "--tiles"] and found["status"] == 0
    doc = found["json"]
    assert np.array_equal(
        np.array(doc["halved"]), np.array(doc["output"]) / 4
    )  # 4, as --halved said
    assert sorted(found["keys"]) == [["d", "toggle('decode')"], ["w", "toggle('halved')"]]
    assert found["after_z"] == ["halved", 2]  # the key turns on the Toggle's `on`, and steps to it
    assert "Halve by 4" in found["palette"] and found["after_zz"] is False
