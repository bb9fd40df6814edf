"""Text measured as the terminal draws it: zero-width characters made visible, and
grapheme clusters (ZWJ emoji, flags, combining marks, wide CJK) measured and clipped whole, so
that columns stay aligned and no label is cut mid-cluster. core.text is checked here against
Rich's own measure (core may not import Rich; a test may), at Python's Unicode version."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from attn_tui.core.text import cells, clip, fit, visible

UNICODE = unicodedata.unidata_version
FAMILY = "👨\u200d👩\u200d👧"  # one glyph of two cells
RAINBOW = "🏳\ufe0f\u200d🌈"
HEART = "❤\ufe0f"  # a text-default emoji, made wide by VS16
FLAG = "🇫🇷"
SAMPLES = [
    "the cat",
    "日本語",
    "e\u0301te\u0301",
    FAMILY,
    RAINBOW,
    HEART,
    FLAG,
    "👍🏽",
    "ｱｲｳ",
    "مرحبا",
    "कि",
    "한국어",
    "a\u0300\u0301\u0302",
    "⌚",
    "1\ufe0f\u20e3",
    "Ġcat",
    "▁the",
    "x" * 300,
    f"{FAMILY}{FLAG}中e\u0301",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_width_is_richs(text):
    assert cells(text) == cell_len(text, UNICODE)


# letters of many scripts, CJK, combining marks, emoji and their joiners and modifiers
ALPHABET = st.one_of(
    st.characters(
        min_codepoint=0x20, max_codepoint=0x2FFF, exclude_categories=("Cs", "Cc", "Co", "Cn")
    ),
    st.characters(min_codepoint=0x3000, max_codepoint=0x9FFF, exclude_categories=("Cs", "Cn")),
    st.characters(min_codepoint=0x1F000, max_codepoint=0x1FAFF, exclude_categories=("Cn",)),
    st.sampled_from(["\u200d", "\ufe0f", "\u0301", "\U0001f3fd", "\U0001f1eb", "\U0001f1f7"]),
)


@given(st.text(ALPHABET, max_size=20))
def test_width_is_richs_for_any_text_shown(text):
    shown = visible(text)
    assert cells(shown) == cell_len(shown, UNICODE)


@given(st.text(ALPHABET, max_size=20), st.integers(1, 12))
def test_a_clipped_label_fits_and_is_never_cut_inside_a_cluster(text, width):
    shown = visible(text)
    clipped = clip(shown, width)
    assert cells(clipped) <= width
    if cells(shown) <= width:
        assert clipped == shown
    else:
        assert clipped.endswith("…")
        kept = clipped[:-1]
        assert shown.startswith(kept)
        # the cut falls between clusters: measuring the two halves apart adds up
        assert cells(kept) + cells(shown[len(kept) :]) == cells(shown)
    assert cells(fit(shown, width)) == width and cells(fit(shown, width, left=True)) == width


def test_clusters_stay_whole():
    assert clip(f"{FAMILY}{FAMILY}", 3) == f"{FAMILY}…"  # not a man and a dangling joiner
    assert clip("e\u0301e\u0301e\u0301", 2) == "e\u0301…"  # the accent stays with its e
    assert clip(f"{FLAG}{FLAG}", 3) == f"{FLAG}…"  # not half a flag (one regional indicator)
    assert clip("日本語", 4) == "日…"  # a wide character never half drawn
    assert clip("abc", 3) == "abc" and clip("abcd", 3) == "ab…"
    assert fit("日本", 6) == "  日本" and fit("日本", 6, left=True) == "日本  "


def test_zero_width_characters_are_made_visible():
    assert visible("a\u200bb") == "a<U+200B>b"
    assert visible("\ufeffstart") == "<U+FEFF>start"
    for code in (
        0x200C,
        0x200E,
        0x200F,
        0x2060,
        0x2061,
        0x2064,
        0x061C,
        0x180E,
        0x00AD,
        0x3164,
        0x115F,
    ):
        assert visible(f"x{chr(code)}y") == f"x<U+{code:04X}>y", hex(code)
    assert (
        visible("cat\u200ddog") == "cat<U+200D>dog"
    )  # a joiner between letters hides nothing good
    assert visible("\u200d") == "<U+200D>" and visible(f"{FAMILY}\u200d") == f"{FAMILY}<U+200D>"
    for emoji in (
        FAMILY,
        RAINBOW,
        "👩🏽\u200d💻",
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
    ):
        assert visible(emoji) == emoji  # emoji sequences are drawn as one glyph: left as they are
    # tag characters outside a flag spell hidden ASCII ("ASCII smuggling")
    assert visible("ok\U000e0068\U000e0069") == "ok<U+E0068><U+E0069>"


@pytest.mark.parametrize("token", ["a\u200bb", "x\u2060", "\ufeff"])
def test_look_alike_tokens_are_told_apart(token):
    assert visible(token) != token.replace("\u200b", "").replace("\u2060", "").replace("\ufeff", "")


def test_every_character_is_as_wide_as_rich_says():
    from rich.cells import get_character_cell_size

    from attn_tui.core.text import _width

    # every assigned plane (0-3, 14) whole; the empty planes between, a sample
    codes = [
        *range(0x20, 0xD800),
        *range(0xE000, 0x40000),
        *range(0xE0000, 0xE1000),
        *range(0x40000, 0x110000, 97),
    ]
    differ = [
        hex(code)
        for code in codes
        if _width(chr(code)) != get_character_cell_size(chr(code), UNICODE)
    ]
    assert differ == []


async def test_the_why_pane_is_never_wrapped_before_it_has_a_width(monkeypatch):
    # the first frame of the app showed the Why pane wrapped to one column (it was given its
    # text at mount, before layout); the words came a frame later (~25 ms of the start)
    from attn_tui.tui.widgets.explanation import ExplanationView
    from tests.tui_helpers import explanation, running

    widths = []
    lay_out = ExplanationView._lay_out

    def recorded(self):
        widths.append(self.scrollable_content_region.width)
        lay_out(self)
        if self._wrapped is not None:
            assert self.scrollable_content_region.width > 1

    monkeypatch.setattr(ExplanationView, "_lay_out", recorded)
    async with running() as (app, pilot):
        await pilot.pause()
        assert "raw scores: [1, 1, 2]" in explanation(app)
        assert widths and max(widths) > 40
        view = app.screen.query_one(ExplanationView)
        assert any("raw scores: [1, 1, 2]" in line.plain for line in view._wrapped)
