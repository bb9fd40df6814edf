"""Saving keeps what the author wrote: comments, layout, anchors; only changed numbers move."""

from __future__ import annotations

import os

import numpy as np
import pytest

from attn_tui.core import load, loads
from attn_tui.core.editing.save import SaveError, render, updated_text
from attn_tui.core.editing.session import DiskChanged, Session
from attn_tui.core.files.atomic_write import write_atomic
from tests.conftest import SCENARIOS

COMMENTED = """\
# A teacher's scenario: keep this comment.
title: Mine
tokens: [a, b]
Q:            # queries
  - [1, 0]    # a
  - [0, 1.5]  # b
K: [[1, 0], [0, 1]]
V:
  - [1, 2]
  - [3, 4]
"""


def test_an_edit_changes_one_number_and_nothing_else(write):
    path = write(COMMENTED)
    text = updated_text(load(path).with_cell("Q", 1, 1, 5.0))
    assert text == COMMENTED.replace("[0, 1.5]  # b", "[0, 5]  # b")


def test_every_kind_of_number_round_trips_exactly(write):
    path = write(COMMENTED)
    scenario = load(path)
    for value in (0.1 + 0.2, -0.0, 1e-5, 1e300, -123456789.125, 2.0**-1074, 1 / 3):
        edited = scenario.with_cell("V", 0, 0, value)
        again = loads(updated_text(edited), str(path))
        assert np.float64(again.V[0, 0]).tobytes() == np.float64(value).tobytes(), value


def test_options_are_rewritten_in_place_or_appended(write):
    path = write(COMMENTED + "causal: true   # the mask\n")
    scenario = load(path).with_options(causal=False, scale=False)
    text = updated_text(scenario)
    assert "causal: false   # if true: the mask\n" in text  # (a comment that may no longer hold)
    assert text.endswith("scale: false\n")
    assert loads(text).options == scenario.options


def test_an_alias_keeps_its_old_numbers_when_its_anchor_is_edited(write):
    path = write("# shared\nQ: &qk [[1, 0], [0, 1]]  # Q = K\nK: *qk\nV: [[1, 0], [0, 1]]\n")
    scenario = load(path).with_cell("Q", 0, 0, 7.0)
    text = updated_text(scenario)
    saved = loads(text)
    assert saved.Q.tolist() == [[7, 0], [0, 1]]
    assert saved.K.tolist() == [[1, 0], [0, 1]]
    assert "# shared" in text and "&qk" in text and "# Q = K" in text


def test_editing_through_an_alias_writes_the_alias_out(write):
    path = write("Q: &qk [[1, 0], [0, 1]]\nK: *qk\nV: [[1, 0], [0, 1]]\n")
    saved = loads(updated_text(load(path).with_cell("K", 1, 1, 3.0)))
    assert saved.Q.tolist() == [[1, 0], [0, 1]] and saved.K.tolist() == [[1, 0], [0, 3]]


def test_row_and_cell_aliases(write):
    path = write("Q: [&r [1, &one 1], *r]\nK: [*r, [0, *one]]\nV: [[1], [2]]\n")
    scenario = load(path).with_cell("Q", 0, 1, 9.0)
    saved = loads(updated_text(scenario))
    assert saved.same_numbers(scenario)


def test_a_random_scenario_saves_its_numbers(write):
    path = write("# exercise\nrandom: {seed: 0, T: 3, d_k: 2}\ncausal: false\n")
    scenario = load(path).with_cell("V", 2, 1, 0.5)
    text = updated_text(scenario)
    assert "random:" not in text.replace("# was random:", "") and "# exercise" in text
    saved = loads(text)
    assert saved.random is None and saved.same_numbers(scenario)


def test_a_random_scenario_with_only_an_option_changed_stays_random(write):
    path = write("random: {seed: 0, T: 3, d_k: 2}\n")
    text = updated_text(load(path).with_options(causal=False))
    assert "random: {seed: 0, T: 3, d_k: 2}" in text and "causal: false" in text


def test_a_flow_style_file(write):
    path = write("{Q: [[1]], K: [[1]], V: [[2]]}")
    saved = loads(updated_text(load(path).with_cell("V", 0, 0, 3.0).with_options(causal=False)))
    assert saved.V.tolist() == [[3]] and saved.options.causal is False


def test_crlf_line_endings_survive(tmp_path):
    path = tmp_path / "crlf.yaml"
    path.write_bytes(COMMENTED.replace("\n", "\r\n").encode())
    text = updated_text(load(path).with_cell("Q", 0, 0, 2.0))
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")
    write_atomic(str(path), text)
    assert path.read_bytes().count(b"\r\n") == COMMENTED.count("\n")


def test_every_builtin_saves_an_edit_and_reads_back(tmp_path):
    for source in SCENARIOS.glob("*.yaml"):
        path = tmp_path / source.name
        path.write_text(source.read_text())
        scenario = load(path)
        name = scenario.editable[0]
        edited = scenario.with_cell(name, 0, 0, 4.25).with_options(
            causal=not scenario.options.causal
        )
        assert loads(updated_text(edited)).same_numbers(edited), source.name


