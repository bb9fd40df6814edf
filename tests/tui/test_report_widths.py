"""--print's tables and bars measured as the terminal draws them: wide characters,
joined emoji and combining marks keep the columns aligned, and one 200-character token no
longer makes every column 200 wide (its header is clipped; the walk names it whole)."""

from __future__ import annotations

import pytest

from attn_tui.core import loads
from attn_tui.core.outputs.report import text_chunks
from attn_tui.core.text import cells

FAMILY = "👨\u200d👩\u200d👧"
LONG = "x" * 199 + "y"
NUMBERS = (
    "Q: [[1, 0], [0, 1], [1, 1], [0, 0]]\nK: [[1, 0], [0, 1], [1, 1], [0, 0]]\n"
    "V: [[1, 0], [0, 1], [1, 1], [0, 0]]\n"
)


def report(tokens: list[str], extra: str = "", row: int = 2) -> str:
    quoted = ", ".join(
        '"' + token.replace("\\", "\\\\").replace('"', '\\"') + '"' for token in tokens
    )
    return "".join(text_chunks(loads(f"tokens: [{quoted}]\n" + NUMBERS + extra), rows=[row]))


def tables(text: str) -> list[list[str]]:
    """Each matrix of the report: its header line and rows (the lines under a title that end
    in a number, ∞ or —)."""
    found, current = [], None
    for line in text.splitlines():
        if line.startswith("  ") and current is not None and line.strip():
            current.append(line)
        else:
            if current:
                found.append(current)
            current = [] if line and not line.startswith(" ") else None
    return [table for table in found if len(table) > 1]


@pytest.mark.parametrize(
    "tokens", [["日本", "e\u0301", FAMILY, "x"], ["🇫🇷", "한국어", "ｱｲｳ", "a\u0300\u0301"]]
)
def test_every_table_line_is_as_wide_as_its_header(tokens):
    text = report(tokens, 'variants:\n  - {name: "unscaled 日本", scale: false}\n')
    found = tables(text)
    assert len(found) >= 9  # Q, K, V, five stages, the variants
    for table in found:
        widths = {cells(line) for line in table}
        assert len(widths) == 1, "\n".join(table)


def test_a_200_character_token_makes_only_its_own_row_wide():
    text = report(["the", LONG, "cat", "sat"], row=1)
    score = tables(text[text.index("Step 1 — Score") :])[0]
    header, rows = score[0], score[1:]
    assert "xxxxxxx…" in header and LONG not in header  # the key's header, clipped
    assert all(line.endswith(("0", "1", "2")) for line in rows)
    assert cells(header) <= 2 + 200 + 4 * (2 + 12), header  # label column, 4 columns of at most 12
    assert any(line.strip().startswith(LONG) for line in rows)  # the row label stays whole
    assert f'"{LONG}"' in text  # …and the walk names the token in full


def test_the_bars_keep_their_column_whatever_the_label():
    text = report(
        [
            "日本語テキスト",
            FAMILY,
            "e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301x",
            "x",
        ],
        row=3,
    )
    bars = [line for line in text.splitlines() if "█" in line]
    assert bars, text
    starts = {cells(line[: line.index("█")]) for line in bars}
    assert starts == {11}, "\n".join(bars)
    assert all("\u200d" not in line or FAMILY in line for line in bars)  # never half a family
