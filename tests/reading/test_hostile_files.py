"""Damaged, strange and hostile files: devices, pipes, links, encodings, NumPy headers.

Each case ends in a scenario or in one located message and exit 2 — never a hang, a traceback,
a flood of memory, or the first bytes of some unrelated file echoed to the terminal.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import warnings

import numpy as np
import pytest

from attn_tui.core import ScenarioError, load, loads
from attn_tui.core.engine.trace import compute_all
from attn_tui.core.reading import text
from attn_tui.tui.cli import main
from tests.conftest import ROOT

SMALL = "Q: [[1]]\nK: [[1]]\nV: [[1]]\n"


def _limited() -> None:  # in the child: whatever goes wrong, it cannot eat the machine
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run_cli(*args: str, timeout: float = 20) -> subprocess.CompletedProcess:
    """``attn-tui ARGS`` in a real process, capped at 1 GB of address space and ``timeout``."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "attn_tui", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=_limited,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"attn-tui {' '.join(args)} did not end in {timeout} s") from None


def error_of(path) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load(path)
    return caught.value


# ---- item 3: devices and pipes are never read ---------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero and mkfifo")
def test_a_device_a_fifo_or_a_link_to_one_is_refused_at_once(tmp_path):
    fifo = tmp_path / "f.yaml"
    os.mkfifo(fifo)  # nobody writes to it: opening it to read would block for ever
    link = tmp_path / "zero.yaml"
    link.symlink_to("/dev/zero")
    for path in ("/dev/zero", "/dev/urandom", str(fifo), str(link)):
        result = run_cli("--check", path, timeout=20)
        assert result.returncode == 2, (path, result.stderr[-300:])
        assert result.stderr.startswith(f"{path}: ") and "not a regular file" in result.stderr, (
            result.stderr
        )
        assert result.stderr.count("\n") == 1


def test_a_file_is_read_at_most_to_the_limit_whatever_its_size_says(monkeypatch):
    """/proc files say they hold 0 bytes and then hold more: the read itself is bounded."""
    if not os.path.isfile("/proc/self/status"):
        pytest.skip("needs /proc")
    monkeypatch.setattr(text, "MAX_FILE_BYTES", 100)
    error = error_of("/proc/self/status")
    assert "too large" in error.message and "100" in error.message


def test_a_directory_is_named_as_one(tmp_path):
    assert "is a directory" in error_of(tmp_path).message


# ---- item 12: the smaller ones ------------------------------------------------------------------


@pytest.mark.parametrize("line", ["causal: !!bool maybe", "scale: !!bool 5", "causal: !!bool ''"])
def test_a_bool_tag_on_text_that_is_no_boolean_is_an_error(line):
    with pytest.raises(ScenarioError) as caught:
        loads(SMALL + line + "\n", "s.yaml")
    assert caught.value.line == 4 and "true or false" in caught.value.message


def test_a_key_written_twice_through_an_alias_names_both_lines():
    with pytest.raises(ScenarioError) as caught:
        loads("&k Q: [[1]]\n*k : [[2]]\nK: [[1]]\nV: [[1]]\n", "s.yaml")
    assert (caught.value.line, caught.value.col) == (2, 1)
    assert "first on line 1, again on line 2" in caught.value.message


def test_a_symlink_loop_says_so(tmp_path, capsys):
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    assert main(["--check", str(tmp_path / "a.yaml")]) == 2
    err = capsys.readouterr().err
    assert "symbolic link" in err and "loop" in err and "no such file" not in err


def test_a_dangling_symlink_says_where_it_points(tmp_path):
    (tmp_path / "a.yaml").symlink_to(tmp_path / "gone.yaml")
    message = error_of(tmp_path / "a.yaml").message
    assert "symbolic link" in message and "gone.yaml" in message


@pytest.mark.parametrize(
    "data, where",
    [
        ((SMALL.encode("utf-16") + b"A"), (4, 1)),  # a byte-order mark, then an odd byte
        (SMALL.encode("utf-16-le"), None),  # no byte-order mark
        (("title: ab\n" + SMALL).encode("utf-16-be"), None),
    ],
)
def test_utf16_is_named_as_utf16(write, data, where):
    error = error_of(write(data))
    assert "UTF-16" in error.message and "not UTF-8" not in error.message, error.message
    if where is not None:
        assert (error.line, error.col) == where


def test_utf16_with_a_byte_order_mark_still_loads(write):
    assert load(write(("title: é\n" + SMALL).encode("utf-16"))).title == "é"


@pytest.mark.parametrize("value", ["'-inf'", '"-.inf"', "'-1e9'"])
def test_a_quoted_mask_value_is_text_not_a_number(value):
    with pytest.raises(ScenarioError) as caught:
        loads(SMALL + f"mask_value: {value}\n", "s.yaml")
    assert caught.value.line == 4 and "quoted" in caught.value.message


def test_plain_minus_inf_spellings_are_still_accepted():
    for value in ("-.inf", "-inf", "-Infinity"):
        assert loads(SMALL + f"mask_value: {value}\n").options.mask_value == -np.inf


@pytest.mark.parametrize("row", ["٣", "３", "²", "1\u200b"])
def test_row_takes_ascii_digits_only(capsys, row):
    with pytest.raises(SystemExit) as caught:
        main(["--print", "cat_sat", "--row", row])
    assert caught.value.code == 2
    capsys.readouterr()


def test_a_digit_of_another_script_is_still_a_token(write, capsys):
    path = write("tokens: [a, ٣]\nQ: [[1], [2]]\nK: [[1], [2]]\nV: [[1], [2]]\n")
    assert main(["--print", str(path), "--row", "٣"]) == 0
    assert 'Row 2, "٣"' in capsys.readouterr().out


def test_a_file_that_is_not_npy_is_never_echoed(tmp_path, capsys):
    (tmp_path / "shadow").write_text("root:$6$secretsalt$hash:19000:0:99999:7:::\n")
    (tmp_path / "s.yaml").write_text("Q: {npy: shadow}\nK: [[1]]\nV: [[1]]\n")
    (tmp_path / "t.yaml").write_text("npz: shadow\n")
    for name in ("s.yaml", "t.yaml"):
        assert main(["--check", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert (
            "secret" not in err
            and "$6$" not in err
            and ("not a NumPy" in err or "not a .npz" in err)
        )


def test_the_most_negative_mask_value_computes_without_a_warning():
    scenario = loads(
        "Q: [[1.0e147], [-1.0e147]]\nK: [[1.0e147], [1.0e147]]\nV: [[1], [2]]\n"
        "scale: false\nmask_value: -1.7976931348623157e308\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trace = compute_all(scenario)[""]
    assert trace.weights.tolist() == [[1.0, 0.0], [0.5, 0.5]]
