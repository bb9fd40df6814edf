"""What scoring every head costs, before any of it is done: of one scenario, or of every layer
of a model index (``attn-tui heads``, ``figure --model-view``). Work past about 20 s in all is
refused at once, with the estimate and, for an index, the layers that would fit (``--layers``).

The estimate counts what a layer costs to READ as well as to score: reading can cost far more
than the scores (1,024 layers of T = 2 naming one 3.3 MB YAML file take ~35 minutes to read):

- its YAML text, parsed and checked: YAML_SECONDS_PER_MB of the file's size;
- the arrays of the data files it names (``npz:``, ``{npy: …}``): ARRAY_SECONDS_PER_MB of their
  bytes, as the .npz's directory or the .npy's size says;
- every head's weights: T·T_k·(PER_WEIGHT + PER_WIDTH·(d_k + d_v)) half-nanoseconds a head.

Each is counted as often as the code reads it: a layer file named by many layers is loaded once
for each of them. Nothing is read to size the reading (file sizes and a zip's directory), and a
layer's shape is read without its arrays (its YAML, the .npy headers). The YAML is the one thing
parsed, each file once, the smallest first; the estimate stops as soon as it is past the limit,
so a refusal comes at once: 1,024 layers naming one 3 MB file are refused on their sizes alone.
The constants are measured by ``benchmarks/read_costs.py``.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass

from attn_tui.core.errors import ScenarioError

# Scoring, in half-nanoseconds (RATE a second): 58 ns a weight measured at T = 2,048, d_k = 1 on
# 2 cores shared and loaded (27 ns unloaded), 57 ns at T = 1,024, d_k = 64: the width costs little.
PER_WEIGHT = 130
PER_WIDTH = 3
RATE = 2e9
MAX_WORK = 4e10  # at most ~20 s of work, in those units
LIMIT = MAX_WORK / RATE  # seconds
# Reading, in seconds a MB (2**20 bytes): benchmarks/read_costs.py measured 0.37 s a MB of YAML
# text and 0.0046 s a MB of .npz arrays unloaded; loaded, a 3.1 MB layer of YAML took 2.1 s to
# load (0.7 s a MB) and 128 MB of .npz 0.55 s.
YAML_SECONDS_PER_MB = 0.6
ARRAY_SECONDS_PER_MB = 0.01
MB = 2**20


@dataclass(frozen=True)
class Estimate:
    """Seconds of work: ``read`` (every file, each time it is read), ``score`` (every head's
    weights), ``each`` (every layer's, in the index's order). ``complete`` is False when the
    estimate stopped once past the limit: then it is at least this much."""

    read: float
    score: float
    each: tuple[float, ...]
    complete: bool = True

    @property
    def seconds(self) -> float:
        return self.read + self.score


def yaml_seconds(path: str) -> float:
    """Reading the scenario's YAML text, from its size alone (0 for a file that is not there:
    reading it says why)."""
    try:
        return os.path.getsize(path) / MB * YAML_SECONDS_PER_MB
    except OSError:
        return 0.0


def array_seconds(path: str) -> float:
    """Reading a data file's arrays: an .npz's from its directory (the arrays' own bytes, even
    when compressed), a .npy's from its size."""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                size = sum(member.file_size for member in archive.infolist())
        else:
            size = os.path.getsize(path)
    except (OSError, zipfile.BadZipFile):
        return 0.0
    return size / MB * ARRAY_SECONDS_PER_MB


def scoring_seconds(heads: int, T: int, T_k: int, d_k: int, d_v: int) -> float:
    return heads * T * T_k * (PER_WEIGHT + PER_WIDTH * (d_k + d_v)) / RATE


def layer_seconds(document, path: str) -> tuple[float, float]:
    """(reading its data files, scoring its heads) of a scenario file parsed already
    (``scenario_file.read_document``): its shape from its YAML and its arrays' headers."""
    from attn_tui.core.loading.scenario_file import layout_of
    from attn_tui.core.reading.files import named_files

    layout = layout_of(document, path)
    data = sum(array_seconds(name) for name in named_files(document, path))
    return data, scoring_seconds(
        layout["heads"], layout["T"], layout["T_k"], layout["d_k"], layout["d_v"]
    )


