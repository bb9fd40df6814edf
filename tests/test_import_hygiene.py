"""core is NumPy and the standard library only: importing all of it pulls in no terminal code."""

import subprocess
import sys

from tests.conftest import ROOT

CODE = """
import sys
import core, core.attention, core.catalog, core.explain, core.load, core.numbers, core.report
import core.scenario, core.softmax, core.yaml_source
import tui.cli
core.report.to_text(core.load('scenarios/cat_sat.yaml'))
leaked = sorted(name for name in sys.modules if name.split('.')[0] in ('textual', 'rich'))
print(leaked)
"""


def test_core_and_the_headless_cli_import_neither_textual_nor_rich():
    result = subprocess.run([sys.executable, "-c", CODE], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
