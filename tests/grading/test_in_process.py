"""``attn_tui.check`` on a function object, in this process (grading/in_process.py), judged as
``check --impl`` judges a file in a worker: the same students read the same way both ways, each
form a notebook writes (a class, a method, a lambda, an object) accepted, the report as text
and as HTML with everything the student wrote escaped; ``attn_tui.show`` is the figure
``attn-tui figure`` writes; and neither imports Textual nor Rich."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from html import unescape
from pathlib import Path

import numpy as np
import pytest

from attn_tui.grading import cases as battery
from attn_tui.grading.calling import run_case
from attn_tui.grading.in_process import CheckError, InProcess
from attn_tui.grading.runner import Submission
from attn_tui.tui.cli import main
from tests.conftest import NEEDS_MODELS, ROOT
from tests.reference import softmax

STUDENTS = Path(__file__).with_name("students")


def module_of(student: str):
    spec = importlib.util.spec_from_file_location(
        f"in_process_{student}", STUDENTS / f"{student}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reading(result) -> tuple:
    wrong = result.first_wrong
    return (
        result.ok,
        result.way,
        result.returns,
        result.float32,
        result.empty_as,
        None if wrong is None else wrong.mistake,
        result.not_run is None,
    )


@pytest.mark.parametrize(
    "student, name",
    [
        ("chapter", "attention"),
        ("batched_mask", "attention"),
        ("additive_mask", "attention"),
        ("float32_causal", "attention"),
        ("required_mask", "attention"),
        ("masked_added_finite", "attention"),
        ("mask_hides_self_finite", "attention"),
        ("naive_softmax", "attention"),
        pytest.param("torch_module", "Attention", marks=pytest.mark.models),
        pytest.param("torch_sdpa", "attention", marks=pytest.mark.models),
    ],
)
def test_each_student_is_read_in_process_as_the_worker_reads_the_file(student, name):
    if student.startswith("torch"):
        pytest.importorskip("torch", reason=NEEDS_MODELS)
    cases = [battery.of_scenario(_cat_sat())]
    cases += battery.battery(include_builtins=False)
    in_process = InProcess(getattr(module_of(student), name))
    with Submission(STUDENTS / f"{student}.py", name) as worker:
        worker.start()
        for case in cases:
            assert reading(run_case(in_process, case)) == reading(run_case(worker, case)), case.name


def _cat_sat():
    from attn_tui.core import load
    from attn_tui.core.loading.catalog import find

    return load(find("cat_sat"))


def test_a_class_a_method_a_lambda_and_an_object_each_work():
    from attn_tui import check

    chapter = module_of("chapter").attention

    class Attention:
        def __call__(self, Q, K, V, causal=True):
            return chapter(Q, K, V, causal)

    class Layer:
        def attend(self, q, k, v, is_causal=False):
            return chapter(q, k, v, is_causal)[::-1]  # (weights, out)

    for given, shown in [
        (Attention, "Attention()"),
        (Attention(), "Attention()"),
        (Layer().attend, "Layer.attend"),
        (lambda q, k, v, causal: chapter(q, k, v, causal), "the lambda"),
    ]:
        report = check(given, cases=True)
        assert report.ok and report.passed == report.of == 17, str(report)
        assert str(report).startswith(f"{shown} on cat_sat: your values match"), str(report)


def test_a_mistake_is_named_with_its_fix_in_text_and_html():
    from attn_tui import check

    report = check(module_of("unscaled").attention)
    text = str(report)
    assert not report.ok and "your values differ" in text
    # "sat" unscaled: softmax(1, 1, 2) = 0.212, 0.212, 0.576 against 0.248, 0.248, 0.503
    assert "(sat, sat): yours 0.576, attention 0.503" in text
    assert "Likely bug: the scores were not divided by √d_k" in text
    html = report._repr_html_()
    assert "✗" in html and "(sat, sat): yours 0.576, attention 0.503" in html
    assert "the scores were not divided by √d_k" in html
    assert "divide the scores by np.sqrt(d_k) before the softmax" in html  # the fix


def test_the_battery_counts_and_names_an_overflowing_softmax():
    from attn_tui import check

    report = check(module_of("naive_softmax").attention, scenario="cat_sat", cases=True)
    assert (report.passed, report.of) == (15, 17) and not report.ok
    html = report._repr_html_()
    assert html.count("✓") >= 15 and "does not subtract each row" in html
    assert "subtract the row's max before exp" in unescape(html)  # its fix


def test_an_exception_names_the_students_line_and_what_it_prints_is_kept(capsys, tmp_path):
    from attn_tui import check

    (tmp_path / "inline.py").write_text(
        "import numpy as np\n"
        "def attention(Q, K, V):\n"
        "    print('shape', Q.shape)\n"
        "    return Q @ K  # (T, d) @ (T, d)\n"
    )
    spec = importlib.util.spec_from_file_location("inline", tmp_path / "inline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report = check(module.attention)
    assert capsys.readouterr().out == ""  # kept for the report, not printed once a call
    text = str(report)
    assert "inline.py:4: ValueError: matmul" in text and "(return Q @ K" in text, text
    assert "What it printed" in text and "shape (3, 2)" in text


def test_what_the_student_wrote_is_escaped_in_the_html():
    from attn_tui import check

    def attention(Q, K, V):
        print("<script>alert(1)</script>")
        raise ValueError("<img src=x onerror=alert(1)>")

    attention.__qualname__ = "<b>attention</b>"
    html = check(attention)._repr_html_()
    assert "<script" not in html and "<img" not in html and "<b>attention</b>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;b&gt;attention" in html


def test_what_is_not_a_function_or_not_a_plain_scenario_is_one_sentence():
    from attn_tui import check

    with pytest.raises(CheckError, match="not a int"):
        check(42)

    class NeedsArguments:
        def __init__(self, d_model):
            pass

        def forward(self, q, k, v):
            return v

    with pytest.raises(CheckError, match="could not be made without arguments"):
        check(NeedsArguments)
    with pytest.raises(ValueError, match="has more"):
        check(module_of("chapter").attention, scenario="two_heads")
    with pytest.raises(ValueError, match="no built-in scenario of that name"):
        check(module_of("chapter").attention, scenario="cat_sat_typo")


def test_show_is_the_figure_the_command_writes(capsys):
    from attn_tui import show

    figure = show("cat_sat", stage="weights")
    assert main(["figure", "cat_sat", "--stage", "weights"]) == 0
    assert figure._repr_svg_() == capsys.readouterr().out
    svg = figure.svg
    assert svg.startswith("<?xml") and "<script" not in svg and "href" not in svg
    # a row's bars: "sat" pays 25%, 25%, 50% (the chapter)
    sat = show("cat_sat", stage="weights", row="sat").svg
    assert main(["figure", "cat_sat", "--stage", "weights", "--row", "3"]) == 0
    assert sat == capsys.readouterr().out
    with pytest.raises(ValueError, match="no row 'dog'"):
        show("cat_sat", row="dog")


def test_the_weights_the_figure_draws_are_the_chapters():
    from attn_tui import show

    weights = softmax(np.array([1.0, 1.0, 2.0]) / np.sqrt(2))  # "sat", by hand
    svg = show("cat_sat", stage="weights", row=3).svg
    for value in weights:
        assert f"{value:.3f}" in svg


NOTEBOOK_IMPORTS = """
import sys
import attn_tui
assert not any(name.startswith('attn_tui.grading') for name in sys.modules), 'not lazy'
from attn_tui import check, show
import numpy as np
def attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True) @ V
check(attention, cases=True)._repr_html_()
show('cat_sat')._repr_svg_()
print(sorted(name for name in sys.modules if name.split('.')[0] in ('textual', 'rich')))
"""


def test_check_and_show_import_neither_textual_nor_rich_and_attn_tui_stays_light():
    result = subprocess.run(
        [sys.executable, "-c", NOTEBOOK_IMPORTS], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
