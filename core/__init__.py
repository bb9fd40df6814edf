"""attn-tui's core: scenarios, every stage of attention and its explanation, in NumPy only.

Nothing here knows about terminals; the TUI, ``--json`` and ``--print`` are views of these
objects. The names below are imported on first use (PEP 562), so that checking a scenario
file with ``core.loading.scenario_file.check`` pulls in neither NumPy nor the rest of the core.
"""

from __future__ import annotations

from importlib import import_module

_EXPORTS = {
    "REGISTRY": "attn_tui.core.engine.stages",
    "stages_for": "attn_tui.core.engine.stages",
    "Attention": "attn_tui.core.engine.attention",
    "Trace": "attn_tui.core.engine.trace",
    "compute": "attn_tui.core.engine.trace",
    "compute_all": "attn_tui.core.engine.trace",
    "NumericError": "attn_tui.core.errors",
    "ScenarioError": "attn_tui.core.errors",
    "Explanation": "attn_tui.core.engine.explanation",
    "explain": "attn_tui.core.engine.explanation",
    "sentence": "attn_tui.core.engine.stages.softmax",
    "check": "attn_tui.core.loading.scenario_file",
    "load": "attn_tui.core.loading.scenario_file",
    "loads": "attn_tui.core.loading.scenario_file",
    "Options": "attn_tui.core.model.options",
    "Variant": "attn_tui.core.model.options",
    "Scenario": "attn_tui.core.model.scenario",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'core' has no attribute {name!r}")
