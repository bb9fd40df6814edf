"""Well-formed scenarios whose numbers sit anywhere in float64, often at its edges (hypothesis
strategies): each must load and compute to finite stages, or be refused as overflowing, with a
position."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.reading.fuzz_scenarios import negative_texts, positive_texts
from tests.reading.fuzz_yaml import rarely, render


@st.composite
def valid_scenario_documents(draw):
    """Well-formed scenarios whose numbers sit anywhere in float64, often at its edges: each
    must load and compute to finite stages, or be refused as overflowing, with a position."""
    T = draw(st.integers(1, 8))
    d_k = draw(st.integers(1, 4))
    d_v = draw(st.integers(1, 4))

    def matrix(rows: int, cols: int):
        style = draw(st.sampled_from(["cells", "constant", "rows", "max"]))
        numbers = draw(st.sampled_from([small_number_texts, edge_number_texts, huge_number_texts]))
        if style == "max":  # every cell at float64's largest value (weights·V must not round up)
            style, numbers = (
                "constant",
                st.sampled_from(["1.7976931348623157e308", "-1.7976931348623157e308"]),
            )
        value = draw(numbers)
        cells = []
        for _ in range(rows):
            row_value = draw(numbers)
            cells.append(
                [
                    value
                    if style == "constant"
                    else row_value
                    if style == "rows"
                    else draw(numbers)
                    for _ in range(cols)
                ]
            )
        return (
            "seq",
            [("seq", [("scalar", c) for c in row], True) for row in cells],
            draw(st.booleans()),
        )

    if draw(st.booleans()):
        items = [("Q", matrix(T, d_k)), ("K", matrix(T, d_k)), ("V", matrix(T, d_v))]
    else:
        d_model = draw(st.integers(1, 4))
        items = [
            ("X", matrix(T, d_model)),
            ("Wq", matrix(d_model, d_k)),
            ("Wk", matrix(d_model, d_k)),
            ("Wv", matrix(d_model, d_v)),
        ]
    options = {
        "causal": st.sampled_from(["true", "false"]),
        "scale": st.one_of(st.sampled_from(["true", "false"]), positive_texts),
        "mask_value": negative_texts,
    }
    for key in draw(st.lists(st.sampled_from(sorted(options)), unique=True)):
        items.append((key, ("scalar", draw(options[key]))))
    variants = []
    for number in range(draw(st.integers(0, 3))):
        variant = [("name", ("scalar", f"v{number}"))]
        for key in draw(st.lists(st.sampled_from(sorted(options)), unique=True)):
            variant.append((key, ("scalar", draw(options[key]))))
        variants.append(("map", variant, True))
    if variants:
        items.append(("variants", ("seq", variants, False)))
    return render(("map", items, draw(rarely(4))))


small_number_texts = st.one_of(
    st.integers(-9, 9).map(str),
    st.floats(-100, 100, allow_nan=False).map(repr),
    st.floats(-1e-300, 1e-300, allow_nan=False).map(repr),
)
huge_number_texts = st.one_of(
    st.floats(min_value=1e300, allow_infinity=False).flatmap(
        lambda x: st.sampled_from([repr(x), repr(-x)])
    ),
    st.floats(min_value=1.79e308, allow_infinity=False).map(repr),  # float64's very edge
    st.sampled_from(
        [
            "1.7976931348623157e308",
            "-1.7976931348623157e308",
            "8.98846567431158e307",
            "1.0e+308",
            "-1e308",
        ]
    ),
)
edge_number_texts = st.one_of(
    st.integers(-9, 9).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(min_value=1e300, allow_infinity=False).flatmap(
        lambda x: st.sampled_from([repr(x), repr(-x)])
    ),
    st.sampled_from(
        [
            "1.7976931348623157e308",
            "-1.7976931348623157e308",
            "8.98846567431158e307",
            "1.3407807929942596e154",
            "-1.3407807929942596e154",
            "1e154",
            "1e-300",
            "5e-324",
            "-5e-324",
            "0",
            "-0.0",
            "1.0e+308",
            "-1e308",
        ]
    ),
)
