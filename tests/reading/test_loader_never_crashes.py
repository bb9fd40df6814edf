"""Fuzzing the scenario loader: it never crashes, never hangs, never blows up memory.

Every document the strategies produce — random YAML built from the scenario's own keys
with wrong types and shapes, extreme and non-finite numbers, deep nesting, anchors, aliases,
merge keys, tags, unicode and duplicate keys; random bytes; truncated and mutated copies of the
shipped scenarios — must end in either

* a Scenario, whose every stage computes to finite numbers (masked cells may be -inf), or
* a ScenarioError that carries a line number,

and must take less than a second. Any other exception is a failure.

The example count is modest so the normal run stays fast; hunt with more:

    FUZZ_EXAMPLES=20000 python -m pytest tests/reading/test_loader_never_crashes.py

The bugs a long run found are pinned by tests/reading/test_bugs_the_fuzzer_found.py (each was a
strict xfail until it was fixed); tests/reading/test_loader_memory_on_nasty_inputs.py checks the
memory the nastiest inputs take.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attn_tui.core import ScenarioError, load, loads
from tests.reading.fuzz_float64_edges import valid_scenario_documents
from tests.reading.fuzz_mutated_shipped import mutated_shipped
from tests.reading.fuzz_property import FUZZ, SHIPPED, check_bytes, check_text
from tests.reading.fuzz_scenarios import scenario_documents
from tests.reading.fuzz_yaml import alias_bombs, nested_documents, random_documents

# ---- the fuzz tests ----------------------------------------------------------------------------


@FUZZ
@given(random_documents())
def test_random_yaml_never_crashes(text):
    check_text(text)


@FUZZ
@given(scenario_documents())
def test_near_valid_scenarios_load_or_fail_with_a_position(text):
    check_text(text)


@FUZZ
@given(valid_scenario_documents())
def test_scenarios_at_the_edges_of_float64_never_compute_to_nan(text):
    check_text(text)


@FUZZ
@given(st.one_of(nested_documents(), alias_bombs()))
def test_nesting_and_alias_bombs_are_refused_quickly(text):
    check_text(text)


@FUZZ
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_arbitrary_text_never_crashes(text):
    check_text(text)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz_loader")


BOMS = [b"", b"", b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00"]


@FUZZ
@given(
    data=st.one_of(
        st.binary(max_size=2000),
        st.tuples(st.sampled_from(BOMS), st.binary(max_size=500)).map(b"".join),
        st.tuples(
            st.sampled_from(list(SHIPPED.values())), st.binary(max_size=50), st.integers(0, 4000)
        ).map(lambda t: t[0][: t[2]] + t[1] + t[0][t[2] :]),
        st.tuples(
            random_documents(),
            st.sampled_from(
                ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1"]
            ),
        ).map(lambda t: t[0].encode(t[1], errors="replace")),
    )
)
def test_random_bytes_through_load_never_crash(scratch, data):
    check_bytes(data, scratch)


@FUZZ
@given(mutated_shipped())
def test_mutated_shipped_scenarios_never_crash(text):
    check_text(text)


@FUZZ
@given(st.sampled_from(sorted(SHIPPED)), st.data())
def test_truncated_shipped_bytes_never_crash(scratch, name, data):
    raw = SHIPPED[name]
    raw = data.draw(st.sampled_from([raw, raw.decode().encode("utf-16")]))
    cut = data.draw(st.integers(0, len(raw)))
    check_bytes(raw[:cut], scratch)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_scenarios_load(name):
    assert check_text(SHIPPED[name].decode("utf-8"), name) is not None


def test_file_errors_have_no_line_but_name_the_file(tmp_path):
    for path in (tmp_path / "missing.yaml", tmp_path):
        with pytest.raises(ScenarioError) as caught:
            load(path)
        assert caught.value.line is None
        assert str(caught.value).startswith(f"{path}: ")


try:  # the header's quick check, where the loader has one: it promises what loads() will do
    from attn_tui.core.loading.scenario_file import check_text as quick_check
except ImportError:  # pragma: no cover - an older layout without it
    quick_check = None


@pytest.mark.skipif(quick_check is None, reason="no core.loading.scenario_file.check_text")
@FUZZ
@given(st.one_of(scenario_documents(), valid_scenario_documents(), mutated_shipped()))
def test_quick_check_agrees_with_loads(text):
    outcomes = []
    for call in (quick_check, loads):
        try:
            call(text, "agree.yaml")
            outcomes.append(None)
        except ScenarioError as error:
            outcomes.append((error.line, error.col, error.message))
    assert outcomes[0] == outcomes[1], f"check_text: {outcomes[0]}; loads: {outcomes[1]}"
