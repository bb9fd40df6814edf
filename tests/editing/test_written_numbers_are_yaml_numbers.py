"""Every number in every YAML file the app writes is a number to any YAML reader.

PyYAML (YAML 1.1) reads ``1e-05`` as the STRING "1e-05": it wants a decimal point before the
exponent. The app's own reader takes either, so a file it wrote looked right to it and was
wrong to every other tool. Here each writer — a scenario written whole, saved in place, a stage
turned on and saved, a recorded lesson, ``attn-tui new``, capture's scenario and index — writes
tiny, huge, integral and signed values, and plain ``yaml.safe_load`` reads each back: every
number an int or a float, never a str, and the value the one written. (Recovery copies,
remembered settings and a class's responses are JSON: ``json`` has one number syntax.)"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import yaml

from attn_tui.core import loads
from attn_tui.core.editing.lesson_writer import with_beats
from attn_tui.core.editing.save import NeedsRewrite, render, updated_text
from attn_tui.core.model.lesson import Beat, CellEdit

VALUES = (
    1e-05,
    1e300,
    3.0,
    -0.0,
    2.0**-1074,
    0.1 + 0.2,
    1e16,
    123456789.125,
    1.5e-300,
    -1e-05,
    -1e300,
    -3.0,
    -123456789.125,
)
# a string PyYAML returns where a person (or YAML 1.2) sees a number
LOOKS_LIKE_A_NUMBER = re.compile(
    r"[-+]?(\d[\d_]*\.?\d*|\.\d+)([eE][-+]?\d+)?|[-+]?\.?(inf|Inf|INF|nan|NaN|NAN)"
)

BASE = (
    "title: numbers\ntokens: [a, b, c]\nQ: [[1, 0], [0, 1], [1, 1]]\nK: [[1, 0], [0, 1], [1, 1]]\n"
    "V: [[1, 2], [3, 4], [5, 6]]\ncausal: true\n"
)
# (what, the key(s) with the value as {v}, where safe_load puts it, the stage the key turns on)
SETTINGS = [
    ("softcap", "softcap: {v}\n", ("softcap",), "softcap"),
    ("an ALiBi slope", "alibi: {{slopes: [{v}]}}\n", ("alibi", "slopes", 0), "bias"),
    ("a bias", "bias: [[{v}, 0, 0], [0, 0, 0], [0, 0, 0]]\n", ("bias", 0, 0), "bias"),
    (
        "a loss target",
        "loss:\n  target: [[{v}, 0], [0, 1], [1, 1]]\n",
        ("loss", "target", 0, 0),
        "d_output",
    ),
    (
        "a loss gradient",
        "loss:\n  grad: [[{v}, 0], [0, 1], [1, 1]]\n",
        ("loss", "grad", 0, 0),
        "d_output",
    ),
    (
        "train's lr",
        "loss:\n  target: [[1, 0], [0, 1], [1, 1]]\ntrain: {{learn: [Q, K], lr: {v}, steps: 3}}\n",
        ("train", "lr"),
        "d_output",
    ),
    ("scale", "scale: {v}\n", ("scale",), None),
    ("mask_value", "mask_value: {v}\n", ("mask_value",), None),
    ("rope's base", "rope: {{base: {v}}}\n", ("rope", "base"), None),
    (
        "expect_tolerance",
        "expect_tolerance: {v}\nexpect: {{weights: [[1, ~, ~], [~, ~, ~], [~, ~, ~]]}}\n",
        ("expect_tolerance",),
        None,
    ),
    (
        "an expected weight",
        "expect: {{weights: [[{v}, ~, ~], [~, ~, ~], [~, ~, ~]]}}\n",
        ("expect", "weights", 0, 0),
        None,
    ),
]
# always on beside each: settings whose keys hold whole numbers and booleans
ALSO = "tiles: {queries: 2, keys: 2}\ndecode: true\n"


def assert_numbers_are_numbers(text: str, where=None, value: float | None = None) -> None:
    """``text`` as plain PyYAML reads it: no string that looks like a number, anywhere; and the
    node at ``where`` is a number, bit for bit ``value``."""
    document = yaml.safe_load(text)

    def walk(node, path):
        if isinstance(node, dict):
            for key, inner in node.items():
                walk(inner, (*path, key))
        elif isinstance(node, list):
            for i, inner in enumerate(node):
                walk(inner, (*path, i))
        elif isinstance(node, str):
            assert not LOOKS_LIKE_A_NUMBER.fullmatch(node), (
                f"{'.'.join(map(str, path))} is the string {node!r}:\n{text}"
            )

    walk(document, ())
    if where is not None:
        found = document
        for step in where:
            found = found[step]
        assert type(found) in (int, float), (where, found, text)
        assert np.float64(found).tobytes() == np.float64(value).tobytes(), (where, found, value)


def readable(text: str):
    """The scenario, if the app takes this text (some values are not allowed everywhere:
    mask_value is negative, a slope positive); None if it refuses it."""
    from attn_tui.core.errors import ScenarioError

    try:
        return loads(text, "/numbers/scenario.yaml")
    except ScenarioError:
        return None


# (what, key, where, stage, value) for each value the app takes there (mask_value is negative,
# a slope positive, …): a file it can write
CASES = [
    (what, key, where, stage, value)
    for what, key, where, stage in SETTINGS
    for value in VALUES
    if readable(BASE + ALSO + key.format(v=repr(value))) is not None
]


def test_every_setting_is_tried_at_tiny_and_huge_values():
    for what, *_ in SETTINGS:
        tried = [abs(value) for case_what, *_, value in CASES if case_what == what]
        assert len(tried) >= 4 and (min(tried) <= 1e-05 or max(tried) >= 1e300), (what, tried)
    for what in ("softcap", "train's lr", "scale"):
        tried = [value for case_what, *_, value in CASES if case_what == what]
        assert 1e-05 in tried and 1e300 in tried and 3.0 in tried, (what, tried)


@pytest.mark.parametrize(
    "what, key, where, stage, value", CASES, ids=[f"{what}={value!r}" for what, *_, value in CASES]
)
def test_a_scenario_written_whole_or_in_place_has_numbers_a_yaml_reader_reads_as_numbers(
    what, key, where, stage, value
):
    scenario = readable(BASE + ALSO + key.format(v=repr(value)))
    assert_numbers_are_numbers(
        render(scenario).text, where, value
    )  # Save As, or a file written whole

    # turned on in the app (a stage), or set there (a number), then saved in place
    if stage is not None:
        without = readable(BASE + ALSO)
        turned_on = dataclasses.replace(without, stage_settings=scenario.stage_settings)
        try:
            assert_numbers_are_numbers(updated_text(turned_on), where, value)
        except NeedsRewrite:
            pass  # (a setting with a matrix is written whole, as above)
    if what == "a bias":
        before = readable(BASE + ALSO + key.format(v="2"))
        assert_numbers_are_numbers(
            updated_text(before.with_cell("bias", 0, 0, value)), where, value
        )
    if what == "scale":  # (the s key; mask_value is not set in the app, and is written whole)
        before = readable(BASE + ALSO + key.format(v="2"))
        assert_numbers_are_numbers(updated_text(before.with_options(scale=value)), where, value)


@pytest.mark.parametrize("value", VALUES)
def test_an_edited_input_saved_in_place_or_whole_reads_as_a_number(value):
    scenario = readable(BASE).with_cell("Q", 0, 1, value)
    assert_numbers_are_numbers(updated_text(scenario), ("Q", 0, 1), value)
    assert_numbers_are_numbers(render(scenario).text, ("Q", 0, 1), value)


@pytest.mark.parametrize("value", VALUES)
def test_a_recorded_lesson_writes_its_edits_options_and_steps_turned_on_as_numbers(value):
    scenario = readable(BASE)
    beats = (Beat(say="set one cell", edits=(CellEdit("Q", 0, 1, value),)),)
    text = with_beats(scenario, beats)
    assert_numbers_are_numbers(text, ("lesson", 0, "edit", "to"), value)
    if readable(BASE + f"scale: {value!r}\n") is not None:
        text = with_beats(scenario, (Beat(say="scaled", options=(("scale", value),)),))
        lesson = yaml.safe_load(text)["lesson"]
        assert_numbers_are_numbers(text)
        assert np.float64(lesson[0]["set"]["scale"]).tobytes() == np.float64(value).tobytes()
        # the Softcap step turned on while recording: its key is written beside the lesson
        softcap = readable(BASE + f"softcap: {value!r}\n")
        if softcap is not None:
            text = with_beats(
                scenario, (Beat(say="capped", step="softcap"),), softcap.stage_settings
            )
            assert_numbers_are_numbers(text, ("softcap",), value)


@pytest.mark.parametrize("seed", [None, 0, 7, 12345])
def test_attn_tui_new_writes_numbers(seed):
    from attn_tui.core.model.template import scenario_template

    text = scenario_template(["the", "1e-05", "3.0", "-0.0", "cat"], 4, 3, seed=seed)
    assert_numbers_are_numbers(
        text.replace('"1e-05"', "t1").replace('"3.0"', "t2").replace('"-0.0"', "t3")
    )
    document = yaml.safe_load(text)
    assert document["tokens"] == [
        "the",
        "1e-05",
        "3.0",
        "-0.0",
        "cat",
    ]  # tokens stay strings, numbers numbers
    for name in ("Q", "K", "V"):
        assert all(type(x) in (int, float) for row in document[name] for x in row), document[name]


@pytest.mark.parametrize(
    "softcap, divisor, base",
    [(1e-05, 1e-05, 1e300), (3.0, 3.0, 10000.0), (1e300, 2.0**-1074, 1.5e-300)],
)
def test_capture_writes_its_scenario_and_index_with_numbers(softcap, divisor, base):
    from attn_tui.capture.agreement import Agreement
    from attn_tui.capture.captured_layer import CapturedLayer
    from attn_tui.capture.write_index import index_yaml
    from attn_tui.capture.write_scenario import About, scenario_yaml

    rng = np.random.default_rng(0)
    Q, K, V = rng.standard_normal((3, 2, 3, 4))
    captured = CapturedLayer(
        family="Llama",
        Q=Q,
        K=K,
        V=V,
        Wo=np.eye(8),
        bo=None,
        divisor=divisor,
        model_weights=np.full((2, 3, 3), 1 / 3),
        model_output=np.zeros((3, 8)),
        rope_base=base,
        softcap=softcap,
    )
    about = About(model="tiny", layer=0, depth=1, text="a b c", tokens=["1e-05", "b", "c"])
    text = scenario_yaml(captured, about, Agreement(weights=0.0, output=0.0), "tiny_l0.npz")
    document = yaml.safe_load(text)
    assert_numbers_are_numbers(text.replace('"1e-05"', "t"))
    assert document["tokens"][0] == "1e-05"
    for where, value in ((("softcap",), softcap), (("scale",), divisor), (("rope", "base"), base)):
        assert_numbers_are_numbers(text.replace('"1e-05"', "t"), where, value)
    assert_numbers_are_numbers(
        index_yaml("tiny", "a b c", [(0, "tiny_l0.yaml"), (11, "tiny_l11.yaml")], 2),
        ("layers", 1, "layer"),
        11,
    )


def test_the_check_finds_a_number_written_as_yaml_1_1_reads_a_string():
    """The check itself can fail: ``1e-05`` (Python's repr) is a string to PyYAML."""
    with pytest.raises(AssertionError, match="softcap is the string '1e-05'"):
        assert_numbers_are_numbers("softcap: 1e-05\n")
    with pytest.raises(AssertionError):
        assert_numbers_are_numbers("softcap: 1.0e-05\n", ("softcap",), 2e-05)
    assert_numbers_are_numbers("softcap: 1.0e-05\n", ("softcap",), 1e-05)
