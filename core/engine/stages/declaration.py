"""The form every stage is declared in: one :class:`Stage`, its names and a small record for
each concern (:class:`Arithmetic`, :class:`Display`, its gradient and range rule beside them,
:class:`TurnedOn`, :class:`Reported`, :class:`Teaching`), the parts those may hold
(:class:`Summary`, :class:`Extra`, :class:`Toggle`) and the kinds of columns a stage may have
(``KEYS``, ``DIMS``, …).

A stage's module is written with these as the package ``core.engine.stages`` gives them; the
registry there lists the stages made with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from attn_tui.core.engine.stages.contract import Gradient, RangeRule, check_stage

if TYPE_CHECKING:
    import numpy as np

    from attn_tui.core.engine.attention import Attention, Head, Window
    from attn_tui.core.engine.explanation import Writer
    from attn_tui.core.model.edits import Edit
    from attn_tui.core.model.options import Options
    from attn_tui.core.model.scenario import Scenario
    from attn_tui.core.model.settings import StageSetting
    from attn_tui.core.reading.files import Files
    from attn_tui.core.reading.keys import Entry

# What a stage's columns are: the keys (tokens), a head's dimensions, its value dimensions, the
# heads' value dimensions side by side, or the output projection's.
KEYS, DIMS, VALUES, CONCAT, OUT = "keys", "dims", "values", "concat", "out"
MODEL = "model"  # X's columns (d_model): dL/dX
TILES = (
    "tiles"  # a run of keys each (online softmax's key tiles): ``[``/``]`` move a tile at a time
)
# In ``reads``: the stage just before this one among the scenario's steps (of a head's stages
# when this one is a head's, else the last of them), whichever that is.
PREVIOUS = "previous"
# What a stage may read besides other stages: the inputs attention starts from.
INPUTS = ("Q", "K", "V", "Wo", "bo")


@dataclass(frozen=True)
class Summary:
    """One number per query row that a stage adds to its tables (``--print``, ``--markdown``)
    and to ``--json``'s ``diagnostics``: softmax's largest weight and entropy."""

    label: str  # its column in a table: "max"
    name: str  # its name in --json's diagnostics: "max_weight"
    meaning: str  # said under the table's title: "largest weight"
    values: Callable[[Head, range], np.ndarray]


@dataclass(frozen=True)
class Extra:
    """A matrix or a vector (one number per query row) that a stage adds to ``--json`` just
    before its own values: softmax's row maxima, the bias itself, online softmax's output."""

    name: str
    values: Callable[..., np.ndarray]  # (head, rows): those rows, every column
    per_row: bool = False
    empty_rows: bool = False  # a row that sees no key has none (null)
    # whether a scenario has it (the weight given to a learned sink: with sinks only)
    applies: Callable[[Any], bool] = lambda scenario: True


@dataclass(frozen=True)
class Toggle:
    """How a person turns a stage on and off without writing its key in the file: a command-line
    option, a key in the app (if it has one) and the command palette's entries, all made from
    this. Each sets the stage's setting through ``switch``, as the file's own key would."""

    option: str  # the command line's option: "--tiles"
    help: str  # what --help says of it
    # (scenario, the setting to turn on, or None: off) → the edit (NotApplicable where it cannot be)
    switch: Callable[[Scenario, Any], Edit]
    # the palette's entries for this scenario: (title, what it does, the setting, or None: off)
    offers: Callable[[Scenario], tuple[tuple[str, str, Any], ...]]
    value: str | None = None  # the option's value as --help shows it ("Br,Bc"); None: a switch
    # the option's value → the setting (ValueError says what is wrong); a switch turns ``on`` on
    parse: Callable[[str], Any] | None = None
    on: Callable[[Scenario], Any] | None = None  # the setting its key (or its switch) turns on
    key: str | None = None  # its key in the app: on, and again off
    does: str = ""  # the key's line in help
    footer: str = ""  # the key's word in the footer
    # why the stage cannot be turned on in this scenario (its key dims), or None
    unavailable: Callable[[Scenario], str | None] = lambda scenario: None


@dataclass(frozen=True)
class Arithmetic:
    """How a stage's values are computed: from what, into which rows and columns, a window at a
    time or whole rows, and what of a row may be missing."""

    compute: Callable[[Window], np.ndarray]  # its values in a window, from what it reads
    reads: tuple[str, ...]  # the stages and inputs (INPUTS) it is computed from; PREVIOUS
    columns: str  # KEYS, DIMS, VALUES, CONCAT, OUT, MODEL or TILES
    per_head: bool = True
    # What its rows are: the queries (QUERIES), or the keys (KEYS: dK and dV have one row a key).
    rows: str = "queries"
    # Computed a block of query rows at a time over every column, and kept until an edit makes
    # it stale (a matrix product); else computed cell by cell for the window asked, from what it
    # reads (the window's columns of the stages before it).
    whole_rows: bool = False
    # Its cell (i, j) depends on the whole row i of what it reads (softmax, a weighted sum):
    # highlighting then stops at it, and an input it reads is read whole.
    row_wide: bool = False
    # Per-row numbers it needs of whole rows before it can give any cell (softmax: the row's
    # largest score and its sum of exps), kept per block like ``whole_rows``.
    statistics: Callable[[Window], dict[str, np.ndarray]] | None = None
    empty_rows: bool = False  # a row that sees no key has none of its values
    masks: bool = False  # its cells a mask hides are drawn as the mask value (null in --json)
    # Cells it leaves out (online softmax's skipped tiles), drawn as Display's ``skipped_text``.
    skipped: Callable[[Attention, int, range, range], np.ndarray] | None = None
    # Another way to compute what an earlier stage computes (online softmax, a decode step):
    # no later stage reads it as the one before it.
    branch: bool = False
    # A step of the backward pass (core.engine.backward): after the layer's output, not part of it.
    backward: bool = False
    # Its columns' labels when they are none of the kinds above (online softmax's key tiles).
    labels: Callable[[Scenario], tuple[str, ...]] | None = None
    span: Callable[[Scenario], int] | None = None  # with TILES: how many keys one column holds
    # The rows of K and V that exist for a query row at all (a decode step's KV cache): the
    # app draws the others faded.
    context: Callable[[Scenario, int], range] | None = None


@dataclass(frozen=True)
class Display:
    """How a stage is shown: its heading, its arithmetic of one row in words, its colours and
    its numbers."""

    heading: Callable[[Scenario, Options], str]
    explain: Callable[[Writer], str]  # the arithmetic of one row; returns the title
    palette: str  # "weights" (0 to 1) or "diverging" (blue below 0, red above)
    changes: str  # how one changed input cell changes it, in words
    # (attention, head) → decimals; else the precision
    decimals: Callable[[Attention, int], int] | None = None
    skipped_text: str = "skip"  # what a cell Arithmetic's ``skipped`` leaves out shows
    overview: bool = False  # the stage the overview and the all-heads maps draw, small


@dataclass(frozen=True)
class TurnedOn:
    """What turns a stage on: the scenario keys and their reader, how a person turns it on
    without writing them (a command-line option, a key), and the mask it needs."""

    # The scenario keys that turn it on, and the reader of them: (context, the scenario's top
    # keys, the layout) → its setting, kept in ``Scenario.stage_settings[name]``.
    keys: tuple[str, ...] = ()
    # (the layout is core.loading's Plan, a layer above: Any)
    read: Callable[[Files, dict[str, Entry], Any], StageSetting | None] | None = None
    # When it holds only under the causal mask: (what the scenario does, "decodes (decode: true)";
    # its name as a doing, "decoding"; why, in words). Turning the mask off, or a lesson beat or
    # a recovery copy that would, is refused while its setting is on.
    needs_causal: tuple[str, str, str] | None = None
    # How a person turns it on and off outside the file (a stage that is a way of looking)
    toggle: Toggle | None = None


@dataclass(frozen=True)
class Reported:
    """What the tables (``--print``, ``--markdown``) and ``--json`` write of a stage besides
    its values."""

    summaries: tuple[Summary, ...] = ()
    extras: tuple[Extra, ...] = ()
    # What --json writes under its key when a matrix would not say it: (head, rows) → one
    # JSON value per row (online softmax's walk through the tiles, a decode step).
    json_rows: Callable[[Head, range], list] | None = None
    # Whether --json writes it (a backward step that is another one's values over a constant
    # need not make the document half as long again)
    in_json: bool = True


@dataclass(frozen=True)
class Teaching:
    """What a student may do with a stage's numbers."""

    predictable: bool = True  # whether a student may give (expect:) or guess (predict:) it
    # its cells a mask hides are known without working out (−∞, a weight of 0): a worksheet
    # prints them, a prediction never asks
    masked_given: bool = False
    key_a_noun: bool = False  # its key reads as the name of its numbers ("weights"; "scaled" not)


