"""The words the fuzzer writes into its YAML (tests/reading/fuzz_yaml.py builds the text): the
scenario's own keys and the keys inside them, scalars that YAML or the loader reads oddly, file
names a matrix may be read from, key texts, anchor names and node properties."""

from __future__ import annotations

from attn_tui.core.engine.stages import scenario_keys as stage_keys
from attn_tui.core.lessons import reader as lesson_reader
from attn_tui.core.loading import scenario_file
from attn_tui.core.reading import inputs, loss, options, rope, tiles
from tests.conftest import ROOT

# The keys are the loader's own (core.loading.scenario_file.KEYS) and the stages' (each Stage's
# scenario_keys, from the registry), so that a key is fuzzed the day it lands; the keys inside
# them are their readers' own lists. test_the_fuzzer_draws_the_loaders_own_keys checks this.
SCENARIO_KEYS = scenario_file.KEYS + tuple(stage_keys())
NESTED_KEYS = (
    inputs.RANDOM_KEYS
    + inputs.HEAD_KEYS
    + options.VARIANT_KEYS
    + loss.LOSS_KEYS
    + loss.TRAIN_KEYS
    + rope.ROPE_KEYS
    + tiles.TILE_KEYS
    + ("slope", "slopes", "npy")
    + ("style", "q_weight", "k_weight", "eps", "qwen3", "olmo2", "llama4")  # qk_norm:
    + lesson_reader.BEAT_KEYS
    + lesson_reader.EDIT_KEYS
    + lesson_reader.SET_KEYS
)

ODD_SCALARS = [
    ".nan",
    ".NaN",
    ".NAN",
    ".inf",
    ".Inf",
    "-.inf",
    "+.inf",
    "-.Inf",
    "1e999",
    "-1e999",
    "1.0e+999",
    "1e-999",
    "0x1F",
    "0x_",
    "0o17",
    "017",
    "0b101",
    "0b_",
    "1_000",
    "1__0",
    "1_",
    "._",
    "1:30",
    "1:30.5",
    "-1:30",
    "190:20:30",
    "~",
    "null",
    "Null",
    "",
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "Y",
    "true",
    "False",
    "TRUE",
    "0",
    "-0",
    "-0.0",
    "+1",
    "1.",
    ".5",
    "1e5",
    "1E+5",
    "1.0e+5",
    "1.5e-3",
    "2.5E+308",
    "1.7976931348623157e308",
    "-1.7976931348623157e308",
    "5e-324",
    "4.9e-324",
    "1e308",
    "1e-308",
    "123456789012345678901234567890",
    "9" * 400,
    "1" * 5000,
    "1:2:3:4:5:6:7",
    "inf",
    "nan",
    "NaN",
    "-inf",
    "Infinity",
    "٣",
    "１",
    "0.",
    "-.",
    "+",
    "-",
    ".",
    "'1'",
    '"1.5"',
    "'.inf'",
    '"-inf"',
    '"\\u00e9\\t\\x41"',
    "'it''s'",
    "!!int ''",
    "!!float ''",
    "!!int '-'",
    "!!int '_'",
    "!!int abc",
    "!!int 1.5",
    "!!int 0b",
    "!!float abc",
    "!!float '-'",
    "!!float 1:x",
    "!!str 1",
    "!!str",
    "!!bool maybe",
    "!!null x",
    "!!int",
    "!!float",
    "!!float .nan",
    "!!int 99999999999999999999999",
    "!!python/object:os.system 'echo hi'",
    "!!python/name:os.system ''",
    "!!python/object/apply:os.system ['echo hi']",
    "!!binary aGVsbG8=",
    "!!timestamp 2001-12-14",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "!custom x",
    "!<tag:yaml.org,2002:int> 5",
    "!<tag:yaml.org,2002:python/object> x",
    "! 12",
    "!!merge x",
    "=",
    "<<",
    "*",
    "&",
    "? x",
    "- x",
    "@x",
    "`x`",
    "%x",
    "a: b",
    "a #c",
    "[",
    "]",
    "{",
    "}",
    ",",
    "| x",
    "> x",
]
NAMES = ("a", "b", "q")
# Never a device that blocks or never ends (/dev/stdin, /dev/zero): see
# tests/reading/test_bugs_the_fuzzer_found.py.
FILE_NAMES = (
    "missing.npy",
    "missing.npz",
    ".",
    "..",
    "/",
    "",
    "~",
    "''",
    '"a\\0b.npy"',
    "/dev/null",
    "cat_sat.yaml",
    str(ROOT / "scenarios" / "cat_sat.yaml"),
    str(ROOT / "pyproject.toml"),
    "[x.npy]",
    "{npy: x}",
    "x.npy x.npy",
    "é.npy",
    "../../../../etc/passwd",
    "/proc/self/status",
    "~root/x.npy",
)
KEY_TEXTS = (
    SCENARIO_KEYS
    + tuple(dict.fromkeys(NESTED_KEYS))
    + (
        "<<",
        "npz",
        "npy",
        "q",
        "k",
        "titel",
        "Tokens",
        "mask",
        "'Q'",
        '"K"',
        "~",
        "1",
        "é",
        "",
        "? Q",
        "[Q]",
        "{K: 1}",
        "Q ",
        "d_k ",
        "*a",
        "!!str title",
        "!!python/name:os.system x",
    )
)
PROPS = (
    "&a",
    "&b",
    "&q",
    "&a !!seq",
    "&b !!map",
    "!!seq",
    "!!map",
    "!!set",
    "!!omap",
    "!!str",
    "!!binary",
    "!!python/tuple",
    "&a !!python/object:os.system",
    "!!pairs",
)
