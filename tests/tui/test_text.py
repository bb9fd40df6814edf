"""core.text.visible: nothing from outside reaches a terminal as a control sequence."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from attn_tui.core.text import quoted, visible

OSC52 = "b\x1b]52;c;cm0gLXJmIH4=\x1b\\"


def test_escape_sequences_become_visible_pictures():
    assert visible(OSC52) == "b␛]52;c;cm0gLXJmIH4=␛\\"
    assert visible("\x1b[2J") == "␛[2J"
    assert visible("a\x07b\x00c\x7fd") == "a␇b␀c␡d"


def test_c1_bidi_and_separators_show_their_code_points():
    assert visible("\x9b2J") == "<U+009B>2J"
    assert visible("abc\u202edef\u2066x\u2069") == "abc<U+202E>def<U+2066>x<U+2069>"
    assert visible("a\u2028b") == "a<U+2028>b"
    assert visible("half \ud800 pair") == "half <U+D800> pair"


def test_one_line_unless_multiline():
    assert visible("two\nlines\tand a tab") == "two␊lines␉and a tab"
    assert visible("two\nlines\tand a tab", multiline=True) == "two\nlines    and a tab"


def test_ordinary_text_is_untouched():
    for text in (
        "the cat sat",
        "[/INST]",
        "<|endoftext|>",
        "Ġcat",
        "日本語",
        "مرحبا",
        "e\u0301",
        "👩‍👩‍👧",
    ):
        assert visible(text) == text
    assert quoted("[CLS]") == '"[CLS]"'


@given(st.text())
def test_nothing_that_steers_a_terminal_survives(text):
    shown = visible(text)
    for ch in shown:
        assert unicodedata.category(ch) not in ("Cc", "Cs"), repr(ch)
        assert not (0x202A <= ord(ch) <= 0x202E or 0x2066 <= ord(ch) <= 0x2069), repr(ch)
    shown.encode("utf-8")  # a terminal can always be given it


def test_every_character_a_table_changes_is_found_before_translating():
    """visible() translates only text in which a search finds a character to change: the search
    must find each one (alone, and inside other text), on one line and on several."""
    from attn_tui.core import text

    for table, multiline in ((text._SINGLE_LINE, False), (text._MULTI_LINE, True)):
        for code, shown in table.items():
            if shown != chr(code):
                assert visible(f"ab{chr(code)}c", multiline) == f"ab{shown}c", hex(code)
    assert visible("plain −∞ √2 · 0.248") == "plain −∞ √2 · 0.248"
