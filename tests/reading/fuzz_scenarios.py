"""Scenarios that are valid or nearly so (hypothesis strategies): consistent shapes with odd
numbers and options. Well-formed ones with numbers at float64's edges are
tests/reading/fuzz_float64_edges.py's; the shipped scenarios truncated and mutated,
tests/reading/fuzz_mutated_shipped.py's."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.reading.fuzz_words import FILE_NAMES, ODD_SCALARS
from tests.reading.fuzz_yaml import (
    block_scalars,
    float_forms,
    rarely,
    render,
    scalar_nodes,
    unicode_scalars,
)

# ---- mostly valid scenarios, with extreme numbers and options ----------------------------------

finite_number_texts = st.one_of(
    st.integers(-9, 9).map(str),
    st.floats(-1000, 1000, allow_nan=False).map(lambda x: f"{x:.4g}"),
    st.floats(allow_nan=False, allow_infinity=False).flatmap(
        lambda x: st.sampled_from(float_forms(x))
    ),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e-300, max_value=1e-300).map(repr),
    st.sampled_from(
        [
            "1.7976931348623157e308",
            "-1.7976931348623157e308",
            "1.0e+308",
            "-1e308",
            "1e154",
            "1.5e+154",
            "-1e200",
            "1e-300",
            "5e-324",
            "-0",
            "-0.0",
            "0x7F",
            "1_000",
            "1:30",
            "0o777",
            "8.98846567431158e307",
            "1.3407807929942596e154",
        ]
    ),
)
cell_texts = st.one_of(finite_number_texts, st.sampled_from(ODD_SCALARS))


@st.composite
def matrices(draw, rows: int, cols: int):
    flow_style = draw(st.booleans())
    lengths = [cols] * rows
    if draw(rarely(10)):  # a ragged row
        lengths[draw(st.integers(0, rows - 1))] = draw(st.integers(0, cols + 1))
    constant = draw(rarely(4))  # whole matrix of one (possibly extreme) value
    value = draw(finite_number_texts)
    cells = [[value if constant else draw(finite_number_texts) for _ in range(n)] for n in lengths]
    if draw(rarely(8)):  # one odd cell
        i = draw(st.integers(0, rows - 1))
        if cells[i]:
            cells[i][draw(st.integers(0, len(cells[i]) - 1))] = draw(st.sampled_from(ODD_SCALARS))
    body = [
        ("seq", [("scalar", cell) for cell in row], draw(st.booleans()) or flow_style)
        for row in cells
    ]
    return ("seq", body, flow_style)


def mostly(valid, odd):
    """``valid`` about four times in five, else ``odd``."""
    return st.one_of(valid, valid, valid, valid, odd)


positive_texts = st.one_of(
    st.floats(min_value=5e-324, allow_infinity=False).flatmap(
        lambda x: st.sampled_from(float_forms(x))
    ),
    st.sampled_from(
        [
            "2",
            "0.5",
            "1e-300",
            "1.0e-299",
            "1e-320",
            "5e-324",
            "1e300",
            "1.0e+308",
            "1e-100",
            "1.7976931348623157e308",
            "0x10",
            "1:30",
        ]
    ),
)
negative_texts = st.one_of(
    st.floats(max_value=-5e-324, allow_infinity=False).flatmap(
        lambda x: st.sampled_from(float_forms(x))
    ),
    st.sampled_from(
        [
            "-.inf",
            "-inf",
            "-1e9",
            "-1",
            "-1e308",
            "-1.7976931348623157e308",
            "-5e-324",
            '"-inf"',
            "-.Inf",
            "-1e-300",
            "-8.98846567431158e307",
            "' -Infinity'",
        ]
    ),
)
option_values = {
    "causal": mostly(
        st.sampled_from(["true", "false", "yes", "no", "on", "off", "y", "True"]),
        st.sampled_from(["1", "~", "[true]", '"true"', "!!bool true", "!!bool maybe"]),
    ),
    "scale": mostly(
        st.one_of(st.sampled_from(["true", "false"]), positive_texts),
        st.one_of(
            st.sampled_from(
                ["0", "-1", "1e999", ".inf", ".nan", "'2'", "!!float ''", "-0.0", "[2]"]
            ),
            cell_texts,
        ),
    ),
    "mask_value": mostly(
        negative_texts,
        st.one_of(st.sampled_from([".nan", "-1e999", "0", "-0.0", "1", "[-1]"]), cell_texts),
    ),
}


@st.composite
def options_items(draw, keys=("causal", "scale", "mask_value")):
    chosen = draw(st.lists(st.sampled_from(keys), unique=True, max_size=len(keys)))
    return [(key, ("scalar", draw(option_values[key]))) for key in chosen]


@st.composite
def token_nodes(draw, T: int):
    n = T + draw(st.sampled_from([0, 0, 0, 0, 1, -1]))
    words = draw(
        st.lists(
            unicode_scalars(("double",) * 8 + ("single", "plain")),
            min_size=max(n, 0),
            max_size=max(n, 0),
        )
    )
    if draw(st.booleans()):
        plain = draw(
            st.lists(
                st.sampled_from(
                    ["the", "cat", "sat", "on", "yes", "~", "1", "é", "猫", "🙂", ".nan", "null"]
                ),
                min_size=max(n, 0),
                max_size=max(n, 0),
            )
        )
        if draw(st.booleans()):
            return ("scalar", '"' + " ".join(plain) + '"'), plain
        return ("seq", [("scalar", w) for w in plain], draw(st.booleans())), plain
    return ("seq", [("scalar", w) for w in words], True), words


@st.composite
def scenario_documents(draw):
    """Scenarios that are valid or nearly so: consistent shapes, odd numbers and options."""
    T = draw(st.integers(1, 6))
    d_k = draw(st.integers(1, 4))
    d_v = draw(st.integers(1, 4))
    items: list = []
    kind = draw(st.sampled_from(["qkv", "qkv", "projection", "random"]))
    aliased = False
    if kind == "qkv":
        Q = draw(matrices(T, d_k))
        if draw(rarely(4)):
            aliased = True
            items += [("Q", ("prop", "&q", Q)), ("K", ("alias", "q"))]
        else:
            items += [("Q", Q), ("K", draw(matrices(T, d_k)))]
        items.append(("V", draw(matrices(T, d_v))))
    elif kind == "projection":
        d_model = draw(st.integers(1, 4))
        items += [
            ("X", draw(matrices(T, d_model))),
            ("Wq", draw(matrices(d_model, d_k))),
            ("Wk", draw(matrices(d_model, d_k))),
            ("Wv", draw(matrices(d_model, d_v))),
        ]
    else:
        spec = [
            (
                "seed",
                (
                    "scalar",
                    draw(
                        mostly(
                            st.sampled_from(["0", "42", "4294967295", "0x10", "1_0", "1:30"]),
                            st.sampled_from(
                                ["4294967296", "-1", "1.5", "!!int x", "~", "1" * 5000]
                            ),
                        )
                    ),
                ),
            ),
            ("T", ("scalar", str(T))),
            ("d_k", ("scalar", str(d_k))),
        ]
        if draw(st.booleans()):
            spec.append(
                (
                    "d_v",
                    (
                        "scalar",
                        draw(mostly(st.just(str(d_v)), st.sampled_from(["0", "4097", "~"]))),
                    ),
                )
            )
        items.append(("random", ("map", spec, draw(st.booleans()))))
    if draw(rarely(8)):  # a matrix, or all of them, from a NumPy file that is not there or not one
        target = draw(st.sampled_from([key for key, _ in items if key != "random"] or ["Q"]))
        ref = ("scalar", draw(st.sampled_from(FILE_NAMES)))
        if draw(st.booleans()):
            items = [
                (key, ("map", [("npy", ref)], draw(st.booleans())) if key == target else value)
                for key, value in items
            ]
        else:
            items.append(("npz", ref))
    if draw(st.booleans()):
        node, words = draw(token_nodes(T))
        items.append(("tokens", node))
        if words and draw(st.booleans()):
            items.append(("focus", ("scalar", draw(st.sampled_from(words)))))
    if "focus" not in dict(items) and draw(st.booleans()):
        items.append(
            (
                "focus",
                (
                    "scalar",
                    draw(
                        mostly(
                            st.integers(1, T).map(str),
                            st.sampled_from(
                                ["0", "-1", str(T + 1), "0b1", "0x_", "!!int ''", "1:00", "~"]
                            ),
                        )
                    ),
                ),
            )
        )
    if draw(st.booleans()):
        items.append(
            (
                "precision",
                (
                    "scalar",
                    draw(
                        mostly(
                            st.sampled_from(["0", "3", "12", "0x0C", "0b11"]),
                            st.sampled_from(["13", "-1", "0b_", "1" * 5000, "!!int x", "1.5"]),
                        )
                    ),
                ),
            )
        )
    items += draw(options_items())
    if draw(st.booleans()):
        variants = []
        for number in range(draw(st.integers(0, 4))):
            name = draw(
                mostly(
                    st.just(f"v{number}"),
                    st.sampled_from(["a", "v0", "", "' '", "~", "1", "é", "[a]"]),
                )
            )
            variant = [("name", ("scalar", name))] + draw(options_items())
            variants.append(("map", variant, draw(st.booleans())))
        if variants and draw(st.booleans()):  # reuse a variant through a merge key
            variants[0] = ("prop", "&b", variants[0])
            variants.append(("map", [("<<", ("alias", "b")), ("name", ("scalar", "merged"))], True))
        items.append(("variants", ("seq", variants, draw(st.booleans()))))
    if draw(st.booleans()):
        items.append(("title", ("scalar", draw(unicode_scalars(("double",) * 8 + ("plain",))))))
    if draw(st.booleans()):
        items.append(("description", draw(st.one_of(block_scalars, scalar_nodes))))
    if draw(rarely(10)):  # a duplicate key
        items.append(draw(st.sampled_from(items)))
    items = draw(st.permutations(items))
    keys = [key for key, _ in items]
    if aliased and keys.index("K") < keys.index("Q") and not draw(rarely(10)):
        i, j = keys.index("K"), keys.index("Q")
        items[i], items[j] = items[j], items[i]  # the anchor before its alias, mostly
    return render(("map", items, draw(rarely(4))))
