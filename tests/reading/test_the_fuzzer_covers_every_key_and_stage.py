"""The fuzzer reaches all of the loader: it draws every key the loader knows, and its
finiteness check covers every stage the registry gives a scenario (both derived, not listed)."""

from __future__ import annotations

import re

import pytest

from attn_tui.core import ScenarioError, compute_all, loads
from attn_tui.core.engine.stages import scenario_keys as stage_keys
from attn_tui.core.loading import scenario_file
from tests.reading.fuzz_property import finite_parts
from tests.reading.fuzz_words import KEY_TEXTS, SCENARIO_KEYS


def test_the_finiteness_check_covers_every_stage_the_registry_gives_a_scenario():
    """Derived, not listed: the old hand-made list had the scores, scaled, masked, weights and
    output, and missed a bias's, a softcap's and the backward pass's values."""
    from attn_tui.core.engine.stages import REGISTRY

    scenario = loads(
        "tokens: [a, b]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\nalibi: true\nsoftcap: 5\n"
        "tiles: {queries: 1, keys: 1}\nloss: {target: [[1], [0]]}\n"
    )
    parts = finite_parts(scenario, compute_all(scenario)[""])
    shown = {
        stage.key + (" (shown cells)" if stage.arithmetic.masks or stage.arithmetic.skipped else "")
        for stage in REGISTRY
        if stage.arithmetic.per_head and stage.applies(scenario)
    }
    summaries = {summary.name for stage in REGISTRY for summary in stage.reported.summaries}
    assert shown | summaries | {"row_max", "row_sum", "tile_max"} <= set(parts)
    assert {"biased", "capped", "online (shown cells)", "d_raw_scores"} <= set(parts)


def test_the_fuzzer_draws_the_loaders_own_keys():
    """The fuzzer's keys are every key the loader knows (as its error for an unknown key lists
    them) and no other: its own list of 19 had drifted behind the loader's 41, so that no random
    document ever reached bias, softcap, alibi, rope, heads, mask, tiles, decode, lesson or
    expect."""
    with pytest.raises(ScenarioError) as error:
        loads("not_a_key: 1\n")
    known = re.search(r"\(known keys: ([^)]*)\)", str(error.value)).group(1).split(", ")
    assert sorted(SCENARIO_KEYS) == sorted(known)
    assert sorted(SCENARIO_KEYS) == sorted(set(scenario_file.KEYS) | set(stage_keys()))
    assert set(SCENARIO_KEYS) <= set(KEY_TEXTS)
