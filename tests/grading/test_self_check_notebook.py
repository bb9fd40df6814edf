"""docs/self_check.ipynb run as a student runs it, in a real Jupyter kernel (nbclient, ipykernel):
every cell runs, ``check`` shows HTML with ✓ and ✗ and the mistake named, ``show`` an SVG; a
function that raises is told with its cell and line as IPython names them; and the kernel has
imported neither Textual nor Rich."""

from __future__ import annotations

from html import unescape

import pytest

from tests.conftest import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = ROOT / "docs" / "self_check.ipynb"

EXTRA = [
    # a function that raises: the verdict names the cell as IPython does, and the line in it
    "def attention_raises(Q, K, V):\n    d_k = Q.shape[1]\n    return Q @ K / d_k\n\n"
    "print(check(attention_raises))",
    "import sys\nprint(sorted(n for n in sys.modules if n.split('.')[0] in ('textual', 'rich')))",
]


@pytest.fixture(scope="module")
def executed():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    shipped = len(notebook.cells)
    notebook.cells += [nbformat.v4.new_code_cell(source) for source in EXTRA]
    client = nbclient.NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()  # (in the checkout's folder: the kernel imports attn_tui from there first)
    return notebook.cells[:shipped], notebook.cells[shipped:]


def outputs(cell, kind: str) -> str:
    return "".join(
        output.get("data", {}).get(kind, "")
        if output.output_type in ("execute_result", "display_data")
        else output.get("text", "")
        if kind == "text/plain" and output.output_type == "stream"
        else ""
        for output in cell.outputs
    )


def code_cell(cells, text: str):
    return next(cell for cell in cells if cell.cell_type == "code" and text in cell.source)


def test_the_shipped_notebook_is_clean_and_every_cell_runs(executed):
    shipped = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in shipped.cells if cell.cell_type == "code")
    cells, _ = executed
    errors = [
        o
        for cell in cells
        if cell.cell_type == "code"
        for o in cell.outputs
        if o.output_type == "error"
    ]
    assert errors == []


def test_check_shows_html_with_marks_and_the_mistake_named(executed):
    cells, _ = executed
    right = unescape(outputs(code_cell(cells, "check(attention)"), "text/html"))
    assert "✓ attention on cat_sat: your values match" in right.replace("</span>", "")
    battery = unescape(outputs(code_cell(cells, "cases=True)"), "text/html"))
    assert "Cases: 17 of 17 pass" in battery and battery.count("✓") >= 17
    wrong = unescape(outputs(code_cell(cells, "check(attention_unscaled)"), "text/html"))
    assert "✗" in wrong and "(sat, sat): yours 0.576, attention 0.503" in wrong
    assert "the scores were not divided by √d_k" in wrong
    assert "divide the scores by np.sqrt(d_k) before the softmax" in wrong
    assert "<script" not in right + battery + wrong
    forms = code_cell(cells, "class Attention")
    assert outputs(forms, "text/plain").startswith("True")  # the class, with a mask argument
    assert "the lambda on cat_sat_bidirectional: your values match" in unescape(
        outputs(forms, "text/html")
    ).replace("</span>", "")


def test_show_displays_the_svg(executed):
    cells, _ = executed
    svg = outputs(code_cell(cells, 'show("cat_sat"'), "image/svg+xml")
    assert svg.startswith("<?xml") and "<svg" in svg and "<script" not in svg


def test_an_exception_is_told_by_its_cell_and_line_and_no_terminal_code_is_imported(executed):
    _, (raises, modules) = executed
    told = outputs(raises, "text/plain")
    assert (
        "Cell In[" in told and ":3: ValueError: matmul" in told and "(return Q @ K / d_k)" in told
    )
    assert outputs(modules, "text/plain").strip() == "[]"