def test_render_writes_a_fresh_file_that_loads_the_same():
    scenario = load(SCENARIOS / "unscaled_x10.yaml").with_cell("Q", 0, 1, -2.5)
    assert loads(render(scenario).text).same_numbers(scenario)


def test_write_atomic_leaves_the_old_file_when_the_rename_fails(tmp_path, monkeypatch):
    path = tmp_path / "s.yaml"
    path.write_text("old\n")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        write_atomic(str(path), "new\n")
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["s.yaml"]  # the temporary file was removed


def test_write_atomic_keeps_the_permissions(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("old\n")
    path.chmod(0o640)
    write_atomic(str(path), "new\n")
    assert path.read_text() == "new\n" and (path.stat().st_mode & 0o777) == 0o640


# ---- the session ----------------------------------------------------------------------------


def test_session_save_and_reload(write):
    path = write(COMMENTED)
    session = Session(load(path))
    session.set_cell("Q", 1, 1, 5.0)
    assert session.modified
    session.save()
    assert not session.modified
    assert "# A teacher's scenario: keep this comment." in path.read_text()
    assert load(path).Q[1, 1] == 5.0
    session.set_cell("Q", 0, 0, 2.0)  # a second save starts from the saved text
    session.save()
    assert load(path).Q.tolist() == [[2, 0], [0, 5]]


def test_session_refuses_to_overwrite_a_file_changed_on_disk(write):
    path = write(COMMENTED)
    session = Session(load(path))
    session.set_cell("Q", 0, 0, 2.0)
    path.write_text(COMMENTED.replace("Mine", "Someone else's"))
    with pytest.raises(DiskChanged):
        session.save()
    assert "Someone else's" in path.read_text()
    session.save(force=True)
    assert load(path).Q[0, 0] == 2.0


def test_session_save_as_then_save_goes_to_the_new_file(write, tmp_path):
    path = write(COMMENTED)
    session = Session(load(path))
    session.set_cell("V", 0, 0, 9.0)
    copy = tmp_path / "copy.yaml"
    session.save(str(copy))
    assert load(copy).V[0, 0] == 9.0 and load(path).V[0, 0] == 1.0
    session.set_cell("V", 0, 1, 8.0)
    session.save()
    assert load(copy).V[0, 1] == 8.0 and load(path).V[0, 1] == 2.0
    with pytest.raises(DiskChanged):  # save as onto an existing file asks first
        session.save(str(path))


def test_a_builtin_opened_by_name_is_never_overwritten():
    session = Session(load(SCENARIOS / "cat_sat.yaml"), read_only=True)
    session.set_cell("Q", 0, 0, 3.0)
    with pytest.raises(SaveError):
        session.save()
    assert load(SCENARIOS / "cat_sat.yaml").Q[0, 0] == 1.0


def test_session_undo_redo_restore_exactly():
    session = Session(load(SCENARIOS / "cat_sat.yaml"))
    start = session.scenario
    session.set_cell("Q", 2, 1, 5.0)
    session.nudge("V", 0, 0, 1)
    session.toggle_causal()
    session.cycle_scale()
    assert session.scenario.options.scale is False and session.scenario.V[0, 0] == 1.1
    while session.undo():
        pass
    assert session.scenario.same_numbers(start) and not session.modified
    for _ in range(4):
        session.redo()
    assert session.scenario.Q[2, 1] == 5.0 and session.scenario.options.causal is False


def test_an_overflowing_edit_is_refused_and_nothing_changes():
    from attn_tui.core.errors import NumericError

    session = Session(load(SCENARIOS / "cat_sat.yaml"))
    session.set_cell("Q", 2, 0, 1e200)
    with pytest.raises(NumericError):
        session.set_cell("K", 2, 0, 1e200)
    assert session.scenario.K[2, 0] == 1.0 and len(session.history) == 1


def test_a_value_too_large_to_blend_is_refused_wherever_it_comes_from():
    """V past 1e307 could round the weighted sum past float64's largest number: refused when
    typed into V, and when an X edit projects it into a value row of one head (of two)."""
    from attn_tui.core.errors import NumericError

    session = Session(load(SCENARIOS / "cat_sat.yaml"))
    session.set_cell("V", 1, 0, 9e306)  # below the limit: fine
    with pytest.raises(NumericError, match="keep V below"):
        session.set_cell("V", 2, 1, 2e307)
    assert (
        session.scenario.V[2, 1] == load(SCENARIOS / "cat_sat.yaml").V[2, 1]
        and len(session.history) == 1
    )
    session = Session(
        loads(
            "tokens: [a, b, c]\nheads: 2\nX: [[1, 0], [0, 1], [1, 1]]\n"
            "Wq: [[1, 0], [0, 1]]\nWk: [[1, 0], [0, 1]]\nWv: [[1, 0], [0, 1e300]]\n"
        )
    )
    with pytest.raises(NumericError, match="keep V below"):
        session.set_cell("X", 1, 1, 1e8)  # v of "b" in the second head: 1e308
    assert session.scenario.inputs["X"][1, 1] == 1.0


def test_a_new_file_gets_the_usual_permissions(tmp_path):
    path = tmp_path / "new.yaml"
    old = os.umask(0o022)
    try:
        write_atomic(str(path), "x\n")
    finally:
        os.umask(old)
    assert (path.stat().st_mode & 0o777) == 0o644


def test_saving_through_a_symlink_replaces_the_target_and_keeps_the_link(write, tmp_path):
    target = write(COMMENTED, "target.yaml")
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    session = Session(load(link))
    session.toggle_causal()
    session.save()
    assert link.is_symlink()
    assert "causal: false" in target.read_text()


def test_an_overflow_after_an_edit_names_the_right_cell():
    from attn_tui.core.errors import NumericError

    session = Session(load(SCENARIOS / "cat_sat.yaml"))
    session.set_cell("Q", 2, 0, 1e308)
    with pytest.raises(NumericError) as caught:
        session.set_cell("Q", 2, 1, 1e308)  # q3 · k3 = 2e308: the score (sat, sat)
    assert "(sat, sat)" in str(caught.value)
    with pytest.raises(NumericError) as caught:
        session.set_cell("K", 1, 0, 1e308)  # q3 · k2 = 1e308 × 1e308: the score (sat, cat)
    assert "(sat, cat)" in str(caught.value)


def test_a_comment_on_a_changed_option_is_marked_as_said_of_the_old_value(tmp_path):
    """After c, s, ctrl+s the file must not say `causal: false  # a token may not look at the
    tokens after it` unmarked. Such a comment is marked; changed back, the mark goes; a comment that
    speaks of the new value (as `attn-tui new` writes them) stays as it is."""
    path = tmp_path / "cat.yaml"
    path.write_text(
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"
        "causal: true   # a token may not look ahead\n"
        "scale: true    # true: divide by sqrt(d_k); false: no scaling\n"
    )
    session = Session(load(path))
    session.toggle_causal()
    session.cycle_scale()
    session.save()
    text = path.read_text()
    assert "causal: false   # if true: a token may not look ahead\n" in text
    assert "scale: false    # true: divide by sqrt(d_k); false: no scaling\n" in text
    session.toggle_causal()
    session.save()
    assert "causal: true   # a token may not look ahead\n" in path.read_text()
    assert load(path).options.causal is True


def test_the_mark_older_versions_wrote_goes_when_the_value_comes_back(tmp_path):
    path = tmp_path / "cat.yaml"
    path.write_text(
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"
        "causal: false   # when causal was true: a token may not look ahead\n"
    )
    session = Session(load(path))
    assert session.description_options.causal is True  # what the comment was written for
    session.toggle_causal()
    session.save()
    assert path.read_text().endswith("causal: true   # a token may not look ahead\n")


@pytest.mark.parametrize(
    "comment, causal",
    [
        ("if true: a token may not look ahead", True),
        ("if !!python/object/apply:os.system: x", False),  # never built: not a value of causal
        ("if [&a[x,x],*a,*a]: x", False),
        ("if 2: not a value of causal", False),
    ],
)
def test_only_a_mark_of_a_value_the_option_can_take_is_read(tmp_path, comment, causal):
    path = tmp_path / "cat.yaml"
    path.write_text(
        "Q: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"
        f"causal: false   # {comment}\n"
    )
    assert Session(load(path)).description_options.causal is causal


def test_an_edit_is_refused_exactly_when_some_score_would_not_be_finite():
    """The edit-time check (a bound first, the changed rows and columns only if the bound is
    near float64's largest) against every score of every head, recomputed whole: random X edits
    of a two-head projection, with magnitudes around where scores overflow."""
    import math
    import random

    from attn_tui.core.errors import NumericError

    rng = random.Random(7)
    outcomes = set()
    for _ in range(60):
        scale = rng.choice([1e-300, 1.0, 1e150, 1e300])
        text = (
            "tokens: [a, b, c]\nheads: 2\nX: [[1, 0], [0, 1], [1, 1]]\n"
            f"Wq: [[1, 0], [0, 1]]\nWk: [[1, 0], [0, 1]]\nWv: [[1, 0], [0, 1]]\nscale: {scale}\n"
        )
        session = Session(loads(text))
        row, col = rng.randrange(3), rng.randrange(2)
        value = rng.choice([1.0, 1e100, 1e150, 1e153, 1e154, 1e155, 1e160, 1e300]) * rng.choice(
            [1, -1]
        )
        X = np.array(session.scenario.inputs["X"])
        X[row, col] = value
        with np.errstate(over="ignore", invalid="ignore"):
            scores = [
                (X[:, [h]] @ X[:, [h]].T) / scale for h in range(2)
            ]  # d_k = 1: head h is column h
        overflows = not all(np.isfinite(s).all() for s in scores)
        try:
            session.set_cell("X", row, col, value)
            refused = False
        except NumericError:
            refused = True
        assert refused == overflows, (value, row, col, scale)
        assert refused == (session.scenario.inputs["X"][row, col] != value) or math.isnan(value)
        outcomes.add(refused)
    assert outcomes == {True, False}
