"""Reading a scenario file into a Scenario, with an error that names file, line and column.

Every check happens on the YAML nodes before any array is built: shapes and sizes first (so a
YAML alias bomb is refused before it is expanded), then the numbers one by one. This module
reads the structure (keys, shapes, options, files); ``core.yaml_numbers`` reads single values.

:func:`check` does all of it without NumPy for a scenario written in YAML (the command line
checks a file before it starts the app, and the app paints before NumPy has loaded);
:func:`load` builds the Scenario with its arrays.
"""

from __future__ import annotations

import difflib
import errno
import math
import os
import stat
from dataclasses import dataclass

from typing import TYPE_CHECKING, Any

from attn_tui.core.errors import NumericError, ScenarioError
from attn_tui.core.numpy_files import ArrayRef, NumpyFileError, npz_members
from attn_tui.core.options import (INPUT_SETS, MAX_DESCRIPTION_LENGTH, MAX_DIM, MAX_FILE_BYTES, MAX_HEADS,
                                   MAX_NUMBERS, MAX_T, MAX_TOKEN_LENGTH, Options, RandomSpec, Variant)
from attn_tui.core.yaml_matrices import (expected_file, expected_values, file_shape, file_values, matrix_shape,
                                         matrix_values, shape_of, values_of)
from attn_tui.core.yaml_matrices import largest as largest_of
from attn_tui.core.yaml_matrices import where as where_in
from attn_tui.core.yaml_numbers import (TAG, boolean, count, describe_scalar, kind_of, located, mask_value_option,
                                        named, number, scalar_text, scale_option, some_of, token_text,
                                        whole_number)
from attn_tui.core.yaml_source import Document, Mapping, Node, Scalar, Sequence, deref, line_col, parse

if TYPE_CHECKING:
    from attn_tui.core.rope import Rope
    from attn_tui.core.scenario import Scenario

INPUT_NAMES = ("Q", "K", "V", "X", "X_q", "Wq", "Wk", "Wv", "Wo", "bo")
OPTIONAL_INPUTS = ("X_q", "Wo", "bo")
# The stages a student may give (expect:) or guess (predict:): core.stages' EXPECT_KEYS, written
# out here so that checking a file needs no NumPy (a test keeps the two the same).
EXPECT_STAGES = ("scores", "scaled", "weights", "output", "concat", "projected")
PER_HEAD_STAGES = ("scores", "scaled", "weights", "output")
KEYS = ("title", "description", "tokens", "query_tokens", *INPUT_NAMES, "npz", "random",
        "heads", "kv_heads", "head_names", "causal", "scale", "mask_value", "window", "padding",
        "mask", "rope", "focus", "precision", "variants", "expect", "expect_npz",
        "expect_tolerance", "predict", "lesson")
OPTION_KEYS = ("causal", "scale", "mask_value")
VARIANT_KEYS = ("name",) + OPTION_KEYS
RANDOM_KEYS = ("seed", "T", "d_k", "d_v")
HEAD_KEYS = ("name", "Q", "K", "V")
ROPE_KEYS = ("base", "pairs")
MAX_VARIANTS = 16
MAX_PRECISION = 12
V_LIMIT = 1e307  # a weighted average of values this large could round past float64's largest
ROWS_AT_A_TIME = 256
DIMS = {"Q": (2, 3), "K": (2, 3), "V": (2, 3), "bo": (1, 2)}  # the rest are matrices

_INPUT_HELP = ("give Q, K and V; or X with Wq, Wk and Wv (each a list of rows or {npy: file.npy}, "
               "or all from npz: file.npz); or random: {seed, T, d_k}; or heads: a list of heads, "
               "each with its own Q, K and V")
_MASK_HELP = ("for cross-attention, hide keys with mask: (a T_q × T_k matrix of 0/1, 1 = may attend) "
              "or padding: (one 0/1 per key, 1 = never attended)")


@dataclass(frozen=True)
class Checked:
    """What checking a scenario file tells before anything is built: enough to draw the app's
    header, and the promise that :func:`load` will succeed on the same text."""

    title: str
    description: str
    tokens: tuple[str, ...]
    options: Options
    variants: tuple[Variant, ...]
    kind: str
    editable: tuple[str, ...]
    T: int
    d_k: int
    d_v: int
    path: str
    heads: int = 1
    query_tokens: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Entry:
    """One key of a YAML mapping, with the nodes of the key and of its value."""

    key: Scalar
    value: Node


def load(path: str | os.PathLike[str]) -> Scenario:
    """Read and check the scenario at ``path``; ``ScenarioError`` names what is wrong and where."""
    name = os.fspath(path)
    return loads(read_text(name), name)


