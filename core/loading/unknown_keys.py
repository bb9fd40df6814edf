"""The unknown keys of a scenario file, all found in one pass: the top's, and those of the
mappings inside it whose keys are known before anything is read (``core.loading.scenario_file``
asks before it reads any key's value).
"""

from __future__ import annotations

from attn_tui.core.errors import ScenarioError
from attn_tui.core.files.yaml_source import Sequence, deref
from attn_tui.core.reading import inputs, rope
from attn_tui.core.reading import options as option_reader
from attn_tui.core.reading.keys import Entry, entries, unknown_key_error, unknown_keys

# The mappings inside a scenario whose keys are known before anything is read: each unknown key
# of the file is reported at once, each at its line (a typo in a variant is not found only after
# the typo at the top is fixed).
_NESTED = {
    "variants": (True, option_reader.VARIANT_KEYS, "variant"),
    "heads": (True, inputs.HEAD_KEYS, "head"),
    "rope": (False, rope.ROPE_KEYS, "rope"),
    "random": (False, inputs.RANDOM_KEYS, "random"),
}


def check_unknown_keys(top: dict[str, Entry], known: tuple[str, ...]) -> None:
    """``ScenarioError`` naming every key of ``top`` not in ``known``, and every unknown key of
    the mappings in ``_NESTED``, each at its line."""
    problems = unknown_keys(top, known, "the scenario")
    for name, (listed, keys, what) in _NESTED.items():
        node = deref(top[name].value) if name in top else None
        if node is None or listed != isinstance(node, Sequence):
            continue  # not there, or written wrong: its reader says so
        for number, item in enumerate(node.items if listed else [node], 1):
            label = f"{what} {number}" if listed else what
            try:
                problems += unknown_keys(entries(item, label), keys, label)
            except ScenarioError:
                continue
    if problems:
        raise unknown_key_error(problems)
