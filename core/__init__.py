"""attn-tui's core: scenarios, every stage of attention and its explanation, in NumPy only.

Nothing here knows about terminals; the TUI, ``--json`` and ``--print`` are views of these
objects.
"""

from core.attention import STAGE_TITLES, STAGES, Trace, compute, compute_all
from core.errors import NumericError, ScenarioError
from core.explain import Explanation, explain, sentence
from core.load import load, loads
from core.scenario import Options, Scenario, Variant

__all__ = [
    "STAGES", "STAGE_TITLES", "Explanation", "NumericError", "Options", "Scenario",
    "ScenarioError", "Trace", "Variant", "compute", "compute_all", "explain", "load", "loads",
    "sentence",
]
