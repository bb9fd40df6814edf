"""Matrices from .npy and .npz files: loading, every error naming file and array, saving."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core.editing.session import Session
from attn_tui.tui.cli import main

RNG = np.random.RandomState(0)
Q, K, V = RNG.randn(5, 4), RNG.randn(5, 4), RNG.randn(5, 3)


@pytest.fixture
def folder(tmp_path):
    np.save(tmp_path / "q.npy", Q)
    np.save(tmp_path / "k.npy", K)
    np.save(tmp_path / "v.npy", V)
    np.savez(tmp_path / "qkv.npz", Q=Q, K=K, V=V)
    return tmp_path


def error(path):
    with pytest.raises(ScenarioError) as caught:
        load(path)
    return caught.value


def test_npy_matrices_relative_to_the_scenario(folder, monkeypatch, tmp_path_factory):
    (folder / "s.yaml").write_text("Q: {npy: q.npy}\nK: {npy: k.npy}\nV: {npy: v.npy}\n")
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))  # the path is not relative to here
    scenario = load(folder / "s.yaml")
    assert np.array_equal(scenario.Q, Q) and np.array_equal(scenario.V, V)
    assert scenario.Q.dtype == np.float64 and scenario.tokens[0] == "t1"


def test_an_npz_holds_all_three_and_a_key_overrides_one(folder):
    (folder / "s.yaml").write_text("npz: qkv.npz\ntokens: a b c d e\n")
    scenario = load(folder / "s.yaml")
    assert np.array_equal(scenario.K, K) and scenario.tokens == tuple("abcde")
    (folder / "t.yaml").write_text("npz: qkv.npz\nV: [[1], [2], [3], [4], [5]]\n")
    assert load(folder / "t.yaml").V.tolist() == [[1], [2], [3], [4], [5]]


def test_integer_arrays_become_float64(folder):
    np.save(folder / "ints.npy", np.arange(20, dtype=np.int32).reshape(5, 4))
    (folder / "s.yaml").write_text("Q: {npy: ints.npy}\nK: {npy: k.npy}\nV: {npy: v.npy}\n")
    assert load(folder / "s.yaml").Q.dtype == np.float64


@pytest.mark.parametrize(
    "setup,line,fragment",
    [
        (lambda f: None, 1, "Q: no such file"),
        (
            lambda f: np.save(f / "missing.npy", RNG.randn(2, 3, 4, 5)),
            1,
            "Q: missing.npy holds a 4-dimensional array (shape (2, 3, 4, 5)); it should be a "
            "matrix (2 dimensions) or one matrix per head (3 dimensions)",
        ),
        (
            lambda f: np.save(f / "missing.npy", RNG.randn(5, 4) + 1j),
            1,
            "Q: missing.npy holds complex numbers",
        ),
        (lambda f: np.save(f / "missing.npy", np.array([["a"]])), 1, "Q: missing.npy holds text"),
        (
            lambda f: np.save(
                f / "missing.npy", np.array([[1, None]], dtype=object), allow_pickle=True
            ),
            1,
            "Q: missing.npy holds Python objects",
        ),
        (
            lambda f: (f / "missing.npy").write_bytes(b"not a numpy file at all"),
            1,
            "Q: missing.npy is not a NumPy .npy file",
        ),
        (
            lambda f: np.save(f / "missing.npy", np.full((5, 4), np.nan)),
            1,
            "Q: missing.npy row 1 column 1 is nan; numbers must be finite",
        ),
        (lambda f: np.save(f / "missing.npy", RNG.randn(5, 3)), 2, "K is 5×4 but Q is 5×3"),
    ],
)
def test_npy_errors_name_the_file_and_the_matrix(folder, setup, line, fragment):
    setup(folder)
    (folder / "s.yaml").write_text("Q: {npy: missing.npy}\nK: {npy: k.npy}\nV: {npy: v.npy}\n")
    problem = error(folder / "s.yaml")
    assert problem.line == line and fragment in problem.message, problem


def test_npz_errors(folder):
    np.savez(folder / "qk.npz", Q=Q, K=K)
    (folder / "s.yaml").write_text("title: x\nnpz: qk.npz\n")
    assert "missing V (nor in qk.npz)" in error(folder / "s.yaml").message
    np.savez(folder / "other.npz", a=Q)
    (folder / "s.yaml").write_text("npz: other.npz\n")
    problem = error(folder / "s.yaml")
    assert (
        problem.line == 1
        and "holds no Q, K, V" in problem.message
        and "it holds a" in problem.message
    )
    (folder / "s.yaml").write_text("npz: q.npy\n")
    assert "is not a .npz file" in error(folder / "s.yaml").message
    (folder / "s.yaml").write_text("npz: qkv.npz\nrandom: {seed: 0, T: 2, d_k: 2}\n")
    assert "cannot be combined" in error(folder / "s.yaml").message


def test_sizes_are_checked_from_the_header_before_the_data_is_read(folder):
    header = {"descr": "<f8", "fortran_order": False, "shape": (16_385, 4)}
    with open(folder / "huge.npy", "wb") as file:
        np.lib.format.write_array_header_1_0(file, header)  # a header and no data at all
    (folder / "s.yaml").write_text("Q: {npy: huge.npy}\nK: {npy: k.npy}\nV: {npy: v.npy}\n")
    assert "at most 16,384 rows" in error(folder / "s.yaml").message


def test_too_many_numbers_in_all_is_refused_from_the_headers(folder):
    """16,384 × 4,096 is within every single limit, but Q, K, V hold 3 × 67 M numbers."""
    for name in ("q", "k", "v"):
        with open(folder / f"{name}big.npy", "wb") as file:
            np.lib.format.write_array_header_1_0(
                file, {"descr": "<f8", "fortran_order": False, "shape": (16_384, 4096)}
            )
    (folder / "s.yaml").write_text("Q: {npy: qbig.npy}\nK: {npy: kbig.npy}\nV: {npy: vbig.npy}\n")
    assert (
        "too many numbers: 201,326,592 in all, at most 16,000,000"
        in error(folder / "s.yaml").message
    )


def test_a_pickle_is_never_loaded(folder):
    import pickle

    (folder / "evil.npy").write_bytes(pickle.dumps(Q))
    (folder / "s.yaml").write_text("Q: {npy: evil.npy}\nK: {npy: k.npy}\nV: {npy: v.npy}\n")
    assert "not a NumPy .npy file" in error(folder / "s.yaml").message


def test_check_prints_the_position(folder, capsys):
    (folder / "s.yaml").write_text(
        "title: t\nQ: {npy: nope.npy}\nK: {npy: k.npy}\nV: {npy: v.npy}\n"
    )
    assert main(["--check", str(folder / "s.yaml")]) == 2
    assert capsys.readouterr().err.startswith(f"{folder / 's.yaml'}:2:4: Q: no such file")


def test_an_edited_npy_matrix_is_saved_beside_the_scenario_and_the_data_file_is_kept(folder):
    text = "# mine\nQ: {npy: q.npy}  # from my model\nK: {npy: k.npy}\nV: {npy: v.npy}\n"
    (folder / "s.yaml").write_text(text)
    session = Session(load(folder / "s.yaml"))
    session.set_cell("Q", 4, 3, 2.5)
    session.save()
    saved = (folder / "s.yaml").read_text()
    assert saved == text.replace("{npy: q.npy}", '{npy: "s.Q.npy"}')
    assert np.array_equal(np.load(folder / "q.npy"), Q)  # the data file is untouched
    reloaded = load(folder / "s.yaml")
    assert reloaded.Q[4, 3] == 2.5 and np.array_equal(
        np.delete(reloaded.Q.ravel(), 19), np.delete(Q.ravel(), 19)
    )


def test_an_edited_npz_matrix_gets_its_own_key(folder):
    (folder / "s.yaml").write_text("npz: qkv.npz\n")
    session = Session(load(folder / "s.yaml"))
    session.set_cell("V", 0, 0, 7.0)
    session.save()
    assert (folder / "s.yaml").read_text() == 'npz: qkv.npz\nV: {npy: "s.V.npy"}\n'
    assert (
        load(folder / "s.yaml").V[0, 0] == 7.0 and np.load(folder / "qkv.npz")["V"][0, 0] == V[0, 0]
    )


def test_save_as_elsewhere_keeps_the_data_files_reachable(folder, tmp_path_factory):
    (folder / "s.yaml").write_text("npz: qkv.npz\n")
    other = tmp_path_factory.mktemp("other") / "copy.yaml"
    session = Session(load(folder / "s.yaml"))
    session.toggle_causal()
    session.save(str(other))
    copy = load(other)
    assert np.array_equal(copy.Q, Q) and copy.options.causal is False


# ---- every .npy header NumPy can write, and crafted ones -----------------------------------------


def _npy_with_header(path, header: dict) -> None:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    path.write_bytes(buffer.getvalue() + np.zeros(4).tobytes())


@pytest.mark.parametrize(
    "make, fragment",
    [
        # format 3.0 (UTF-8 field names): used to reach a private NumPy function that 2.x removed
        (lambda p: np.save(p, np.zeros((2, 2), dtype=[("€", "f8")])), "structured records"),
        (
            lambda p: _npy_with_header(
                p, {"descr": "<f8", "fortran_order": False, "shape": (True, True)}
            ),
            "shape (True, True)",
        ),
        (
            lambda p: _npy_with_header(
                p, {"descr": "<f8", "fortran_order": False, "shape": (2, -2)}
            ),
            "shape (2, -2)",
        ),
        (
            lambda p: p.write_bytes(b"\x93NUMPY\x01\x00\x10\x00{'descr': \x00\x00\x00\x00}  \n"),
            "not a NumPy .npy file",
        ),
        (lambda p: p.write_bytes(b"\x93NUMPY\x09\x00"), "not a NumPy .npy file"),
    ],
)
def test_a_strange_npy_header_is_a_located_error(tmp_path, capsys, make, fragment):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy warns that format 3.0 needs NumPy >= 1.17
        make(tmp_path / "q.npy")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("Q: {npy: q.npy}\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n")
    assert main(["--check", str(scenario)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{scenario}:1:4: Q: q.npy ") and fragment in err, err
    assert err.count("\n") == 1


def test_a_format_3_npy_of_plain_numbers_loads(tmp_path):
    """NumPy writes 3.0 only when it must (UTF-8 names); a 3.0 header of plain float64 is fine."""
    buffer = io.BytesIO()
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }".encode()
    header += b" " * (64 - (12 + len(header) + 1) % 64) + b"\n"
    buffer.write(b"\x93NUMPY\x03\x00" + len(header).to_bytes(4, "little") + header)
    buffer.write(np.array([[1.0, 2.0], [3.0, 4.0]]).tobytes())
    (tmp_path / "q.npy").write_bytes(buffer.getvalue())
    scenario = loads(
        "Q: {npy: q.npy}\nK: [[1, 0], [0, 1]]\nV: [[1, 0], [0, 1]]\n", str(tmp_path / "s.yaml")
    )
    assert scenario.Q.tolist() == [[1.0, 2.0], [3.0, 4.0]]