def check_scenario_work(path: str):
    """The scenario at ``path``, loaded, or ``ScenarioError`` when reading it and scoring its
    heads would take more than about 20 s: refused before its arrays are read (its text is
    parsed once, for both)."""
    from attn_tui.core.loading.scenario_file import layout_of, load_document, read_document

    document = read_document(path)
    data, score = layer_seconds(document, path)
    read = yaml_seconds(path) + data
    estimate = Estimate(read, score, (read + score,))
    if estimate.seconds > LIMIT:
        layout = layout_of(document, path)
        heads = (
            f"its {layout['heads']} head{'s' if layout['heads'] != 1 else ''} (T = {layout['T']:,})"
        )
        if estimate.read > estimate.score:  # (a data file with more in it than the scenario uses)
            what, smaller = (
                f"reading its files ({_seconds(estimate.read)}) and scoring {heads}",
                "name data files that hold only what the scenario uses",
            )
        else:
            what, smaller = f"scoring {heads}", "score a smaller scenario (fewer tokens or heads)"
        raise ScenarioError(
            f"{what} would take about {_took(estimate)}; at most about "
            f"{LIMIT:.0f} seconds: {smaller}",
            1,
            1,
            path,
        )
    return load_document(document, path)


def index_estimate(index, limit: float | None = LIMIT) -> Estimate:
    """Reading and scoring every layer of ``index`` (a ``model_index.ModelIndex``); past
    ``limit`` seconds it stops, ``complete=False`` (None: never stops)."""
    from attn_tui.core.loading.model_index import placed
    from attn_tui.core.loading.scenario_file import read_document

    reading = {entry.path: yaml_seconds(entry.path) for entry in index.layers}
    each = dict(reading)  # a file's seconds each time it is loaded, known so far
    scored: dict[str, float] = {}

    def estimate(complete: bool) -> Estimate:
        score = sum(scored.get(entry.path, 0.0) for entry in index.layers)
        seconds = tuple(each[entry.path] for entry in index.layers)
        return Estimate(sum(seconds) - score, score, seconds, complete)

    if limit is not None and sum(each[entry.path] for entry in index.layers) > limit:
        return estimate(False)  # (their YAML alone, from the files' sizes: nothing parsed)
    first = {}
    for entry in index.layers:
        first.setdefault(entry.path, entry)
    for path in sorted(first, key=lambda name: reading[name]):
        data, score = layer_seconds(placed(read_document, first[path]), path)
        each[path] = reading[path] + data + score
        scored[path] = score
        if limit is not None and sum(each[entry.path] for entry in index.layers) > limit:
            return estimate(len(scored) == len(first))
    return estimate(True)


def check_index_work(index) -> Estimate:
    """The estimate, or ``ScenarioError`` at the index when its layers would take more than
    about 20 s: how long, and the first layers that fit (``--layers``)."""
    estimate = index_estimate(index)
    if estimate.seconds <= LIMIT:
        return estimate
    fit, total = 0, 0.0
    for seconds in estimate.each:
        total += seconds
        if total > LIMIT:
            break
        fit += 1
    numbers = [entry.layer for entry in index.layers[:fit]]
    fewer = (
        f"score at most about {fit:,} of them (--layers {layer_ranges(numbers)})"
        if fit
        else "score a layer's own scenario, or a smaller one"
    )
    parts = (
        f"reading their files {_seconds(estimate.read)}, "
        f"every head's weights {_seconds(estimate.score)}"
        if estimate.score or estimate.complete
        else f"reading their files alone, from their sizes: {_seconds(estimate.read)}"
    )
    raise ScenarioError(
        f"the {len(index.layers):,} layer{'s' if len(index.layers) != 1 else ''} would take about "
        f"{_took(estimate)} to score{'' if estimate.complete else ', or more'} ({parts}); "
        f"at most about {LIMIT:.0f} seconds: "
        f"{fewer}",
        1,
        1,
        index.path,
    )


def layer_ranges(numbers: list[int]) -> str:
    """Layer numbers as ``--layers`` reads them: ``0-16``, ``0-3,7``."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _took(estimate: Estimate) -> str:
    return _seconds(estimate.seconds)


def _seconds(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    return f"{seconds:.0f} seconds" if seconds < 120 else f"{seconds / 60:.0f} minutes"
