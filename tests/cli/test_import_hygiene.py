"""core is NumPy and the standard library only: importing all of it pulls in no terminal code."""

import os
import pkgutil
import subprocess
import sys

from attn_tui import core
from tests.conftest import ROOT

MODULES = sorted(module.name for module in pkgutil.walk_packages(core.__path__, "attn_tui.core."))

CODE = f"""
import sys
import {", ".join(MODULES)}
import attn_tui.tui.cli
from attn_tui import core
core.outputs.report.to_text(core.load('scenarios/cat_sat.yaml'))
leaked = sorted(name for name in sys.modules if name.split('.')[0] in ('textual', 'rich'))
print(leaked)
"""

CHECK_WITHOUT_NUMPY = """
import sys
from attn_tui.core.loading.scenario_file import check
checked = check('scenarios/cat_sat.yaml')
assert checked.title == 'The cat sat' and checked.T == 3, checked
print(sorted(name for name in sys.modules if name.split('.')[0] in ('numpy', 'textual', 'rich')))
"""


def test_core_and_the_headless_cli_import_neither_textual_nor_rich():
    assert len(MODULES) > 10
    result = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_checking_a_yaml_scenario_needs_no_numpy():
    """The command line checks a file before the app starts; the app paints before NumPy."""
    result = subprocess.run(
        [sys.executable, "-c", CHECK_WITHOUT_NUMPY], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_every_export_of_core_is_what_it_says_even_after_its_modules_are_imported():
    """A module named like a function it exports (a module load in core/ beside a function load)
    would shadow it."""
    import importlib
    import types

    for module in MODULES:
        importlib.import_module(module)
    for name in core.__all__:
        assert not isinstance(getattr(core, name), types.ModuleType), name


OPEN_THE_DEBUGGER = """
import asyncio, sys
from attn_tui.core import load
from attn_tui.tui.app import AttnApp
LATER = {'attn_tui.tui.screens.help', 'attn_tui.tui.screens.save_as', 'attn_tui.tui.screens.goto',
         'attn_tui.tui.screens.choice', 'attn_tui.tui.class_answers', 'attn_tui.tui.class_desk',
         'attn_tui.core.classroom.tally', 'attn_tui.core.classroom.judging', 'attn_tui.tui.follow',
         'attn_tui.core.classroom.wire', 'attn_tui.core.engine.backward'}
async def main():
    app = AttnApp(load('scenarios/cat_sat.yaml'), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == 'DebuggerScreen', app.screen
        print(sorted(LATER & set(sys.modules)))
        await pilot.press('question_mark')
        await pilot.pause()
        print(type(app.screen).__name__, sorted(LATER & set(sys.modules)))
asyncio.run(main())
"""


def test_the_debugger_opens_before_the_dialogs_modules_are_imported(tmp_path):
    # help, Save As, go-to and the questions are imported when first asked for, not
    # before the first frame; a class's answers (their tally and judging), its channel
    # (tui.follow, its wire format) only in a class, and the backward pass only when it is asked for
    environment = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", OPEN_THE_DEBUGGER],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=environment,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "HelpScreen ['attn_tui.tui.screens.help']"]
