"""A scaled score plus a bias that overflows float64 (issue 19's stages attacked): refused when
read, when s would change the scale, and by check; an edit that makes one overflow is undone, as is
a recovery copy's scale or causal mask that would not hold; ALiBi near float64's edge is fine."""

from __future__ import annotations

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core.editing.session import Session
from attn_tui.core.engine.attention import Attention
from attn_tui.core.errors import NumericError
from attn_tui.core.loading.scenario_file import check

# ---- a bias that overflows ---------------------------------------------------------------------

EDGE = "1.3407807929942596e154"  # its square is float64's largest number but one ulp or so


def test_a_scaled_score_plus_a_bias_that_overflows_is_refused_when_read(write):
    """Q·K = 1.798e308 is a finite score, and a bias of 1e299 is below the limit: their sum is
    infinite, and the row's weight NaN. Before: --check said ok, --json died as an internal
    error."""
    path = write(
        f"tokens: [a]\nQ: [[{EDGE}]]\nK: [[{EDGE}]]\nV: [[1]]\nscale: false\nbias: [[1e299]]\n"
    )
    with pytest.raises(ScenarioError, match="plus the bias overflows float64"):
        load(path)
    with pytest.raises(ScenarioError, match="plus the bias overflows float64"):
        check(path)


def test_a_bias_that_would_overflow_once_s_changes_the_scale_is_refused_by_check_and_load(write):
    """scale: 1e200 keeps the scaled score small, but the app's s key switches to ÷√d_k = 1:
    check() passed such a file (its quick bound) while load() refused it."""
    path = write(
        f"tokens: [a]\nQ: [[{EDGE}]]\nK: [[{EDGE}]]\nV: [[1]]\nscale: 1e200\nbias: [[1e299]]\n"
    )
    for read in (load, check):
        with pytest.raises(ScenarioError, match="as the app's s key can set it"):
            read(path)


def test_alibi_near_float64s_edge_is_not_refused(write):
    """ALiBi adds at most thousands: nothing a float64 of 1.8e308 notices."""
    path = write(
        f"tokens: [a]\nQ: [[{EDGE}]]\nK: [[{EDGE}]]\nV: [[1]]\nscale: false\nalibi: true\n"
    )
    assert np.isfinite(Attention(load(path)).values("softmax", 0, range(1), range(1))).all()


def test_an_edit_that_makes_a_scaled_score_plus_the_bias_overflow_is_undone():
    session = Session(
        loads("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nscale: false\nbias: [[1e299]]\n"),
        keep_recovery=False,
    )
    session.set_cell("Q", 0, 0, float(EDGE))
    with pytest.raises(NumericError, match="plus the bias"):
        session.set_cell("K", 0, 0, float(EDGE))
    assert session.cell("K", 0, 0) == 1.0
    assert np.isfinite(session.attention.values("softmax", 0, range(1), range(1))).all()


def test_an_edit_of_a_weight_under_a_tiny_scale_that_makes_a_scaled_score_infinite_is_undone():
    """An edit of Wq changes every query, and the quick bound skipped the exact check without
    dividing by the scale: with scale: 1e-300 a score of 1e10 scaled to ∞, and a row of weights
    to NaN (found on the way; not new in issue 19)."""
    session = Session(
        loads(
            "tokens: [a, b]\nX: [[1, 0], [0, 1]]\nWq: [[1], [1]]\nWk: [[1], [1]]\n"
            "Wv: [[1], [1]]\nscale: 1e-300\n"
        ),
        keep_recovery=False,
    )
    with pytest.raises(NumericError, match="overflows float64"):
        session.set_cell("Wq", 0, 0, 1e10)
    assert not np.isnan(session.attention.values("softmax", 0, range(2), range(2))).any()


# ---- recovery copies and options ----------------------------------------------------------------


def crafted_copy(path, edits):
    import json
    import os
    import time

    from attn_tui.core.editing.recovery import recovery_path

    copy = recovery_path(str(path))
    os.makedirs(os.path.dirname(copy), mode=0o700, exist_ok=True)
    with open(copy, "w") as file:
        json.dump(
            {"attn-tui-recovery": 1, "saved_at": time.time(), "source_sha256": "x", "edits": edits},
            file,
        )
    os.chmod(copy, 0o600)


def test_a_recovery_copys_scale_that_would_overflow_is_skipped(write):
    """A copy is untrusted: its scale of 1e-300 passed (a positive number) and scaled a score of
    1e10 to ∞: the row's weights were NaN."""
    path = write(
        "tokens: [a, b]\nQ: [[100000, 0], [0, 1]]\nK: [[100000, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n"
    )
    crafted_copy(path, [{"option": "scale", "value": 1e-300, "old": True}])
    session = Session(load(path))
    assert session.journal.restore(session.journal.pending()) == [
        "scale = 1e-300: a stage would overflow float64 with it"
    ]
    assert session.scenario.options.scale is True
    assert not np.isnan(session.attention.values("softmax", 0, range(2), range(2))).any()


def test_the_files_own_small_scale_after_edits_under_another_is_checked_again():
    """scale: 0.5; s to ÷√d_k, edits that are finite under it, s twice back to ÷0.5: the scores
    were checked only under the scale in force when they were made."""
    session = Session(
        loads("tokens: [a]\nQ: [[1]]\nK: [[1]]\nV: [[1]]\nscale: 0.5\n"), keep_recovery=False
    )
    session.cycle_scale()
    session.set_cell("Q", 0, 0, float(EDGE))
    session.set_cell("K", 0, 0, float(EDGE))
    session.cycle_scale()
    with pytest.raises(NumericError, match="divided by 0.5"):
        session.cycle_scale()
    assert session.scenario.options.scale is False
    assert np.isfinite(session.attention.values("scale", 0, range(1), range(1))).all()


def test_a_recovery_copys_causal_mask_between_two_sequences_is_skipped(write):
    """The loader refuses causal: true with 2 queries and 3 keys; a copy could set it, and then
    Save said the file's layout could not take the edit."""
    path = write(
        "tokens: [a, b, c]\nquery_tokens: [x, y]\nQ: [[1, 0], [0, 1]]\n"
        "K: [[1, 0], [0, 1], [1, 1]]\nV: [[1, 0], [0, 1], [1, 1]]\n"
    )
    crafted_copy(path, [{"option": "causal", "value": True, "old": False}])
    session = Session(load(path))
    skipped = session.journal.restore(session.journal.pending())
    assert skipped == [
        "causal = True: causal needs as many queries as keys (2 queries, 3 keys), as the file "
        "itself would"
    ]
    assert session.scenario.options.causal is False
