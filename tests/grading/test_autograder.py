"""The Gradescope autograder zip, unpacked as Gradescope unpacks it (the zip in source/, its
run_autograder beside it) and run against a submission folder, its root moved by
ATTN_TUI_AUTOGRADER_ROOT; its wheel read back (the files, the dependencies, RECORD's hashes)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from attn_tui.tui.cli import main

ROOT = Path(__file__).resolve().parents[2]
STUDENTS = Path(__file__).with_name("students")
NOTEBOOKS = Path(__file__).with_name("notebooks")


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("autograder")
    archive = folder / "autograder.zip"
    assert (
        main(
            [
                "autograder",
                "gradescope",
                "-o",
                str(archive),
                "--points",
                "20",
                "--scenario",
                str(ROOT / "scenarios" / "cat_sat.yaml"),
            ]
        )
        == 0
    )
    return archive


def unpacked(archive: Path, root: Path) -> Path:
    """/autograder as Gradescope lays it out, with python3 this test's Python."""
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    shim = root / "bin" / "python3"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    return root


def run_autograder(root: Path) -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["ATTN_TUI_AUTOGRADER_ROOT"] = str(root)
    done = subprocess.run(
        ["bash", str(root / "run_autograder")],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def test_the_zip_holds_setup_run_autograder_and_a_wheel(autograder):
    with zipfile.ZipFile(autograder) as opened:
        names = opened.namelist()
        wheel = next(name for name in names if name.endswith(".whl"))
        assert {"setup.sh", "run_autograder", wheel, "scenarios/cat_sat.yaml"} == set(names)
        for script in ("setup.sh", "run_autograder"):
            assert stat.S_IMODE(opened.getinfo(script).external_attr >> 16) & 0o111
        setup = opened.read("setup.sh").decode()
        run = opened.read("run_autograder").decode()
    assert f"pip install --no-cache-dir ./{wheel}" in setup
    assert '--gradescope "$ROOT/results/results.json"' in run
    assert "--points 20 --scenario scenarios/cat_sat.yaml" in run
    assert wheel.startswith("attn_tui-") and wheel.endswith("-py3-none-any.whl")


def test_the_wheel_has_every_file_its_dependencies_and_true_hashes(autograder, tmp_path):
    with zipfile.ZipFile(autograder) as opened:
        wheel = next(name for name in opened.namelist() if name.endswith(".whl"))
        opened.extract(wheel, tmp_path)
    with zipfile.ZipFile(tmp_path / wheel) as opened:
        names = set(opened.namelist())
        info = next(name.split("/")[0] for name in names if ".dist-info/" in name)
        metadata = opened.read(f"{info}/METADATA").decode()
        record = opened.read(f"{info}/RECORD").decode().splitlines()
        for line in record:
            name, digest, size = line.rsplit(",", 2)
            if not digest:
                continue
            data = opened.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == "sha256=" + expected.decode() and int(size) == len(data), name
        entry_points = opened.read(f"{info}/entry_points.txt").decode()
    for needed in (
        "attn_tui/__init__.py",
        "attn_tui/grading/worker.py",
        "attn_tui/grading/student_code.py",
        "attn_tui/grading/notebook_code.py",
        "attn_tui/core/engine/stages/scale.py",
        "attn_tui/scenarios/cat_sat.yaml",
        "attn_tui/tui/app.tcss",
    ):
        assert needed in names, needed
    assert not any("__pycache__" in name or name.startswith("tests/") for name in names)
    assert len(record) == len(names)  # (every file listed, RECORD itself included)
    for requirement in ("numpy", "pyyaml", "textual"):
        assert f"Requires-Dist: {requirement}" in metadata
    assert "extra ==" not in metadata and "torch" not in metadata
    assert "attn-tui = attn_tui.tui.cli:main" in entry_points


@pytest.mark.slow
def test_run_autograder_grades_the_submission_folder(autograder, tmp_path):
    root = unpacked(autograder, tmp_path / "autograder")
    helpers, attention = (
        (STUDENTS / "chapter.py").read_text(encoding="utf-8").split("def attention", 1)
    )
    (root / "submission" / "utils.py").write_text(helpers, encoding="utf-8")
    (root / "submission" / "attention.py").write_text(
        "import numpy as np\nfrom utils import softmax\n\n\ndef attention" + attention,
        encoding="utf-8",
    )
    results = run_autograder(root)
    tests = results["tests"]
    scored = [test for test in tests if test["max_score"] > 0]
    assert sum(test["max_score"] for test in scored) == pytest.approx(20)
    assert results["score"] == pytest.approx(20)  # (every case right)
    assert all(test["status"] == "passed" for test in tests)
    assert "cat_sat.yaml" in [test["name"] for test in tests]  # (the --scenario's own case)


@pytest.mark.slow
def test_run_autograder_on_nothing_handed_in_and_on_a_mistake(autograder, tmp_path):
    root = unpacked(autograder, tmp_path / "empty")
    results = run_autograder(root)
    assert results["score"] == 0 and "nothing handed in" in results["tests"][0]["output"]
    root = unpacked(autograder, tmp_path / "mistake")
    shutil.copy(STUDENTS / "unscaled.py", root / "submission" / "hw.py")
    results = run_autograder(root)
    failed = [test for test in results["tests"] if test["status"] == "failed"]
    assert failed and 0 < results["score"] < 20
    assert any("**Fix:**" in test["output"] for test in failed)


def test_torch_is_installed_only_when_asked(autograder, tmp_path):
    # without it a PyTorch course's every student gets "No module named 'torch'" and 0
    with zipfile.ZipFile(autograder) as opened:
        assert "torch" not in opened.read("setup.sh").decode()
    archive = tmp_path / "torch.zip"
    assert main(["autograder", "gradescope", "-o", str(archive), "--torch"]) == 0
    with zipfile.ZipFile(archive) as opened:
        setup = opened.read("setup.sh").decode()
    install = "pip install --no-cache-dir torch --index-url https://download.pytorch.org/whl/cpu"
    assert install in setup
    assert setup.index("attn_tui-") < setup.index(install)  # (after attn-tui and its NumPy)
    done = subprocess.run(["bash", "-n", "-c", setup], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
