"""The Markdown handout with tokens, titles and names full of Markdown's specials (|, *, \\, <i>,
backticks, &amp;): nothing breaks, a real Markdown parser renders them as intended, and any
printable token and title comes back from the tables unchanged."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_tui import core
from attn_tui.core.model.labels import token_labels
from attn_tui.core.model.scenario import Scenario
from attn_tui.core.outputs.markdown import to_markdown
from tests.markdown_tables import assert_well_formed, table_under, unescape

AWKWARD = """
title: "A | B # *not emphasis* <b>x</b> $1$ [link](x) C#"
description: "- not a list\\n# not a heading\\n1. not a list either | nor a table"
tokens: ["a|b", "*", "x\\\\", "<i>", "`code`", "_u_", "&amp;", "-"]
Q: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1], [1, 0], [0, 1]]
K: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1], [1, 0], [0, 1]]
V: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 1], [1, 1], [1, 0], [0, 1]]
focus: 1
variants:
  - name: "one|two"
  - name: plain
    causal: false
"""


AWKWARD_TOKENS = ["a|b", "*", "x\\", "<i>", "`code`", "_u_", "&amp;", "-"]


def test_tokens_titles_and_names_with_markdown_specials_do_not_break_anything():
    scenario = core.loads(AWKWARD, "awkward.yaml")
    assert list(scenario.tokens) == AWKWARD_TOKENS
    markdown = to_markdown(scenario)
    tables = assert_well_formed(markdown)
    assert len(tables) == 9  # Q, K, V, five stages, variants
    for table in tables:
        assert [cells[0] for cells in table.rows] == AWKWARD_TOKENS
    assert table_under(tables, "Step 1").head[1:] == AWKWARD_TOKENS
    assert table_under(tables, "Variants").head == ["token", "one|two", "plain"]
    first = markdown.split("\n")[0]
    assert (
        first.startswith("# ")
        and unescape(first[2:]) == "A | B # *not emphasis* <b>x</b> $1$ [link](x) C#"
    )
    assert '## Row 1, "a\\|b", step by step' in markdown


def test_a_real_markdown_parser_renders_the_awkward_scenario_as_intended():
    """markdown-it-py (CommonMark with GFM tables, as GitHub parses them; it comes with rich)
    sees the same tables and text: no cell split by a token's pipe, no emphasis, link or HTML
    from a token, no list or heading from the description."""
    MarkdownIt = pytest.importorskip("markdown_it").MarkdownIt
    parser = MarkdownIt("commonmark").enable("table").enable("strikethrough")
    tokens = parser.parse(to_markdown(core.loads(AWKWARD, "awkward.yaml")))
    kinds = {token.type for token in tokens}
    assert not kinds & {"ordered_list_open", "html_block", "hr"}
    assert sum(token.type == "bullet_list_open" for token in tokens) == 1  # the variants' options
    inline_kinds = {
        child.type for token in tokens if token.type == "inline" for child in token.children
    }
    assert not inline_kinds & {
        "em_open",
        "strong_open",
        "link_open",
        "html_inline",
        "code_inline",
        "s_open",
    }
    assert sum(token.type == "table_open" for token in tokens) == 9

    rendered = parser.render(to_markdown(core.loads(AWKWARD, "awkward.yaml")))
    assert "<h1>A | B # *not emphasis* &lt;b&gt;x&lt;/b&gt; $1$ [link](x) C#</h1>" in rendered
    cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", rendered)
    for shown in ("a|b", "*", "x\\", "&lt;i&gt;", "`code`", "_u_", "&amp;amp;", "-", "one|two"):
        assert shown in cells, shown
    # every table row has as many cells as its header
    html_tables = re.findall(r"<table>(.*?)</table>", rendered, flags=re.S)
    assert len(html_tables) == 9
    for table in html_tables:
        counts = {
            len(re.findall(r"<t[hd][ >]", row))
            for row in re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
        }
        assert len(counts) == 1, counts
    assert "<p>- not a list\n# not a heading\n1. not a list either | nor a table</p>" in rendered


@settings(max_examples=60)
@given(
    tokens=st.lists(
        st.text(
            alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=6
        ),
        min_size=1,
        max_size=4,
    ),
    title=st.text(
        alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=20
    ),
)
def test_any_printable_tokens_and_title_come_back_from_the_tables_unchanged(tokens, title):
    T = len(tokens)
    scenario = Scenario(
        title=title,
        tokens=tuple(tokens),
        inputs={"Q": np.eye(T, 2), "K": np.eye(T, 2), "V": np.ones((T, 3))},
    )
    markdown = to_markdown(scenario)
    labels = list(token_labels(tokens))  # a repeated token is numbered: 0₁, 0₂
    for table in assert_well_formed(markdown):
        assert [cells[0] for cells in table.rows] == labels
    MarkdownIt = pytest.importorskip("markdown_it").MarkdownIt
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    assert len(re.findall(r"<table>", rendered)) == 8
    first_cells = re.findall(r"<tr>\n<td[^>]*>(.*?)</td>", rendered)
    assert first_cells == [as_html(label) for label in labels] * 8
    assert re.search(r"<h1>(.*?)</h1>", rendered).group(1) == as_html(
        title.strip() or "Untitled scenario"
    )


def as_html(text: str) -> str:
    """Text as markdown-it writes it into HTML: &, <, > and " escaped, nothing else changed."""
    return html.escape(text, quote=False).replace('"', "&quot;")