def always(scenario: Any) -> bool:
    return True


@dataclass(frozen=True)
class Stage:
    """One stage, declared once: its names, then a record for each concern. Only the first
    seven are asked of every stage; the rest have the defaults most stages want."""

    name: str  # "weighted_sum": how a program names it, everywhere (lessons, g, tests)
    title: str  # "Weighted sum": how the step strip and the headings name it
    key: str  # "output": its name in expect:, predict: and --json
    arithmetic: Arithmetic
    display: Display
    # Required (None: refused when made, naming the stage): its gradient (a ChainRule, the
    # GradientSteps that work it out, or NoGradient(why)) and its effect on the scores' range
    # (Adds, Multiplies, Caps, Keeps, or Outside(why)): see core.engine.stages.contract.
    gradient: Gradient | None = None
    score_range: RangeRule | None = None
    # whether the scenario has this step; reads only ``rope``, ``multi_head``, ``inputs`` (the
    # names) and ``stage_settings``, which a scenario file's reader knows before any array
    applies: Callable[[Any], bool] = always
    turned_on: TurnedOn = TurnedOn()
    reported: Reported = Reported()
    teaching: Teaching = Teaching()

    def __post_init__(self) -> None:
        check_stage(self)

    def flip(self, scenario: Any) -> Any:
        """The edit its key makes (``toggle``): off when it is on, else on."""
        on = self.name in scenario.stage_settings
        toggle = self.turned_on.toggle
        return toggle.switch(scenario, None if on else toggle.on(scenario))

    @property
    def tiny(self) -> bool:
        """Whether a non-zero value that would round to 0 is written with an exponent (1.0e−5,
        not 0.000): every stage's numbers but weights. A weight is a share of its row, and the
        chapter's 0.000 (``row.round(3)``: "nearly one-hot (0.999, 0.000, 0.000)") is a share too
        small to show at three decimals; a score, an input or an output of 1e-5 is not zero."""
        return self.display.palette != "weights"

    @property
    def numbers(self) -> str:
        """What a sentence calls its numbers: its key if that is a noun ("weights"), else "scaled
        values" (a handout asked for "the scaled of 't3'")."""
        return self.key if self.teaching.key_a_noun else f"{self.key} values"

    def row_count(self, scenario: Any) -> int:
        """Its number of rows: T_q, or T_k for a stage whose rows are keys."""
        return scenario.T_k if self.arithmetic.rows == KEYS else scenario.T

    def column_count(self, scenario: Any) -> int:
        """Its number of columns (``scenario`` has T_k, d_k, d_v, heads, d_out)."""
        if self.arithmetic.labels is not None:
            return len(self.arithmetic.labels(scenario))
        return {
            KEYS: scenario.T_k,
            DIMS: scenario.d_k,
            VALUES: scenario.d_v,
            CONCAT: scenario.heads * scenario.d_v,
            OUT: scenario.d_out,
            MODEL: _d_model(scenario),
        }[self.arithmetic.columns]

    def shape(self, scenario: Any) -> tuple[int, ...]:
        """The shape of a student's values of it: one matrix per head for a stage of each head
        when there are several."""
        per_head = (scenario.heads,) if self.arithmetic.per_head and scenario.heads > 1 else ()
        return (*per_head, self.row_count(scenario), self.column_count(scenario))


def _d_model(scenario: Any) -> int:
    X = getattr(scenario.inputs, "get", lambda name: None)("X")  # (a Plan knows only the names)
    return 0 if X is None else X.shape[1]
