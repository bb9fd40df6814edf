"""Random YAML text built by hand (hypothesis strategies): the scenario's own keys with
wrong types and shapes, extreme and non-finite numbers, anchors, aliases, merge keys, tags,
unicode and duplicate keys, in flow and block style; and deep nesting and alias bombs. The words
it writes are tests/reading/fuzz_words.py's."""

from __future__ import annotations

import math

from hypothesis import strategies as st

from tests.reading.fuzz_words import KEY_TEXTS, NAMES, ODD_SCALARS, PROPS, SCENARIO_KEYS

# ---- YAML text, built by hand ------------------------------------------------------------------
# A node is ("scalar", text) | ("alias", name) | ("prop", "&a !!tag", node) |
# ("seq", [node], flow) | ("map", [(key, node)], flow) | ("block", "|"/">-", text)


def double_quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar that reads back exactly (every character escaped
    that YAML does not allow raw)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable() and ch not in "\ufeff\x85\u2028\u2029":
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


@st.composite
def unicode_scalars(draw, styles=("double", "single", "plain")):
    text = draw(st.text(st.characters(blacklist_categories=("Cs",)), max_size=12))
    style = draw(st.sampled_from(styles))
    if style == "double":
        return double_quoted(text)
    if style == "single":
        return "'" + text.replace("'", "''").replace("\n", " ") + "'"
    return text.replace("\n", " ")


def rarely(n: int):
    """True about once in ``n`` draws (hypothesis favours small integers, so not integers == 0)."""
    return st.sampled_from([False] * (n - 1) + [True])


def float_forms(x: float) -> list[str]:
    forms = [repr(x), f"{x:e}", f"{x:.3g}", f"{x:E}"]
    if math.isfinite(x) and x == int(x) and abs(x) < 1e30:
        forms.append(str(int(x)))
    return forms


number_texts = st.one_of(
    st.integers(-9, 9).map(str),
    st.floats(-100, 100, allow_nan=False).map(lambda x: f"{x:.3f}"),
    st.floats(allow_nan=True, allow_infinity=True).flatmap(
        lambda x: st.sampled_from(float_forms(x))
    ),
    st.integers(-(10**30), 10**30).map(str),
    st.integers(0, 2**64)
    .map(lambda n: st.sampled_from([hex(n), f"0o{n:o}", f"0b{n:b}", f"{n:_}"]))
    .flatmap(lambda s: s),
)
scalar_texts = st.one_of(
    st.sampled_from(ODD_SCALARS), number_texts, unicode_scalars(), st.sampled_from(SCENARIO_KEYS)
)
scalar_nodes = scalar_texts.map(lambda text: ("scalar", text))
alias_nodes = st.sampled_from(NAMES).map(lambda name: ("alias", name))
block_scalars = st.tuples(
    st.just("block"),
    st.sampled_from(["|", ">-", "|+", ">2", "|-"]),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30),
)


def extend(children):
    return st.one_of(
        st.tuples(st.just("seq"), st.lists(children, max_size=5), st.booleans()),
        st.tuples(
            st.just("map"),
            st.lists(st.tuples(st.sampled_from(KEY_TEXTS), children), max_size=5),
            st.booleans(),
        ),
        st.tuples(st.just("prop"), st.sampled_from(PROPS), children),
        st.tuples(
            st.just("map"),
            st.lists(
                st.tuples(
                    st.just("<<"),
                    st.one_of(
                        alias_nodes,
                        st.tuples(st.just("seq"), st.lists(alias_nodes, max_size=3), st.just(True)),
                    ),
                ),
                min_size=1,
                max_size=2,
            ),
            st.booleans(),
        ),
    )


trees = st.recursive(
    st.one_of(scalar_nodes, scalar_nodes, alias_nodes, block_scalars), extend, max_leaves=30
)


def flow(node) -> str:
    kind = node[0]
    if kind == "scalar":
        return node[1]
    if kind == "alias":
        return "*" + node[1]
    if kind == "block":
        return double_quoted(node[2])
    if kind == "prop":
        return f"{node[1]} {flow(node[2])}"
    if kind == "seq":
        return "[" + ", ".join(flow(item) for item in node[1]) + "]"
    return "{" + ", ".join(f"{key}: {flow(value)}" for key, value in node[1]) + "}"


def is_block_collection(node) -> bool:
    return node[0] in ("seq", "map") and not node[2] and bool(node[1])


