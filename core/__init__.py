"""attn-tui's core: scenarios, every stage of attention and its explanation, in NumPy only.

Nothing here knows about terminals; the TUI, ``--json`` and ``--print`` are views of these
objects. The names below are imported on first use (PEP 562), so that checking a scenario
file with ``core.scenario_file.check`` pulls in neither NumPy nor the rest of the core.
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "STAGES": "core.stages", "STAGE_TITLES": "core.stages",
    "Trace": "core.attention", "compute": "core.attention", "compute_all": "core.attention",
    "NumericError": "core.errors", "ScenarioError": "core.errors",
    "Explanation": "core.explanation", "explain": "core.explanation", "sentence": "core.explanation",
    "check": "core.scenario_file", "load": "core.scenario_file", "loads": "core.scenario_file",
    "Options": "core.options", "Variant": "core.options", "Scenario": "core.scenario",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'core' has no attribute {name!r}")