def read_text(path: str) -> str:
    """The file's text, decoded as UTF-8 (or UTF-16 with a byte-order mark).

    Only a regular file is read (a link is followed first): a device such as /dev/zero or a
    pipe nobody writes to would be read for ever or block. Whatever the file's size claims, at
    most ``MAX_FILE_BYTES`` + 1 bytes are read.
    """
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused
        with open(path, "rb", opener=_open_nonblocking) as file:
            info = os.fstat(file.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise ScenarioError("is a directory, not a scenario file", path=path)
            if not stat.S_ISREG(info.st_mode):
                raise ScenarioError("is not a regular file (a device, a pipe or a socket); a scenario "
                                    "is a YAML file", path=path)
            if info.st_size > MAX_FILE_BYTES:
                raise _too_large(info.st_size, path)
            data = file.read(info.st_size + 1)  # what it says it holds, and a byte to see if more
            if len(data) > info.st_size:  # it holds more than it says (/proc files say 0)
                data += file.read(MAX_FILE_BYTES + 1 - len(data))
    except FileNotFoundError:
        raise ScenarioError(_missing(path), path=path) from None
    except PermissionError:
        raise ScenarioError("cannot read: permission denied", path=path) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ScenarioError("cannot read: its symbolic links form a loop", path=path) from None
        if exc.errno == errno.EISDIR:
            raise ScenarioError("is a directory, not a scenario file", path=path) from None
        raise ScenarioError(f"cannot read: {exc.strerror or exc}", path=path) from None
    if len(data) > MAX_FILE_BYTES:
        raise _too_large(None, path)
    return decode(data, path)


def _open_nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def _too_large(size: int | None, path: str) -> ScenarioError:
    measured = f"{size:,} bytes" if size is not None else f"more than {MAX_FILE_BYTES:,} bytes"
    return ScenarioError(f"too large for a scenario ({measured}; at most {MAX_FILE_BYTES:,}); "
                         "keep big matrices in .npy files", path=path)


def _missing(path: str) -> str:
    """Why a path names no file: nothing there, or a symbolic link to nothing."""
    if os.path.islink(path):
        return f"is a symbolic link to {os.readlink(path)}, which does not exist"
    return "no such file"


def decode(data: bytes, path: str = "<scenario>") -> str:
    """Scenario bytes as text; a binary or mis-encoded file is an error at the offending byte.

    UTF-8 is read, and UTF-16 behind a byte-order mark; UTF-16 without one is named as such
    (its NUL bytes would otherwise make it "binary").
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return _decode_utf16(data, path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if _looks_like_utf16(data):
            raise ScenarioError(_UTF16_WITHOUT_MARK, 1, 1, path) from None
        line = data.count(b"\n", 0, exc.start) + 1
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1  # characters
        byte = data[exc.start]
        raise ScenarioError(f"not a text file: byte 0x{byte:02x} is not UTF-8 "
                            "(a scenario is YAML text)", line, col, path) from None
    if "\0" in text and _looks_like_utf16(data):
        raise ScenarioError(_UTF16_WITHOUT_MARK, 1, 1, path)
    return _without_nul(text, path)


def _without_nul(text: str, path: str) -> str:
    nul = text.find("\0")
    if nul >= 0:
        raise ScenarioError("not a text file: it contains a NUL byte (a scenario is YAML text)",
                            *line_col(text, nul), path)
    return text


_UTF16_WITHOUT_MARK = ("the file looks like UTF-16 without a byte-order mark; save it as UTF-8 "
                       "(or as UTF-16 with a byte-order mark)")


def _decode_utf16(data: bytes, path: str) -> str:
    try:
        text = data.decode("utf-16")
    except UnicodeDecodeError as exc:
        good = data[:exc.start - exc.start % 2].decode("utf-16", errors="replace")
        raise ScenarioError(f"not a text file: not valid UTF-16 ({exc.reason} at byte {exc.start:,}; "
                            "the file starts with a UTF-16 byte-order mark)",
                            *line_col(good, len(good)), path) from None
    if text and sum(ch.isascii() for ch in text) < 0.9 * len(text):
        # YAML in UTF-16 is mostly ASCII; this is a binary file that happens to start so
        raise ScenarioError("not a text file: binary data behind a UTF-16 byte-order mark "
                            "(a scenario is YAML text)", 1, 1, path)
    return _without_nul(text, path)


def _looks_like_utf16(data: bytes) -> bool:
    """Whether the start of ``data`` is ASCII text in UTF-16: a NUL in every other byte."""
    sample = data[:256]
    pairs = len(sample) // 2
    if pairs < 2:
        return False
    high_first = sum(sample[i] == 0 and sample[i + 1] != 0 for i in range(0, 2 * pairs, 2))
    low_first = sum(sample[i] != 0 and sample[i + 1] == 0 for i in range(0, 2 * pairs, 2))
    return max(high_first, low_first) >= 0.9 * pairs


def loads(text: str, path: str = "<scenario>") -> Scenario:
    """Check a scenario given as YAML text and build it; ``path`` names it (and is where its
    data files are looked for)."""
    return _build(_read(text, path))


def check(path: str | os.PathLike[str]) -> Checked:
    """Check the scenario at ``path`` as :func:`load` would, without building its arrays."""
    name = os.fspath(path)
    return check_text(read_text(name), name)


def check_text(text: str, path: str = "<scenario>") -> Checked:
    fields = _read(text, path)
    if not _surely_finite(fields) or fields["lesson"]:  # a doubtful scenario (or a lesson's
        _build(fields)                                  # beats) is built and computed to make sure
    layout = fields["layout"]
    kind = "projection" if "X" in fields["shapes"] else "qkv"
    editable = [name for name in INPUT_SETS[kind]] + [name for name in OPTIONAL_INPUTS if name in fields["shapes"]]
    return Checked(fields["title"], fields["description"], fields["tokens"], fields["options"],
                   fields["variants"], kind, tuple(editable), layout["T"], layout["d_k"], layout["d_v"],
                   path, layout["heads"], fields["query_tokens"])


def check_range(scenario: Scenario) -> None:
    """``NumericError`` if some stage would overflow float64 under any of the scenario's options.

    A cheap bound settles almost every scenario. A doubtful one has its largest score found
    exactly, a block of rows at a time (memory stays small at T = 16,384); scaling divides every
    score by the same number, so that one score decides each option set. The output is a
    weighted average of V's rows, so V itself must keep a margin below float64's largest.
    Every head is checked (RoPE turns pairs of dimensions and keeps their lengths, so the
    bound from the unrotated vectors holds for the rotated ones).
    """
    import numpy as np

    from attn_tui.core.heads import HeadInputs

    inputs = HeadInputs(scenario)
    many = scenario.heads > 1
    options = [scenario.options, *(variant.options(scenario.options) for variant in scenario.variants)]
    for h in range(scenario.heads):
        which = f" of {scenario.head_names[h]}" if many else ""
        Q, K, V = inputs.Q_before_rotation(h), inputs.K_before_rotation(h), inputs.V(h)
        for name, values in (("Q", Q), ("K", K), ("V", V)):
            if not np.isfinite(values).all():
                raise NumericError(f"{name}{which} = X·W{name.lower()} overflows float64; use smaller numbers")
        largest_v = float(np.abs(V).max())
        if largest_v >= V_LIMIT:
            raise NumericError(f"V{which} holds {largest_v:.3e}: the weighted sum of such values can round "
                               f"past float64's largest number; keep V below {V_LIMIT:.0e}")
        # |q·k| ≤ ‖q‖·‖k‖ (Cauchy–Schwarz), exact when d_k = 1; norms scaled down first so that
        # squaring cannot overflow
        q_scale, k_scale = float(np.abs(Q).max()) or 1.0, float(np.abs(K).max()) or 1.0
        bound = (q_scale * float(np.sqrt(np.square(Q / q_scale).sum(axis=1).max()))
                 * k_scale * float(np.sqrt(np.square(K / k_scale).sum(axis=1).max())))
        if all(bound / o.divisor(scenario.d_k) < 1e300 for o in options):
            continue
        largest = bound if scenario.d_k == 1 and math.isfinite(bound) else 0.0  # (then it is exact)
        Q, K = inputs.Q(h), inputs.K(h)
        with np.errstate(over="ignore", invalid="ignore"):
            for start in range(0, len(Q) if not largest else 0, ROWS_AT_A_TIME):
                block = Q[start:start + ROWS_AT_A_TIME] @ K.T
                largest = max(largest, float(np.abs(block).max()))
                if not np.isfinite(largest):
                    i, j = np.argwhere(~np.isfinite(block))[0]
                    raise NumericError(f"the score{which} ({scenario.row_tokens[start + i]}, "
                                       f"{scenario.tokens[j]}) overflows float64; use smaller numbers")
            for o in options:
                if not np.isfinite(largest / o.divisor(scenario.d_k)):
                    raise NumericError(f"a scaled score{which} overflows float64 (scores up to {largest:.3e}, "
                                       f"divided by {o.divisor(scenario.d_k):g}); use a larger scale")
    if "Wo" in scenario.inputs:  # |concat·Wo + bo| ≤ (heads·d_v)·max|V|·max|Wo| + max|bo|
        largest_v = max(float(np.abs(inputs.V(h)).max()) for h in range(scenario.heads))
        bound = scenario.heads * scenario.d_v * largest_v * float(np.abs(scenario.inputs["Wo"]).max())
        bound += float(np.abs(scenario.inputs["bo"]).max()) if "bo" in scenario.inputs else 0.0
        if not bound < 1e300:
            raise NumericError("the output projection concat·Wo could overflow float64 "
                               f"(up to {bound:.3e}); use smaller numbers in Wo or V")


def _read(text: str, path: str) -> dict[str, Any]:
    try:
        return _Reader(parse(text), path).fields()
    except ScenarioError as error:
        raise error.located(path) from None
    except UnicodeEncodeError as error:  # text (not a file) holding half of a UTF-16 pair
        line, col = line_col(text, error.start)
        raise ScenarioError(f"the text holds U+{ord(text[error.start]):04X}, half of a character "
                            "(an unpaired surrogate): not valid Unicode", line, col, path) from None


def _build(fields: dict[str, Any]) -> Scenario:
    """The Scenario, with its arrays, from checked fields (this is where NumPy comes in)."""
    import numpy as np

    from attn_tui.core.lesson_reader import with_lesson
    from attn_tui.core.scenario import Scenario

    inputs = fields["random"].generate() if fields["random"] is not None else dict(fields["inputs"])
    if "bo" in inputs:  # a bias is a vector; kept as one row, to add to every row of concat·Wo
        inputs["bo"] = np.asarray(inputs["bo"], dtype=np.float64).reshape(1, -1)
    layout = fields["layout"]
    mask = None if fields["mask"] is None else np.array(fields["mask"], dtype=bool)
    scenario = Scenario(inputs=inputs, heads=layout["heads"], kv_heads=layout["kv_heads"], mask=mask,
                        **{key: fields[key] for key in (
                            "title", "description", "tokens", "options", "focus", "precision", "variants",
                            "random", "files", "path", "source", "expect", "expect_tolerance", "predict",
                            "query_tokens", "head_names", "window", "padding", "rope")})
    try:
        check_range(scenario)
    except NumericError as exc:
        raise ScenarioError(str(exc), fields["first_input"].line, fields["first_input"].col,
                            fields["path"]) from None
    return with_lesson(scenario, fields["lesson"])


def _surely_finite(fields: dict[str, Any]) -> bool:
    """Whether no stage can overflow, by a bound from the largest |value| of each input (a
    random scenario's are at most about 6; 10 is taken, with a wide margin on the result)."""
    layout = fields["layout"]
    if fields["random"] is not None:
        largest = {name: 10.0 for name in ("Q", "K", "V")}
    else:
        largest = {name: largest_of(values) for name, values in fields["inputs"].items()}
        if "X" in largest:
            d_model = fields["shapes"]["X"][1]
            x = max(largest["X"], largest.get("X_q", 0.0))
            largest.update({name: d_model * x * largest["W" + name.lower()] for name in "QKV"})
    d_k = layout["d_k"]
    bound = d_k * largest["Q"] * largest["K"]
    options = [fields["options"], *(v.options(fields["options"]) for v in fields["variants"])]
    if "Wo" in largest:
        projected = layout["heads"] * layout["d_v"] * largest["V"] * largest["Wo"] + largest.get("bo", 0.0)
        if not projected < 1e290:
            return False
    return largest["V"] < 1e290 and all(bound / o.divisor(d_k) < 1e290 for o in options)


def entries(node: Node, what: str) -> dict[str, Entry]:
    """The keys of a YAML mapping, with merge keys (``<<: *base``) applied.

    A key written twice is an error naming both lines: PyYAML would silently keep the last.
    """
    return _entries(node, what, {}, set())


def _entries(node: Node, what: str, memo: dict[int, dict[str, Entry]],
             merging: set[int]) -> dict[str, Entry]:
    node = deref(node)
    if id(node) in memo:
        return memo[id(node)]
    if id(node) in merging:
        raise located(node, "a merge key (<<) brings this mapping into itself: a cycle")
    if not isinstance(node, Mapping):
        raise located(node, f"{what} must be a mapping of keys to values, not {kind_of(node)}")
    own: dict[str, Entry] = {}
    written_at: dict[str, Node] = {}  # where each key stands: an alias key (*k) stands apart from &k
    merged: dict[str, Entry] = {}
    for written, value in node.items:
        key = deref(written)
        if isinstance(key, Scalar) and key.tag == TAG + "merge":
            sources = deref(value).items if isinstance(deref(value), Sequence) else [value]
            merging.add(id(node))
            for source in sources:
                for name, entry in _entries(source, "a merged value (<<)", memo, merging).items():
                    merged.setdefault(name, entry)
            merging.discard(id(node))
            continue
        if not isinstance(key, Scalar):
            raise located(key, f"a key in {what} must be a plain name, not {kind_of(key)}")
        if key.value in own:
            first = written_at[key.value]
            raise located(written, f"{named(key.value)} appears twice in {what}: first on line "
                                   f"{first.line}, again on line {written.line}; keep one")
        own[key.value] = Entry(key, value)
        written_at[key.value] = written
    memo[id(node)] = result = {**merged, **own}
    return result


def check_keys(found: dict[str, Entry], known: tuple[str, ...], what: str) -> None:
    """An unknown key is an error that suggests the closest known one."""
    for name, entry in found.items():
        if name not in known:
            raise located(entry.key, f"unknown key {named(name)} in {what}{_suggest(name, known)}")


def _suggest(name: str, known: tuple[str, ...]) -> str:
    by_case = [key for key in known if key.lower() == name.lower()]
    close = by_case or difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        return f"; did you mean {close[0]!r}?"
    return f" (known keys: {', '.join(known)})"


class _Reader:
    """Turns a composed document into a Scenario, checking as it goes."""

    def __init__(self, document: Document, path: str) -> None:
        self.document = document
        self.path = path

    def fields(self) -> dict[str, Any]:
        """Every field of the Scenario, checked; the inputs as nested lists of floats (or arrays
        read from .npy files), not yet built."""
        root = self.document.root
        if root is None or (isinstance(root, Scalar) and root.tag == TAG + "null"):
            raise ScenarioError("the file is empty; a scenario needs at least Q, K and V "
                                "(see README: the scenario format)", 1, 1)
        if not isinstance(deref(root), Mapping):
            raise located(root, "a scenario is a mapping of keys (title:, Q:, …), "
                                f"not {kind_of(deref(root))}")
        top = entries(root, "the scenario")
        check_keys(top, KEYS, "the scenario")
        inputs, random, files, shapes, layout, head_names = self.inputs(top, root)
        if "query_tokens" in top:  # cross-attention: tokens label the keys
            rows_of = "K" if "K" in shapes else "X"
        else:
            rows_of = "X" if "X" in shapes else "Q"
        tokens = self.tokens(top.get("tokens"), layout["T_k"], rows_of, "tokens")
        query_tokens = None
        if "query_tokens" in top:
            query_rows = "X_q" if "X_q" in shapes else "Q"
            query_tokens = self.tokens(top["query_tokens"], layout["T"], query_rows, "query_tokens")
        row_tokens = query_tokens if query_tokens is not None else tokens
        cross = query_tokens is not None
        options = self.options(top, Options(causal=not cross))  # cross-attention: no mask unless asked
        variants = self.variants(top.get("variants"), options)
        self.check_causal(top, options, variants, layout)
        multi_head = layout["heads"] > 1 or "Wo" in shapes
        expect = self.expectations(top, layout, multi_head)
        return dict(
            title=(scalar_text(top["title"].value, "title") if "title" in top
                   else _default_title(self.path)),
            description=(scalar_text(top["description"].value, "description", MAX_DESCRIPTION_LENGTH)
                         if "description" in top else ""),
            tokens=tokens,
            query_tokens=query_tokens,
            inputs=inputs,
            shapes=shapes,
            layout=layout,
            head_names=head_names,
            options=options,
            window=self.window(top.get("window"), layout),
            padding=self.padding(top.get("padding"), tokens),
            mask=self.mask(top.get("mask"), layout),
            rope=self.rope(top.get("rope"), layout),
            focus=self.focus(top.get("focus"), row_tokens, "query tokens" if cross else "tokens"),
            precision=self.precision(top.get("precision")),
            variants=variants,
            random=random,
            files=files,
            path=self.path,
            source=self.document,
            first_input=(top.get("random") or top.get("Q") or top.get("X") or top.get("heads")
                         or top["npz"]).key,
            expect=expect,
            expect_tolerance=_tolerance(top["expect_tolerance"].value) if "expect_tolerance" in top else 1e-6,
            predict=self.predict(top.get("predict"), multi_head),
            lesson=top.get("lesson"),  # read once the scenario is built: see core.lesson_reader
        )

    # ---- a student's own numbers ------------------------------------------------------------

    def expectations(self, top: dict[str, Entry], layout: dict[str, int], multi_head: bool) -> dict[str, tuple]:
        """``expect:`` (rows, or {npy: file}, per stage; one matrix per head for a stage of
        each head when there are several) and ``expect_npz:``, as (values, given) pairs: a
        student's numbers may be NaN or infinite (their code's bug), and a cell left out
        (null) is not compared."""
        heads, T, T_k = layout["heads"], layout["T"], layout["T_k"]
        per_head = (heads,) if heads > 1 else ()
        shapes = {"scores": (*per_head, T, T_k), "scaled": (*per_head, T, T_k),
                  "weights": (*per_head, T, T_k), "output": (*per_head, T, layout["d_v"]),
                  "concat": (T, heads * layout["d_v"]), "projected": (T, layout["d_out"])}
        stages = _expect_stages(multi_head)
        found: dict[str, tuple] = {}
        if "expect_npz" in top:
            node = top["expect_npz"].value
            path = self.external_path(node, "expect_npz")
            try:
                members = [name for name in npz_members(path) if name in stages]
            except NumpyFileError as error:
                raise located(node, f"expect_npz: {error}") from None
            if not members:
                raise located(node, f"expect_npz: {os.path.basename(path)} holds none of "
                                    f"{', '.join(stages)}")
            for name in members:
                found[name] = expected_file(ArrayRef(path, name), f"expect {name}", node, shapes[name])
        if "expect" in top:
            given = entries(top["expect"].value, "expect")
            for name, entry in given.items():
                if name in EXPECT_STAGES and name not in stages:
                    raise located(entry.key, f"expect {name}: this scenario has one head and no Wo, so "
                                             f"no {name} stage; give {', '.join(stages)}")
            check_keys(given, stages, "expect")
            for name, entry in given.items():
                ref = self.npy_ref(entry.value, f"expect {name}")
                found[name] = (expected_file(ref, f"expect {name}", entry.value, shapes[name]) if ref
                               else expected_values(entry.value, f"expect {name}", shapes[name]))
        return found

    def predict(self, entry: Entry | None, multi_head: bool) -> tuple[str, ...]:
        if entry is None:
            return ()
        node = deref(entry.value)
        items = node.items if isinstance(node, Sequence) else [node]
        allowed = _expect_stages(multi_head)
        stages = []
        for item in items:
            name = scalar_text(item, "a stage to predict")
            if name not in allowed:
                close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise located(item, f"predict: {named(name)} is not a stage one can predict here "
                                    f"({', '.join(allowed)}){hint}")
            stages.append(name)
        return tuple(dict.fromkeys(stages))

    # ---- inputs -------------------------------------------------------------------------

    def inputs(self, top: dict[str, Entry], root: Node) -> tuple[
            dict[str, Any], RandomSpec | None, dict[str, ArrayRef], dict[str, tuple[int, ...]],
            dict[str, int], tuple[str, ...]]:
        """The input matrices (values, the files they come from, their shapes), the layout
        they imply (heads, T, T_k, d_k, d_v, d_out) and the heads' names."""
        npz = self.npz_arrays(top.get("npz"))
        heads_node = deref(top["heads"].value) if "heads" in top else None
        if isinstance(heads_node, Sequence):
            return self.head_list(top, npz, heads_node)
        given = [name for name in (*INPUT_NAMES, "random") if name in top or name in npz]
        kinds = {kind for kind, names in INPUT_SETS.items() for name in given if name in names}
        if "random" in given:
            kinds.add("random")
        if len(kinds) > 1:
            later = top[given[-1]].key if given[-1] in top else top["npz"].key
            raise located(later, f"{given[-1]} cannot be combined with {given[0]}: {_INPUT_HELP}")
        if not kinds:
            raise located(root, f"no input matrices: {_INPUT_HELP}")
        kind = kinds.pop()
        if kind == "random":
            for name in ("npz", "heads", "kv_heads", "query_tokens", *OPTIONAL_INPUTS):
                if name in top:
                    raise located(top[name].key, f"{name} cannot be combined with random (one head of "
                                                 f"self-attention): {_INPUT_HELP}")
            spec = self.random_spec(top["random"].value)
            layout = dict(heads=1, kv_heads=1, T=spec.T, T_k=spec.T, d_k=spec.d_k, d_v=spec.d_v, d_out=spec.d_v)
            return {}, spec, {}, {}, layout, self.head_names(top, 1)
        names = INPUT_SETS[kind]
        missing = [name for name in names if name not in top and name not in npz]
        if missing:
            have = ", ".join(name for name in names if name in given)
            where = f" (nor in {os.path.basename(top['npz'].value.value)})" if "npz" in top else ""
            raise located(root, f"missing {' and '.join(missing)}{where} ({have} given): {_INPUT_HELP}")
        names += tuple(name for name in OPTIONAL_INPUTS if name in top or name in npz)
        # explicit keys win over arrays of the same name in the npz file
        sources = {name: (top[name].value if name in top else top["npz"].value) for name in names}
        files = {name: npz[name] for name in names if name not in top}
        for name in names:
            if name in top and (ref := self.npy_ref(top[name].value, name)) is not None:
                files[name] = ref
        dims = {name: DIMS.get(name, (2,)) for name in names}
        shapes = {name: file_shape(files[name], name, sources[name], dims[name]) if name in files
                  else shape_of(sources[name], name, dims[name]) for name in names}
        layout = self.check_shapes(kind, shapes, sources, top)
        self.check_total(shapes, sources[names[0]])
        values = {name: file_values(files[name], name, sources[name]) if name in files
                  else values_of(sources[name], name, shapes[name]) for name in names}
        return values, None, files, shapes, layout, self.head_names(top, layout["heads"])

    def head_list(self, top: dict[str, Entry], npz: dict[str, ArrayRef], node: Sequence) -> tuple:
        """``heads:`` as a list, each head with its own name, Q, K and V written in YAML (a
        teacher's hand-made heads)."""
        for name in ("Q", "K", "V", "X", "X_q", "Wq", "Wk", "Wv", "random", "kv_heads", "head_names"):
            if name in top or name in npz:
                where = top[name].key if name in top else top["npz"].key
                raise located(where, f"{name} cannot be combined with heads: a list of heads (each head "
                                     "has its own name, Q, K and V)")
        if not node.items:
            raise located(node, "heads: the list is empty; give each head as {name: …, Q: …, K: …, V: …}")
        if len(node.items) > MAX_HEADS:
            raise located(node, f"{len(node.items)} heads; at most {MAX_HEADS}")
        names, per_head, first = [], {"Q": [], "K": [], "V": []}, {}
        for h, item in enumerate(node.items, 1):
            found = entries(item, f"head {h}")
            check_keys(found, HEAD_KEYS, f"head {h}")
            for key in ("Q", "K", "V"):
                if key not in found:
                    raise located(item, f"head {h} needs {key} (each head: {{name: …, Q: …, K: …, V: …}})")
                if self.npy_ref(found[key].value, f"head {h} {key}") is not None:
                    raise located(found[key].value, f"head {h} {key}: in a list of heads the matrices are "
                                                    "written as rows; for data in .npy files give Q, K and V "
                                                    "as one 3-D array each, with heads: N")
                shape = matrix_shape(found[key].value, f"{key} of head {h}")
                if key in first and shape != first[key][1]:
                    raise located(found[key].value, f"{key} of head {h} is {shape[0]}×{shape[1]} but head 1's "
                                                    f"is {first[key][1][0]}×{first[key][1][1]}: every head's "
                                                    "matrix has the same shape")
                first.setdefault(key, (found[key].value, shape))
                per_head[key].append(found[key].value)
            names.append((scalar_text(found["name"].value, f"head {h}'s name", MAX_TOKEN_LENGTH).strip(),
                          found["name"].value) if "name" in found else (f"head {h}", item))
        heads = len(node.items)
        shapes = {key: (heads, *first[key][1]) for key in ("Q", "K", "V")}
        sources = {key: first[key][0] for key in ("Q", "K", "V")}
        files: dict[str, ArrayRef] = {}
        for name in ("Wo", "bo"):
            if name in top or name in npz:
                sources[name] = top[name].value if name in top else top["npz"].value
                ref = npz.get(name) if name not in top else self.npy_ref(top[name].value, name)
                if ref is not None:
                    files[name] = ref
                dims = DIMS.get(name, (2,))
                shapes[name] = (file_shape(ref, name, sources[name], dims) if ref is not None
                                else shape_of(sources[name], name, dims))
        layout = self.check_shapes("qkv", shapes, sources, top)
        self.check_total(shapes, node)
        values: dict[str, Any] = {key: [matrix_values(matrix, f"{key} of head {h}")
                                        for h, matrix in enumerate(per_head[key], 1)] for key in ("Q", "K", "V")}
        for name in ("Wo", "bo"):
            if name in shapes:
                values[name] = (file_values(files[name], name, sources[name]) if name in files
                                else values_of(sources[name], name, shapes[name]))
        return values, None, files, shapes, layout, _distinct_names(names)

    def head_names(self, top: dict[str, Entry], heads: int) -> tuple[str, ...]:
        if "head_names" not in top:
            return tuple(f"head {h}" for h in range(1, heads + 1))
        node = deref(top["head_names"].value)
        if not isinstance(node, Sequence):
            raise located(node, "head_names must be a list like [previous token, itself]")
        if len(node.items) != heads:
            raise located(node, f"head_names has {len(node.items)} names but there are {heads} heads: "
                                "one name per head")
        return _distinct_names([(scalar_text(item, f"head name {h}", MAX_TOKEN_LENGTH).strip(), item)
                                for h, item in enumerate(node.items, 1)])

    def check_total(self, shapes: dict[str, tuple[int, ...]], where: Node) -> None:
        total = sum(math.prod(shape) for shape in shapes.values())
        if total > MAX_NUMBERS:
            raise located(where, f"too many numbers: {total:,} in all, at most {MAX_NUMBERS:,}")

    def npz_arrays(self, entry: Entry | None) -> dict[str, ArrayRef]:
        """The input arrays (Q, K, V, X, W's) a ``npz:`` file holds, by name."""
        if entry is None:
            return {}
        path = self.external_path(entry.value, "npz")
        try:
            members = npz_members(path)
        except NumpyFileError as error:
            raise located(entry.value, f"npz: {error}") from None
        found = {name: ArrayRef(path, name) for name in members if name in INPUT_NAMES}
        if not found:
            held = ", ".join(members) or "nothing"
            raise located(entry.value, f"npz: {os.path.basename(path)} holds no Q, K, V or X, Wq, Wk, "
                                       f"Wv (it holds {held})")
        return found

    def npy_ref(self, node: Node, name: str) -> ArrayRef | None:
        """``{npy: path}`` as a reference to the file; None for a matrix written in YAML."""
        node = deref(node)
        if not isinstance(node, Mapping):
            return None
        found = entries(node, name)
        check_keys(found, ("npy",), name)
        if "npy" not in found:
            raise located(node, f"{name} must be a list of rows or {{npy: file.npy}}")
        return ArrayRef(self.external_path(found["npy"].value, "npy"))

    def external_path(self, node: Node, key: str) -> str:
        """A file named in the scenario, relative to the scenario's own folder."""
        text = scalar_text(node, key).strip()
        if not text:
            raise located(node, f"{key} needs a file name")
        if "\0" in text:
            raise located(node, f"{key}: a file name cannot hold a NUL character")
        named = not (self.path.startswith("<") and self.path.endswith(">"))  # not "<scenario>"
        base = os.path.dirname(os.path.abspath(self.path)) if named else os.getcwd()
        return os.path.normpath(os.path.join(base, os.path.expanduser(text)))

    def check_shapes(self, kind: str, shapes: dict[str, tuple[int, ...]], where: dict[str, Node],
                     top: dict[str, Entry]) -> dict[str, int]:
        """That the inputs fit together; returns the layout they give: heads, kv_heads, T (query
        rows), T_k (keys), d_k, d_v and d_out (the width of the final output)."""
        def shape(name: str) -> str:
            dims = shapes[name]
            text = f"{dims[-2]}×{dims[-1]}" if len(dims) >= 2 else f"{dims[0]} numbers"
            return f"{name} is {text}" + (f" (per head, {dims[0]} heads)" if len(dims) == 3 else "")

        def fail(name: str, why: str) -> None:
            raise located(where[name] if name in where else top[name].value, why)

        for name, dims in shapes.items():
            if dims[-1] > MAX_DIM:
                fail(name, f"{name} has {dims[-1]:,} columns; at most {MAX_DIM:,}")
        wanted_heads = whole_number(top["heads"].value, "heads", 1, MAX_HEADS) if "heads" in top and \
            not isinstance(deref(top["heads"].value), Sequence) else None
        wanted_kv = whole_number(top["kv_heads"].value, "kv_heads", 1, MAX_HEADS) if "kv_heads" in top else None
        cross = "query_tokens" in top
        if kind == "qkv":
            q, k, v = shapes["Q"], shapes["K"], shapes["V"]
            heads = q[0] if len(q) == 3 else 1
            if wanted_heads is not None and wanted_heads != heads:
                fail("heads", f"heads: {wanted_heads}, but Q holds {heads} matrices (one per head)" if len(q) == 3
                     else f"heads: {wanted_heads} needs one Q, K and V per head: a list of matrices, or "
                          "3-D arrays (heads × tokens × d) in .npy or .npz files; Q here is one matrix")
            if len(k) != len(v):
                fail("V", f"{shape('V')} but {shape('K')}: K and V are both one matrix, or both one per "
                          "key/value head")
            kv_heads = k[0] if len(k) == 3 else 1
            if len(v) == 3 and v[0] != kv_heads:
                fail("V", f"V holds {v[0]} heads but K holds {kv_heads}: one value matrix per key matrix")
            if wanted_kv is not None and wanted_kv != kv_heads:
                fail("kv_heads", f"kv_heads: {wanted_kv}, but K holds {kv_heads} "
                                 f"{'matrices' if kv_heads > 1 else 'matrix'}")
            T, d_k = q[-2], q[-1]
            T_k, d_k_of_k = k[-2], k[-1]
            d_v = v[-1]
            if d_k_of_k != d_k:
                fail("K", f"{shape('K')} but {shape('Q')}: queries and keys need the same width d_k")
            if not cross and T_k != T:
                fail("K", f"{shape('K')} but {shape('Q')}: self-attention needs one key row per query row "
                          "(one per token); for cross-attention, label the query rows with query_tokens")
            if v[-2] != T_k:
                fail("V", f"{shape('V')} but {shape('K')}: one value row per key")
            query_name = "Q"
        else:
            x = shapes["X"]
            T_k, d_model = x
            heads = wanted_heads or 1
            kv_heads = wanted_kv or heads
            for name in ("Wq", "Wk", "Wv") + (("X_q",) if "X_q" in shapes else ()):
                rows_or_cols = shapes[name][1] if name == "X_q" else shapes[name][0]
                if rows_or_cols != d_model:
                    fail(name, f"{shape(name)} but {shape('X')}: " + (
                        f"X_q needs X's {d_model} columns (the same embedding width)" if name == "X_q" else
                        f"X·{name} needs {name} to have one row per column of X ({d_model})"))
            if shapes["Wq"][1] % heads:
                fail("Wq", f"{shape('Wq')}: {shapes['Wq'][1]} columns cannot be split among {heads} heads "
                           "(head h uses columns h·d_k … (h+1)·d_k − 1, so Wq needs heads × d_k columns)")
            d_k = shapes["Wq"][1] // heads
            if shapes["Wk"][1] != kv_heads * d_k:
                fail("Wk", f"{shape('Wk')} but {shape('Wq')}: with {heads} head{'s' if heads > 1 else ''} "
                           f"of d_k = {d_k}, Wk needs {kv_heads} × {d_k} = {kv_heads * d_k} columns "
                           f"({kv_heads} key head{'s' if kv_heads > 1 else ''})")
            if shapes["Wv"][1] % kv_heads:
                fail("Wv", f"{shape('Wv')}: {shapes['Wv'][1]} columns cannot be split among {kv_heads} "
                           "value heads")
            d_v = shapes["Wv"][1] // kv_heads
            if cross and "X_q" not in shapes:
                fail("query_tokens", "query_tokens label the queries of cross-attention: with X, give "
                                     "them as X_q (one row per query token)")
            T = shapes["X_q"][0] if "X_q" in shapes else T_k
            query_name = "X_q" if "X_q" in shapes else "X"
        if kv_heads > heads or heads % kv_heads:
            fail("kv_heads" if "kv_heads" in top else "K",
                 f"{count(heads, 'query head')} cannot share {count(kv_heads, 'key/value head')} evenly: kv_heads must "
                 "divide heads")
        if "X_q" in shapes and kind == "qkv":
            fail("X_q", "X_q goes with X, Wq, Wk and Wv (Q = X_q·Wq); with Q, K and V given, Q already holds "
                        "the queries")
        if "X_q" in shapes and not cross:
            fail("X_q", "X_q holds the queries of cross-attention: give query_tokens too (one per row of X_q)")
        if not cross and T != T_k:
            fail(query_name, f"{shape(query_name)} but {shape('K' if kind == 'qkv' else 'X')}: "
                             "self-attention needs one key row per query row (one per token); for "
                             "cross-attention, label the query rows with query_tokens")
        d_out = heads * d_v
        if "Wo" in shapes:
            if shapes["Wo"][0] != heads * d_v:
                fail("Wo", f"{shape('Wo')}: it multiplies the {heads} head{'s' if heads > 1 else ''}' outputs "
                           f"side by side ({heads} × d_v {d_v} = {heads * d_v} columns), so it needs "
                           f"{heads * d_v} rows")
            d_out = shapes["Wo"][1]
        if "bo" in shapes:
            if "Wo" not in shapes:
                fail("bo", "bo is the output projection's bias: it goes with Wo")
            if len(shapes["bo"]) == 2 and shapes["bo"][0] != 1:
                fail("bo", f"bo is {shapes['bo'][0]}×{shapes['bo'][1]}; a bias is one row of d_out numbers")
            if shapes["bo"][-1] != d_out:
                fail("bo", f"bo has {count(shapes['bo'][-1], 'number')} but Wo gives {count(d_out, 'output')}: "
                           "one bias each")
        for rows, name in ((T, query_name), (T_k, "K" if kind == "qkv" else "X")):
            if rows > MAX_T:
                fail(name, f"{rows:,} tokens; at most {MAX_T:,}")
        return dict(heads=heads, kv_heads=kv_heads, T=T, T_k=T_k, d_k=d_k, d_v=d_v, d_out=d_out)

    def check_causal(self, top: dict[str, Entry], options: Options, variants: tuple[Variant, ...],
                     layout: dict[str, int]) -> None:
        """The causal mask compares a query's position with a key's: only where they are the
        same sequence's (as many queries as keys)."""
        if layout["T"] == layout["T_k"]:
            return
        if options.causal:
            raise located(top["causal"].value, f"causal: true needs as many queries as keys ({layout['T']} "
                                               f"queries, {layout['T_k']} keys); {_MASK_HELP}")
        for variant, node in zip(variants, deref(top["variants"].value).items if variants else ()):
            if variant.causal:
                raise located(node, f"variant {named(variant.name)}: causal needs as many queries as keys "
                                    f"({layout['T']} queries, {layout['T_k']} keys); {_MASK_HELP}")

    def window(self, entry: Entry | None, layout: dict[str, int]) -> int | None:
        if entry is None:
            return None
        if layout["T"] != layout["T_k"]:
            raise located(entry.key, f"window needs as many queries as keys ({layout['T']} queries, "
                                     f"{layout['T_k']} keys): it counts positions back from the query's; "
                                     f"{_MASK_HELP}")
        return whole_number(entry.value, "window", 1, MAX_T)

    def padding(self, entry: Entry | None, tokens: tuple[str, ...]) -> tuple[bool, ...] | None:
        if entry is None:
            return None
        node = deref(entry.value)
        if not isinstance(node, Sequence):
            raise located(node, "padding must be a list with one 0 or 1 per token, like [0, 0, 1] "
                                "(1 = padding, never attended)")
        if len(node.items) != len(tokens):
            raise located(node, f"padding has {len(node.items)} flags but there are {len(tokens)} tokens "
                                "(keys): one 0 or 1 per token")
        return tuple(_flag(item, f"padding {i}") for i, item in enumerate(node.items, 1))

    def mask(self, entry: Entry | None, layout: dict[str, int]) -> list | None:
        if entry is None:
            return None
        shape = (layout["T"], layout["T_k"])
        ref = self.npy_ref(entry.value, "mask")
        if ref is not None:
            found = file_shape(ref, "mask", entry.value, kinds="fiub")  # booleans: a mask's own type
            if found != shape:
                raise located(entry.value, f"mask: {ref.label} is {found[0]}×{found[1]} but the scores are "
                                           f"{shape[0]}×{shape[1]} (queries × keys)")
            values = file_values(ref, "mask", entry.value)
            bad = [tuple(int(i) for i in index) for index in zip(*((values != 0) & (values != 1)).nonzero())]
            if bad:
                raise located(entry.value, f"mask: {ref.label} {where_in(bad[0])} is {values[bad[0]]:g}; "
                                           "a mask holds 0 (hidden) or 1 (may attend)")
            return values
        found = shape_of(entry.value, "mask")
        if found != shape:
            raise located(entry.value, f"mask is {found[0]}×{found[1]} but the scores are {shape[0]}×{shape[1]} "
                                       "(queries × keys): one 0 or 1 per score")
        read: dict[int, list[bool]] = {}
        rows = []
        for i, row in enumerate(deref(entry.value).items, 1):
            target = deref(row)
            if id(target) not in read:
                read[id(target)] = [_flag(cell, f"mask row {i} column {j}") for j, cell in enumerate(target.items, 1)]
            rows.append(read[id(target)])
        return rows

    def rope(self, entry: Entry | None, layout: dict[str, int]) -> Rope | None:
        if entry is None:
            return None
        from attn_tui.core.rope import HALF, INTERLEAVED, Rope

        found = entries(entry.value, "rope")
        check_keys(found, ROPE_KEYS, "rope")
        base = number(found["base"].value, "rope base") if "base" in found else 10000.0
        if base <= 1:
            raise located(found["base"].value, f"rope base must be more than 1 (10000 is usual), not {base:g}")
        pairs = scalar_text(found["pairs"].value, "rope pairs") if "pairs" in found else HALF
        if pairs not in (HALF, INTERLEAVED):
            raise located(found["pairs"].value, f"rope pairs must be {HALF!r} (dimension j with j + d/2, as "
                                                f"Llama) or {INTERLEAVED!r} (j with j + 1), not {named(pairs)}")
        if layout["d_k"] % 2:
            raise located(entry.key, f"rope turns pairs of dimensions: d_k must be even, not {layout['d_k']}")
        return Rope(base, pairs)

    def random_spec(self, node: Node) -> RandomSpec:
        found = entries(node, "random")
        check_keys(found, RANDOM_KEYS, "random")
        for required in ("seed", "T", "d_k"):
            if required not in found:
                raise located(node, f"random needs {required} (random: {{seed: 0, T: 5, d_k: 8}})")
        seed = whole_number(found["seed"].value, "random seed", 0, 2**32 - 1)
        T = whole_number(found["T"].value, "random T", 1, MAX_T)
        d_k = whole_number(found["d_k"].value, "random d_k", 1, MAX_DIM)
        d_v = whole_number(found["d_v"].value, "random d_v", 1, MAX_DIM) if "d_v" in found else d_k
        total = T * (2 * d_k + d_v)
        if total > MAX_NUMBERS:
            raise located(node, f"too many numbers: T × (2·d_k + d_v) = {total:,}, at most {MAX_NUMBERS:,}")
        return RandomSpec(seed, T, d_k, d_v)

    # ---- labels and options -------------------------------------------------------------

    def tokens(self, entry: Entry | None, T: int, first: str, key: str) -> tuple[str, ...]:
        if entry is None:
            return tuple(f"t{i}" for i in range(1, T + 1))
        node = deref(entry.value)
        if isinstance(node, Scalar) and node.tag == TAG + "str":
            tokens = tuple(node.value.split(maxsplit=MAX_T))  # (a few more than T say enough)
            if len(tokens) > MAX_T:
                raise located(node, f"more than {MAX_T:,} tokens")
            for position, token in enumerate(tokens, 1):
                if len(token) > MAX_TOKEN_LENGTH:
                    raise located(node, f"token {position} is {len(token):,} characters long; at most "
                                        f"{MAX_TOKEN_LENGTH:,}")
        elif isinstance(node, Sequence):
            if len(node.items) > MAX_T:
                raise located(node, f"{len(node.items):,} tokens; at most {MAX_T:,}")
            tokens = tuple(token_text(item, i) for i, item in enumerate(node.items, 1))
        else:
            raise located(node, f"{key} must be a list like [the, cat, sat] or a string \"the cat sat\"")
        if len(tokens) != T:
            raise located(node, f"{key} has {len(tokens)} entries but {first} has {T} rows: "
                                "one token per row")
        return tokens

    def options(self, found: dict[str, Entry], base: Options) -> Options:
        causal, scale, mask_value = base.causal, base.scale, base.mask_value
        if "causal" in found:
            causal = boolean(found["causal"].value, "causal")
        if "scale" in found:
            scale = scale_option(found["scale"].value)
        if "mask_value" in found:
            mask_value = mask_value_option(found["mask_value"].value)
        return Options(causal, scale, mask_value)

    def focus(self, entry: Entry | None, tokens: tuple[str, ...], what: str = "tokens") -> int:
        if entry is None:
            return len(tokens) - 1
        node = deref(entry.value)
        if isinstance(node, Scalar) and node.tag == TAG + "int":
            return whole_number(node, "focus", 1, len(tokens)) - 1
        name = scalar_text(node, "focus")
        matches = [i for i, token in enumerate(tokens) if token == name]
        if len(matches) > 1:
            rows = ", ".join(str(i + 1) for i in matches)
            raise located(node, f"focus {named(name)} is ambiguous: rows {rows} are all {named(name)}; "
                                "give the row number instead")
        if not matches:  # (suggestions cost a pass of difflib per token: only for a sentence)
            close = difflib.get_close_matches(name, tokens, n=1) if len(tokens) <= 256 else []
            hint = f"; did you mean {named(close[0])}?" if close else f" ({what}: {some_of(tokens)})"
            raise located(node, f"focus {named(name)} is not one of the {what}{hint}")
        return matches[0]

    def precision(self, entry: Entry | None) -> int:
        return 3 if entry is None else whole_number(entry.value, "precision", 0, MAX_PRECISION)

    def variants(self, entry: Entry | None, base: Options) -> tuple[Variant, ...]:
        if entry is None:
            return ()
        node = deref(entry.value)
        if not isinstance(node, Sequence):
            raise located(node, "variants must be a list like "
                                "[{name: scaled}, {name: unscaled, scale: false}]")
        if len(node.items) > MAX_VARIANTS:
            raise located(node, f"{len(node.items)} variants; at most {MAX_VARIANTS}")
        variants: list[Variant] = []
        for position, item in enumerate(node.items, 1):
            found = entries(item, f"variant {position}")
            check_keys(found, VARIANT_KEYS, f"variant {position}")
            if "name" not in found:
                raise located(item, f"variant {position} needs a name: {{name: unscaled, scale: false}}")
            name = scalar_text(found["name"].value, "a variant's name", MAX_TOKEN_LENGTH).strip()
            if not name:
                raise located(found["name"].value, f"variant {position} has an empty name")
            if any(variant.name == name for variant in variants):
                raise located(found["name"].value, f"two variants are named {named(name)}; names must "
                                                   "differ")
            overrides = self.options(found, base)
            variants.append(Variant(name, **{key: getattr(overrides, key) for key in OPTION_KEYS
                                             if key in found}))
        return tuple(variants)


# ---- small readers ----------------------------------------------------------------------------

def _distinct_names(named_nodes: list[tuple[str, Node]]) -> tuple[str, ...]:
    """Heads' names: each non-empty, no two the same (a name is how a student picks a head)."""
    seen: dict[str, int] = {}
    for h, (name, node) in enumerate(named_nodes, 1):
        if not name:
            raise located(node, f"head {h} has an empty name")
        if name in seen:
            raise located(node, f"heads {seen[name]} and {h} are both named {named(name)}; names must differ")
        seen[name] = h
    return tuple(name for name, _ in named_nodes)


def _expect_stages(multi_head: bool) -> tuple[str, ...]:
    """The stages a student may give or predict: concat and projected only with heads (or Wo)."""
    return EXPECT_STAGES if multi_head else PER_HEAD_STAGES


def _flag(node: Node, what: str) -> bool:
    """A 0/1 (or false/true) flag of a mask or of padding."""
    value = deref(node)
    if isinstance(value, Scalar) and value.tag == TAG + "bool":
        return boolean(value, what)
    if isinstance(value, Scalar) and value.tag == TAG + "int" and value.value in ("0", "1"):
        return value.value == "1"
    shown = describe_scalar(value) if isinstance(value, Scalar) else kind_of(value)
    raise located(value, f"{what} must be 0 or 1 (or false or true), not {shown}")


def _tolerance(node: Node) -> float:
    value = number(node, "expect_tolerance")
    if value <= 0:
        raise located(node, f"expect_tolerance must be positive, not {deref(node).value}")
    return value


def _default_title(path: str) -> str:
    if path.startswith("<"):  # text given without a file
        return "Untitled scenario"
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem.replace("_", " ").strip() or "Untitled scenario"