def after_indicator(node, indent: int) -> str:
    """What follows ``key:`` or ``-`` in block style, up to and including the line break."""
    if is_block_collection(node):
        return "\n" + block(node, indent + 2)
    if node[0] == "prop" and is_block_collection(node[2]):
        return f" {node[1]}\n" + block(node[2], indent + 2)
    if node[0] == "block":
        pad = " " * (indent + 2)
        body = "".join(pad + line + "\n" for line in node[2].split("\n"))
        return f" {node[1]}\n{body}"
    return " " + flow(node) + "\n"


def block(node, indent: int) -> str:
    pad = " " * indent
    if node[0] == "seq":
        return "".join(pad + "-" + after_indicator(item, indent) for item in node[1])
    return "".join(f"{pad}{key}:" + after_indicator(value, indent) for key, value in node[1])


def render(node) -> str:
    if is_block_collection(node):
        return block(node, 0)
    if node[0] == "prop" and is_block_collection(node[2]):
        return f"--- {node[1]}\n" + block(node[2], 0)
    return flow(node) + "\n" if node[0] != "block" else "---" + after_indicator(node, -2)


document_frames = st.sampled_from(
    [
        "{}",
        "---\n{}",
        "%YAML 1.1\n---\n{}",
        "# comment\n{}",
        "{}...\n",
        "{}---\nQ: [[1]]\n",
        "{}\n# trailing comment",
        "\ufeff{}",
        "%TAG !e! tag:yaml.org,2002:\n---\n{}",
        "%YAML 1.2\n---\n{}",
        "--- |\n  text\n",
        "{}\n...\n",
        "  {}",
        "{}\t",
    ]
)


@st.composite
def random_documents(draw):
    """Random YAML whose top level is (mostly) a mapping of the scenario's keys."""
    if draw(rarely(5)):
        root = draw(trees)
    else:
        items = draw(
            st.lists(st.tuples(st.sampled_from(KEY_TEXTS + SCENARIO_KEYS * 2), trees), max_size=10)
        )
        root = ("map", items, draw(st.booleans()))
        if draw(rarely(6)):
            root = ("prop", draw(st.sampled_from(["&a", "&b", "!!map", "&q !!map"])), root)
    text = render(root)
    frame = draw(document_frames)
    return frame.replace("{}", text, 1) if "{}" in frame else frame


# ---- deep nesting and alias bombs --------------------------------------------------------------


@st.composite
def nested_documents(draw):
    depth = draw(st.integers(1, 300))
    key = draw(st.sampled_from(["Q", "variants", "tokens", "random", "title"]))
    style = draw(st.sampled_from(["flow-seq", "flow-map", "block-seq", "block-map", "mixed"]))
    if style == "flow-seq":
        body = " " + "[" * depth + "1" + "]" * depth + "\n"
    elif style == "flow-map":
        body = " " + "{a: " * depth + "1" + "}" * depth + "\n"
    elif style == "block-seq":
        body = (
            "\n" + "".join(" " * (i + 1) + "-\n" for i in range(depth - 1)) + " " * depth + "- 1\n"
        )
    elif style == "block-map":
        body = (
            "\n"
            + "".join(" " * (i + 1) + f"{key}:\n" for i in range(depth))
            + " " * (depth + 1)
            + "1\n"
        )
    else:
        body = " " + "[{a: " * depth + "1" + "}]" * depth + "\n"
    rest = "".join(f"{name}: [[1]]\n" for name in ("Q", "K", "V") if name != key)
    return f"{key}:{body}{rest}"


@st.composite
def alias_bombs(draw):
    """Billion-laughs shapes in every place a list may go; small text, huge if expanded."""
    levels = draw(st.integers(1, 10))
    width = draw(st.integers(2, 10))
    where = draw(st.sampled_from(["Q", "tokens", "variants", "title", "random"]))
    leaf = draw(st.sampled_from(["1", "x", "[1, 1]", "{name: a}"]))
    rows = [f"&l0 [{', '.join([leaf] * width)}]"]
    rows += [f"&l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    bomb = "[" + ", ".join(rows) + f", *l{levels - 1}]"
    taken = {where}
    if draw(st.booleans()):
        bomb = f"[{', '.join(rows)}]\nV: *l{levels - 1}"
        taken.add("V")
    rest = "".join(f"{name}: [[1]]\n" for name in ("Q", "K", "V") if name not in taken)
    return f"{where}: {bomb}\n{rest}"
