"""``attn-tui figure INDEX --model-view`` (issue 45): every layer × head of a model index as a
thumbnail of its weights, with the pattern it scores highest under it. The index here is written
by hand: each head is built to attend one way (to itself, or to the first token), and its score
is worked out in the test from a softmax of its own (the pattern's definition: the mean weight
on j = i, or on j = 0, over the rows after the first)."""

import xml.etree.ElementTree as ET

import numpy as np

from attn_tui.tui.cli import main
from tests.reference import softmax

SVG = "{http://www.w3.org/2000/svg}"
T = 4
SELF_Q = SELF_K = (8 * np.eye(T)).tolist()  # q_i · k_j = 64 when i = j, else 0
FIRST_Q = (8 * np.ones((T, T))).tolist()
FIRST_K = [[8.0] * T] + [[0.0] * T] * (T - 1)  # every query finds the first key


def weights(Q, K):
    scores = np.array(Q) @ np.array(K).T / np.sqrt(T)
    scores[np.triu_indices(T, 1)] = -np.inf
    return softmax(scores)


def layer(heads):
    Q = [q for q, _ in heads]
    K = [k for _, k in heads]
    V = [np.ones((T, 2)).tolist()] * len(heads)
    return f"tokens: [a, b, c, d]\nheads: {len(heads)}\nQ: {Q}\nK: {K}\nV: {V}\n"


def index(tmp_path, title="a hand-made model"):
    (tmp_path / "l0.yaml").write_text(
        layer([(SELF_Q, SELF_K), (FIRST_Q, FIRST_K)]), encoding="utf-8"
    )
    (tmp_path / "l1.yaml").write_text(layer([(FIRST_Q, FIRST_K)]), encoding="utf-8")
    path = tmp_path / "model_layers.yaml"
    path.write_text(
        f'model_index: 1\ntitle: "{title}"\nlayers:\n  - {{layer: 0, scenario: l0.yaml}}\n'
        "  - {layer: 1, scenario: l1.yaml}\n",
        encoding="utf-8",
    )
    return path


def test_every_head_with_the_pattern_it_scores_highest(tmp_path, capsys):
    assert main(["figure", str(index(tmp_path)), "--model-view"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    heads = [
        (r.get("data-layer"), r.get("data-head"))
        for r in root.iter(SVG + "rect")
        if r.get("class") == "head"
    ]
    assert heads == [("0", "0"), ("0", "1"), ("1", "0")]
    self_score = np.mean([weights(SELF_Q, SELF_K)[i, i] for i in range(1, T)])
    first_score = np.mean([weights(FIRST_Q, FIRST_K)[i, 0] for i in range(1, T)])
    scores = [t.text for t in root.iter(SVG + "text") if t.get("class") == "score"]
    assert scores == [
        f"self {self_score:.3f}",
        f"first {first_score:.3f}",
        f"first {first_score:.3f}",
    ]
    texts = [t.text for t in root.iter(SVG + "text")]
    assert "Model view: a hand-made model" in texts and "layer 0" in texts and "layer 1" in texts


def test_a_thumbnail_is_brightest_where_the_head_looks(tmp_path, capsys):
    """The self head's thumbnail: its diagonal cells are the palette's top (yellow), the rest
    dark."""
    assert main(["figure", str(index(tmp_path)), "--model-view"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    rects = list(root.iter(SVG + "rect"))
    first_head = next(k for k, r in enumerate(rects) if r.get("class") == "head")
    cells = rects[first_head - T * T : first_head]  # its T × T cells, drawn before its frame
    fills = np.array([r.get("fill") for r in cells]).reshape(T, T)
    assert all(fills[i, i] == "#fde725" for i in range(T))
    assert all(fills[i, j] == "#440154" for i in range(T) for j in range(T) if i != j)


def test_a_scenario_alone_is_one_row_and_refusals_are_one_line(tmp_path, capsys):
    assert main(["figure", "two_heads", "--model-view"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    assert sum(r.get("class") == "head" for r in root.iter(SVG + "rect")) == 2
    assert main(["figure", "two_heads", "--model-view", "--row", "2"]) == 2
    assert "--row goes with a stage's figure, not with --model-view" in capsys.readouterr().err
    assert main(["figure", "two_heads", "--model-view", "--train"]) == 2
    assert "not both" in capsys.readouterr().err
    path = index(tmp_path)
    (tmp_path / "l1.yaml").write_text("tokens: [a]\nQ: [[1, 2]]\n", encoding="utf-8")
    assert main(["figure", str(path), "--model-view"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_hostile_title_stays_text(tmp_path, capsys):
    assert main(["figure", str(index(tmp_path, title="<script>&\\e")), "--model-view"]) == 0
    out = capsys.readouterr().out
    assert "<script>" not in out and "\x1b" not in out
    ET.fromstring(out.encode())


def test_weight_spread_over_the_nearby_keys_is_named_local(tmp_path, capsys):
    """A head whose queries are all 0 spreads each row evenly over the keys it may see: no one
    key stands out (first scores the mean of 1/(i+1)), and "local" (|i − j| ≤ 3) is named."""
    n = 8
    path = tmp_path / "even.yaml"
    path.write_text(
        f"tokens: [{', '.join('t' + str(i) for i in range(n))}]\nQ: {np.zeros((n, 2)).tolist()}\n"
        f"K: {np.ones((n, 2)).tolist()}\nV: {np.ones((n, 2)).tolist()}\n",
        encoding="utf-8",
    )
    assert main(["figure", str(path), "--model-view"]) == 0
    root = ET.fromstring(capsys.readouterr().out.encode())
    local = np.mean([min(i + 1, 4) / (i + 1) for i in range(1, n)])
    assert [t.text for t in root.iter(SVG + "text") if t.get("class") == "score"] == [
        f"local {local:.3f}"
    ]
