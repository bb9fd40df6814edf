"""The app's start: it asks BLAS for one thread (the app's keys are small products) unless the
user chose, and keeps the garbage collector waiting while it starts; every other command, run as
it is, leaves both alone when NumPy first loads."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.parametrize("given, expected", [(None, "1"), ("2", "2")])
def test_the_app_asks_blas_for_one_thread_unless_the_user_chose(given, expected):
    """Before NumPy loads (it reads the setting once); a user's own setting stands."""
    env = {
        key: value
        for key, value in __import__("os").environ.items()
        if key not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = (
        "import os\nfrom attn_tui.tui import cli\ncli.one_blas_thread()\nimport numpy\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == expected


@pytest.mark.parametrize(
    "argv, threads, collecting, started",
    [
        (["cat_sat"], "1", False, [False]),
        (["open", "--debug", "cat_sat"], "1", False, [False]),
        (["--print", "cat_sat"], None, True, []),
        (["--json", "cat_sat"], None, True, []),
        (["--js", "cat_sat"], None, True, []),
        (["check", "cat_sat"], None, True, []),
        (["--serve", "cat_sat"], "1", False, [True]),
        (["serve", "cat_sat"], "1", False, [True]),
        (["--debug", "serve", "cat_sat"], "1", False, [True]),
    ],
)
def test_only_the_app_asks_for_one_blas_thread_and_no_collection_before_numpy_loads(
    argv, threads, collecting, started
):
    """The settings as they stood when NumPy was first imported by the command as run (the
    parser's stage options load it): --json at T = 4096 and the like may use every core; the
    app's keys are small products. The garbage collector waits while the app starts, but
    not in a class's server, which runs for hours (``started``: whether it collected when the
    app, or the server, was started)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    }
    code = (
        "import gc, importlib.abc, os, sys\n"
        "seen, started = [], []\n"
        "class Watch(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'numpy' and not seen:\n"
        "            seen.append((os.environ.get('OPENBLAS_NUM_THREADS'), gc.isenabled()))\n"
        "sys.meta_path.insert(0, Watch())\n"
        "from attn_tui.tui.cli import app, main, serving\n"
        "app.start_app = lambda *args, **kwargs: started.append(gc.isenabled()) or 0\n"
        "serving.serve = lambda *args, **kwargs: started.append(gc.isenabled()) or 0\n"
        f"main({argv!r})\n"
        "print(repr(seen), repr(started), gc.isenabled(), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    )
    expected = f"{[(threads, collecting)]!r} {started!r} True"  # (and on again after, whatever ran)
    assert done.stderr.strip().splitlines()[-1] == expected
