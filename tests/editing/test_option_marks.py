"""core/editing/option_marks.py: what a scenario's words were written for once an option has
changed: a comment after an option's value, its mark ("if true: …"), the options a file's words
were written for, and the words for what differs now. Expected values by hand."""

from __future__ import annotations

import math

import pytest

from attn_tui.core.editing.option_marks import (
    comment_after,
    differences,
    mark,
    marked,
    written_for,
)
from attn_tui.core.files.yaml_source import parse
from attn_tui.core.model.options import Options
from attn_tui.core.reading.keys import entries


def option_nodes(text: str) -> dict:
    top = entries(parse(text).root, "the scenario")
    return {name: top[name].value for name in ("causal", "scale", "mask_value") if name in top}


def test_the_comment_after_a_value_and_where_it_is():
    text = "causal: true   # a token may not look ahead\nscale: 2\n"
    hash_at, line_end, said = comment_after(text, option_nodes(text)["causal"])
    assert (hash_at, line_end, said) == (15, 43, "a token may not look ahead")
    assert comment_after(text, option_nodes(text)["scale"]) is None


def test_a_hash_inside_a_word_is_not_a_comment():
    text = "scale: 2#3\n"
    assert comment_after(text, option_nodes(text)["scale"]) is None


def test_a_mark_says_the_value_a_comment_was_written_of():
    assert mark("true", "a token may not look ahead") == "if true: a token may not look ahead"
    assert marked("if true: a token may not look ahead", "causal") == (
        "true",
        "a token may not look ahead",
    )
    assert marked("when causal was false: both ways", "causal") == ("false", "both ways")
    assert marked("a plain comment", "causal") is None


def test_the_words_were_written_for_the_options_the_marks_say():
    text = "causal: false  # if true: no peeking\nscale: false  # if 4: divided by four\n"
    options = Options(causal=False, scale=False)
    assert written_for(options, text, option_nodes(text)) == Options(causal=True, scale=4.0)


def test_without_marks_the_words_are_the_files_own_options():
    text = "causal: false  # both ways\n"
    options = Options(causal=False)
    assert written_for(options, text, option_nodes(text)) is options


@pytest.mark.parametrize(
    "comment",
    [
        "causal: false  # if maybe: words\n",  # not a value causal takes
        "causal: false  # if 1: words\n",  # a number is not a boolean
        "causal: false  # if !!python/object: words\n",  # nothing YAML could build
    ],
)
def test_a_mark_of_a_value_the_option_cannot_take_is_ignored(comment):
    options = Options(causal=False)
    assert written_for(options, comment, option_nodes(comment)) == options


def test_a_scale_or_mask_mark_must_be_a_value_they_can_take():
    text = "scale: 2  # if -1: x\nmask_value: -1e9  # if 5: y\n"
    options = Options(scale=2.0, mask_value=-1e9)
    assert written_for(options, text, option_nodes(text)) == options
    text = "scale: 2  # if 0.5: x\nmask_value: -1e9  # if -.inf: y\n"
    assert written_for(options, text, option_nodes(text)) == Options(
        scale=0.5, mask_value=-math.inf
    )


def test_the_words_for_what_differs():
    assert differences(Options(), Options(), 4) == ""
    assert differences(Options(causal=True), Options(causal=False), 4) == (
        "causal on; now causal off"
    )
    # √4 = 2.000; True and 2.0 divide alike, but are not the same setting
    assert differences(Options(scale=True), Options(scale=2.0), 4) == (
        "scale ÷√4 = 2.000; now scale ÷2"
    )
    assert differences(Options(causal=False, mask_value=-1e9), Options(), 4) == (
        "causal off, mask −1e9; now causal on, mask −∞"
    )
