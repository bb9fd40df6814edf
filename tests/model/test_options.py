"""core/model/options.py: the divisor and its words, a variant over the scenario's options, and
the article's random inputs. Expected values by hand, or NumPy's legacy stream drawn here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_tui.core.model.options import Options, RandomSpec, Variant


@pytest.mark.parametrize(
    ("scale", "d_k", "divisor", "words"),
    [
        (True, 4, 2.0, "÷√4 = 2.000"),
        (True, 2, 1.4142135623730951, "÷√2 = 1.414"),
        (False, 64, 1.0, "none"),
        (0.5, 64, 0.5, "÷0.5"),
        (8.0, 2, 8.0, "÷8"),
    ],
)
def test_the_divisor_and_how_a_header_says_it(scale, d_k, divisor, words):
    options = Options(scale=scale)
    assert options.divisor(d_k) == divisor
    assert options.scale_text(d_k) == words


def test_root_dk_is_the_correctly_rounded_square_root():
    """The same bits as np.sqrt, so a score divided here matches one divided by NumPy."""
    for d_k in (2, 3, 5, 7, 64, 96, 128):
        assert Options().divisor(d_k) == float(np.sqrt(np.float64(d_k)))


def test_one_line_names_every_option():
    assert Options().describe(4) == "causal · ÷√4 = 2.000 · mask −∞"
    assert Options(causal=False, scale=False).describe(4) == "not causal · unscaled · mask −∞"


def test_a_variant_overrides_only_what_it_sets():
    base = Options(causal=True, scale=True, mask_value=-math.inf)
    assert Variant("unscaled", scale=False).options(base) == Options(True, False, -math.inf)
    assert Variant("all", causal=False, scale=4.0, mask_value=-1e9).options(base) == Options(
        False, 4.0, -1e9
    )
    # a variant that leaves causal to the scenario follows it when the scenario's changes
    follows = Variant("follows", scale=False)
    assert follows.options(Options(causal=False)).causal is False


def test_random_inputs_are_the_articles_seeded_draws():
    """np.random.seed(3); Q, K, V = randn(4, 2), randn(4, 2), randn(4, 5), in that order."""
    np.random.seed(3)
    Q, K, V = np.random.randn(4, 2), np.random.randn(4, 2), np.random.randn(4, 5)
    made = RandomSpec(seed=3, T=4, d_k=2, d_v=5).generate()
    assert made["Q"].tobytes() == Q.tobytes()
    assert made["K"].tobytes() == K.tobytes()
    assert made["V"].tobytes() == V.tobytes()
    # the first draw of seed 0, as printed in NumPy's own documentation of the legacy stream
    assert RandomSpec(seed=0, T=1, d_k=1, d_v=1).generate()["Q"][0, 0] == pytest.approx(
        1.764052345967664, rel=1e-15
    )
