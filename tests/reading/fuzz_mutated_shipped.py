"""The shipped scenarios truncated and mutated (a hypothesis strategy): a few cuts, insertions,
changed numbers and moved lines in a file that loaded."""

from __future__ import annotations

import re

from hypothesis import strategies as st

from tests.reading.fuzz_property import SHIPPED
from tests.reading.fuzz_scenarios import cell_texts
from tests.reading.fuzz_words import ODD_SCALARS
from tests.reading.fuzz_yaml import unicode_scalars

NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


@st.composite
def mutated_shipped(draw):
    """A shipped scenario, truncated and/or edited in a few places."""
    name = draw(st.sampled_from(sorted(SHIPPED)))
    text = SHIPPED[name].decode("utf-8")
    for _ in range(draw(st.integers(1, 4))):
        op = draw(
            st.sampled_from(
                [
                    "truncate",
                    "delete",
                    "insert",
                    "number",
                    "duplicate-line",
                    "swap-lines",
                    "indent",
                    "replace-char",
                ]
            )
        )
        if not text:
            break
        at = draw(st.integers(0, len(text)))
        if op == "truncate":
            text = text[:at]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)) :]
        elif op == "insert":
            piece = draw(
                st.one_of(
                    st.sampled_from(ODD_SCALARS),
                    st.sampled_from(
                        [
                            "\n",
                            ":",
                            " ",
                            "- ",
                            "[",
                            "]",
                            "{",
                            "}",
                            "&a ",
                            "*a",
                            "<<: *a\n",
                            "\t",
                            "#",
                            "\r",
                            "\x00",
                            "\x01",
                            "\u2028",
                            "\ufeff",
                            "'",
                            '"',
                            "...\n",
                            "---\n",
                        ]
                    ),
                    unicode_scalars(),
                )
            )
            text = text[:at] + piece + text[at:]
        elif op == "number":
            spots = list(NUMBER.finditer(text))
            if spots:
                spot = draw(st.sampled_from(spots))
                text = text[: spot.start()] + draw(cell_texts) + text[spot.end() :]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if op == "duplicate-line":
                lines.insert(j, lines[i])
            elif op == "swap-lines":
                lines[i], lines[j] = lines[j], lines[i]
            elif op == "indent":
                lines[i] = draw(st.sampled_from([" ", "  ", "\t", ""])) + lines[i].lstrip()
            else:
                if lines[i]:
                    k = draw(st.integers(0, len(lines[i]) - 1))
                    lines[i] = (
                        lines[i][:k]
                        + draw(st.characters(blacklist_categories=("Cs",)))
                        + lines[i][k + 1 :]
                    )
            text = "\n".join(lines)
    return text
