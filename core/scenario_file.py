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
from attn_tui.core.numpy_files import ArrayRef, NumpyFileError, check_matrix, first_non_finite, npz_members
from attn_tui.core.options import (INPUT_SETS, MAX_DESCRIPTION_LENGTH, MAX_DIM, MAX_FILE_BYTES, MAX_NUMBERS, MAX_T,
                                   MAX_TOKEN_LENGTH, Options, RandomSpec, Variant)
from attn_tui.core.yaml_numbers import (TAG, boolean, count, kind_of, located, mask_value_option, named,
                                        number, scalar_text, scale_option, some_of, token_text, whole_number)
from attn_tui.core.yaml_source import Document, Mapping, Node, Scalar, Sequence, deref, line_col, parse

if TYPE_CHECKING:
    import numpy as np

    from attn_tui.core.scenario import Scenario

INPUT_NAMES = ("Q", "K", "V", "X", "Wq", "Wk", "Wv")
EXPECT_STAGES = ("scores", "scaled", "weights", "output")
KEYS = ("title", "description", "tokens", *INPUT_NAMES, "npz", "random",
        "causal", "scale", "mask_value", "focus", "precision", "variants",
        "expect", "expect_npz", "expect_tolerance", "predict")
OPTION_KEYS = ("causal", "scale", "mask_value")
VARIANT_KEYS = ("name",) + OPTION_KEYS
RANDOM_KEYS = ("seed", "T", "d_k", "d_v")
MAX_VARIANTS = 16
MAX_PRECISION = 12
V_LIMIT = 1e307  # a weighted average of values this large could round past float64's largest
ROWS_AT_A_TIME = 256

_INPUT_HELP = ("give Q, K and V; or X with Wq, Wk and Wv (each a list of rows or {npy: file.npy}, "
               "or all from npz: file.npz); or random: {seed, T, d_k}")


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
    if not _surely_finite(fields):  # a doubtful scenario is built and computed to make sure
        _build(fields)
    shapes = fields["shapes"]
    kind = "projection" if "X" in shapes else "qkv"
    if fields["random"] is not None:
        spec = fields["random"]
        shapes = {"Q": (spec.T, spec.d_k), "V": (spec.T, spec.d_v)}
    d_k = shapes["Q"][1] if kind == "qkv" else shapes["Wq"][1]
    d_v = shapes["V"][1] if kind == "qkv" else shapes["Wv"][1]
    return Checked(fields["title"], fields["description"], fields["tokens"], fields["options"],
                   fields["variants"], kind, INPUT_SETS[kind], len(fields["tokens"]), d_k, d_v, path)


def check_range(scenario: Scenario) -> None:
    """``NumericError`` if some stage would overflow float64 under any of the scenario's options.

    A cheap bound settles almost every scenario. A doubtful one has its largest score found
    exactly, a block of rows at a time (memory stays small at T = 16,384); scaling divides every
    score by the same number, so that one score decides each option set. The output is a
    weighted average of V's rows, so V itself must keep a margin below float64's largest.
    """
    import numpy as np

    for name in ("Q", "K", "V"):
        if not np.isfinite(scenario.matrix(name)).all():
            raise NumericError(f"{name} = X·W{name.lower()} overflows float64; use smaller numbers")
    largest_v = float(np.abs(scenario.V).max())
    if largest_v >= V_LIMIT:
        raise NumericError(f"V holds {largest_v:.3e}: the weighted sum of such values can round past "
                           f"float64's largest number; keep V below {V_LIMIT:.0e}")
    Q, K = scenario.Q, scenario.K
    # |q·k| ≤ ‖q‖·‖k‖ (Cauchy–Schwarz), exact when d_k = 1; norms scaled down first so that
    # squaring cannot overflow
    q_scale, k_scale = float(np.abs(Q).max()) or 1.0, float(np.abs(K).max()) or 1.0
    bound = (q_scale * float(np.sqrt(np.square(Q / q_scale).sum(axis=1).max()))
             * k_scale * float(np.sqrt(np.square(K / k_scale).sum(axis=1).max())))
    options = [scenario.options, *(variant.options(scenario.options) for variant in scenario.variants)]
    if all(bound / o.divisor(scenario.d_k) < 1e300 for o in options):
        return
    largest = bound if scenario.d_k == 1 and math.isfinite(bound) else 0.0  # (then it is exact)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, len(Q) if not largest else 0, ROWS_AT_A_TIME):
            block = Q[start:start + ROWS_AT_A_TIME] @ K.T
            largest = max(largest, float(np.abs(block).max()))
            if not np.isfinite(largest):
                i, j = np.argwhere(~np.isfinite(block))[0]
                raise NumericError(f"the score ({scenario.tokens[start + i]}, {scenario.tokens[j]}) "
                                   "overflows float64; use smaller numbers")
        for o in options:
            if not np.isfinite(largest / o.divisor(scenario.d_k)):
                raise NumericError(f"a scaled score overflows float64 (scores up to {largest:.3e}, "
                                   f"divided by {o.divisor(scenario.d_k):g}); use a larger scale")


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
    from attn_tui.core.scenario import Scenario

    inputs = fields["random"].generate() if fields["random"] is not None else fields["inputs"]
    scenario = Scenario(inputs=inputs, **{key: fields[key] for key in (
        "title", "description", "tokens", "options", "focus", "precision", "variants", "random",
        "files", "path", "source", "expect", "expect_tolerance", "predict")})
    try:
        check_range(scenario)
    except NumericError as exc:
        raise ScenarioError(str(exc), fields["first_input"].line, fields["first_input"].col,
                            fields["path"]) from None
    return scenario


def _surely_finite(fields: dict[str, Any]) -> bool:
    """Whether no stage can overflow, by a bound from the largest |value| of each input (a
    random scenario's are at most about 6; 10 is taken, with a wide margin on the result)."""
    if fields["random"] is not None:
        largest = {name: 10.0 for name in ("Q", "K", "V")}
        d_k = fields["random"].d_k
    else:
        largest = {name: _largest(values) for name, values in fields["inputs"].items()}
        if "X" in largest:
            d_model = fields["shapes"]["X"][1]
            largest = {name: d_model * largest["X"] * largest["W" + name.lower()] for name in "QKV"}
        d_k = fields["shapes"]["Q" if "Q" in fields["shapes"] else "Wq"][1]
    bound = d_k * largest["Q"] * largest["K"]
    options = [fields["options"], *(v.options(fields["options"]) for v in fields["variants"])]
    return largest["V"] < 1e290 and all(bound / o.divisor(d_k) < 1e290 for o in options)


def _largest(values) -> float:
    """The largest |value| of a matrix given as rows of floats or as an array."""
    if isinstance(values, list):
        rows = {id(row): row for row in values}.values()  # an aliased row is one list, seen once
        return max(max(abs(value) for value in row) for row in rows)
    return float(abs(values).max())


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
        """Every field of the Scenario, checked; the inputs as rows of floats (or arrays read
        from .npy files), not yet built."""
        root = self.document.root
        if root is None or (isinstance(root, Scalar) and root.tag == TAG + "null"):
            raise ScenarioError("the file is empty; a scenario needs at least Q, K and V "
                                "(see README: the scenario format)", 1, 1)
        if not isinstance(deref(root), Mapping):
            raise located(root, "a scenario is a mapping of keys (title:, Q:, …), "
                                f"not {kind_of(deref(root))}")
        top = entries(root, "the scenario")
        check_keys(top, KEYS, "the scenario")
        inputs, random, files, shapes = self.inputs(top, root)
        T = random.T if random is not None else shapes["Q" if "Q" in shapes else "X"][0]
        tokens = self.tokens(top.get("tokens"), T, "Q" if "Q" in shapes or random else "X")
        options = self.options(top, Options())
        d_v = random.d_v if random is not None else shapes["V" if "V" in shapes else "Wv"][1]
        expect = self.expectations(top, T, d_v)
        return dict(
            title=(scalar_text(top["title"].value, "title") if "title" in top
                   else _default_title(self.path)),
            description=(scalar_text(top["description"].value, "description", MAX_DESCRIPTION_LENGTH)
                         if "description" in top else ""),
            tokens=tokens,
            inputs=inputs,
            shapes=shapes,
            options=options,
            focus=self.focus(top.get("focus"), tokens),
            precision=self.precision(top.get("precision")),
            variants=self.variants(top.get("variants"), options),
            random=random,
            files=files,
            path=self.path,
            source=self.document,
            first_input=(top.get("random") or top.get("Q") or top.get("X") or top["npz"]).key,
            expect=expect,
            expect_tolerance=_tolerance(top["expect_tolerance"].value) if "expect_tolerance" in top else 1e-6,
            predict=self.predict(top.get("predict")),
        )

    # ---- a student's own numbers ------------------------------------------------------------

    def expectations(self, top: dict[str, Entry], T: int, d_v: int) -> dict[str, tuple]:
        """``expect:`` (rows, or {npy: file}, per stage) and ``expect_npz:``, as (values, given)
        pairs: a student's numbers may be NaN or infinite (their code's bug), and a cell left
        out (null) is not compared."""
        shapes = {"scores": (T, T), "scaled": (T, T), "weights": (T, T), "output": (T, d_v)}
        found: dict[str, tuple] = {}
        if "expect_npz" in top:
            node = top["expect_npz"].value
            path = self.external_path(node, "expect_npz")
            try:
                members = [name for name in npz_members(path) if name in EXPECT_STAGES]
            except NumpyFileError as error:
                raise located(node, f"expect_npz: {error}") from None
            if not members:
                raise located(node, f"expect_npz: {os.path.basename(path)} holds none of "
                                    f"{', '.join(EXPECT_STAGES)}")
            for name in members:
                found[name] = _expected_file(ArrayRef(path, name), f"expect {name}", node, shapes[name])
        if "expect" in top:
            stages = entries(top["expect"].value, "expect")
            check_keys(stages, EXPECT_STAGES, "expect")
            for name, entry in stages.items():
                ref = self.npy_ref(entry.value, f"expect {name}")
                found[name] = (_expected_file(ref, f"expect {name}", entry.value, shapes[name]) if ref
                               else _expected_rows(entry.value, f"expect {name}", shapes[name]))
        return found

    def predict(self, entry: Entry | None) -> tuple[str, ...]:
        if entry is None:
            return ()
        node = deref(entry.value)
        items = node.items if isinstance(node, Sequence) else [node]
        stages = []
        for item in items:
            name = scalar_text(item, "a stage to predict")
            if name not in EXPECT_STAGES:
                raise located(item, f"predict: {named(name)} is not a stage one can predict "
                                    f"({', '.join(EXPECT_STAGES)}){_suggest(name, EXPECT_STAGES)}")
            stages.append(name)
        return tuple(dict.fromkeys(stages))

    # ---- inputs -------------------------------------------------------------------------

    def inputs(self, top: dict[str, Entry], root: Node) -> tuple[
            dict[str, list[list[float]] | np.ndarray], RandomSpec | None, dict[str, ArrayRef],
            dict[str, tuple[int, int]]]:
        npz = self.npz_arrays(top.get("npz"))
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
            if "npz" in top:
                raise located(top["npz"].key, f"npz cannot be combined with random: {_INPUT_HELP}")
            return {}, self.random_spec(top["random"].value), {}, {}
        names = INPUT_SETS[kind]
        missing = [name for name in names if name not in top and name not in npz]
        if missing:
            have = ", ".join(name for name in names if name in given)
            where = f" (nor in {os.path.basename(top['npz'].value.value)})" if "npz" in top else ""
            raise located(root, f"missing {' and '.join(missing)}{where} ({have} given): {_INPUT_HELP}")
        # explicit keys win over arrays of the same name in the npz file
        sources = {name: (top[name].value if name in top else top["npz"].value) for name in names}
        files = {name: npz[name] for name in names if name not in top}
        for name in names:
            if name in top and (ref := self.npy_ref(top[name].value, name)) is not None:
                files[name] = ref
        shapes = {name: _file_shape(files[name], name, sources[name]) if name in files
                  else _matrix_shape(sources[name], name) for name in names}
        self.check_shapes(kind, shapes, sources)
        total = sum(rows * cols for rows, cols in shapes.values())
        if total > MAX_NUMBERS:
            raise located(sources[names[0]], f"too many numbers: {total:,} in all, at most {MAX_NUMBERS:,}")
        values = {name: _file_values(files[name], name, sources[name]) if name in files
                  else _matrix_values(sources[name], name) for name in names}
        return values, None, files, shapes

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

    def check_shapes(self, kind: str, shapes: dict[str, tuple[int, int]], where: dict[str, Node]) -> None:
        def shape(name: str) -> str:
            return f"{name} is {shapes[name][0]}×{shapes[name][1]}"

        def fail(name: str, why: str) -> None:
            raise located(where[name], why)

        for name, (rows, cols) in shapes.items():
            if cols > MAX_DIM:
                fail(name, f"{name} has {cols:,} columns; at most {MAX_DIM:,}")
        if kind == "qkv":
            (tq, dq), (tk, dk), (tv, _) = shapes["Q"], shapes["K"], shapes["V"]
            if dk != dq:
                fail("K", f"{shape('K')} but {shape('Q')}: queries and keys need the same width d_k")
            if tk != tq:
                fail("K", f"{shape('K')} but {shape('Q')}: self-attention needs one key row per "
                          "query row (one per token)")
            if tv != tk:
                fail("V", f"{shape('V')} but {shape('K')}: one value row per key")
        else:
            d_model = shapes["X"][1]
            for name in ("Wq", "Wk", "Wv"):
                if shapes[name][0] != d_model:
                    fail(name, f"{shape(name)} but {shape('X')}: X·{name} needs {name} to have one "
                               f"row per column of X ({d_model})")
            if shapes["Wk"][1] != shapes["Wq"][1]:
                fail("Wk", f"{shape('Wk')} but {shape('Wq')}: Q and K need the same width d_k")
        T = shapes["Q" if kind == "qkv" else "X"][0]
        if T > MAX_T:
            fail("Q" if kind == "qkv" else "X", f"{T:,} tokens; at most {MAX_T:,}")

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

    def tokens(self, entry: Entry | None, T: int, first: str) -> tuple[str, ...]:
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
            raise located(node, "tokens must be a list like [the, cat, sat] or a string \"the cat sat\"")
        if len(tokens) != T:
            raise located(node, f"tokens has {len(tokens)} entries but {first} has {T} rows: "
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

    def focus(self, entry: Entry | None, tokens: tuple[str, ...]) -> int:
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
            hint = f"; did you mean {named(close[0])}?" if close else f" (tokens: {some_of(tokens)})"
            raise located(node, f"focus {named(name)} is not one of the tokens{hint}")
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


# ---- reading matrices ------------------------------------------------------------------------

def _matrix_shape(node: Node, name: str) -> tuple[int, int]:
    """Rows and columns of a matrix node, from lengths alone (nothing converted yet)."""
    matrix = deref(node)
    example = "[[1, 0], [0, 1]]"
    if not isinstance(matrix, Sequence):
        raise located(matrix, f"{name} must be a list of rows like {example}, not {kind_of(matrix)}")
    if not matrix.items:
        raise located(matrix, f"{name} is empty; it needs at least one row like {example}")
    if len(matrix.items) > MAX_T:
        raise located(matrix, f"{name} has {len(matrix.items):,} rows; at most {MAX_T:,}")
    width = None
    for i, row_node in enumerate(matrix.items, 1):
        row = deref(row_node)
        if not isinstance(row, Sequence):
            what = "a number" if isinstance(row, Scalar) else kind_of(row)
            raise located(row_node, f"{name} row {i} is {what}, not a list of numbers "
                                    f"(a matrix is a list of rows, like {example})")
        if width is None:
            width = len(row.items)
            if width == 0:
                raise located(row_node, f"{name} row 1 is empty")
        elif len(row.items) != width:
            raise located(row_node, f"{name} row {i} has {count(len(row.items), 'number')} but "
                                    f"row 1 has {width}: every row needs the same length")
    return len(matrix.items), width or 0


def _file_shape(ref: ArrayRef, name: str, node: Node) -> tuple[int, int]:
    try:
        shape = check_matrix(*ref.header(), ref.label)
    except NumpyFileError as error:
        raise located(node, f"{name}: {error}") from None
    if shape[0] > MAX_T or shape[1] > MAX_DIM:
        raise located(node, f"{name}: {ref.label} is {shape[0]:,}×{shape[1]:,}; at most "
                            f"{MAX_T:,} rows and {MAX_DIM:,} columns")
    return shape


def _file_values(ref: ArrayRef, name: str, node: Node) -> np.ndarray:
    try:
        values = ref.load()
    except NumpyFileError as error:
        raise located(node, f"{name}: {error}") from None
    bad = first_non_finite(values)
    if bad is not None:
        i, j = bad
        raise located(node, f"{name}: {ref.label} row {i + 1} column {j + 1} is {values[i, j]}; "
                            "numbers must be finite")
    return values


def _expected_rows(node: Node, what: str, shape: tuple[int, int]) -> tuple[list, list]:
    rows, cols = _matrix_shape(node, what)
    if (rows, cols) != shape:
        raise located(node, f"{what} is {rows}×{cols} but that stage is {shape[0]}×{shape[1]}")
    values, given = [], []
    read: dict[int, tuple[list, list]] = {}  # an aliased row is read once, as in _matrix_values
    for i, row in enumerate(deref(node).items):
        target = deref(row)
        if id(target) not in read:
            cells = [deref(cell) for cell in target.items]
            absent = [isinstance(cell, Scalar) and cell.tag == TAG + "null" for cell in cells]
            read[id(target)] = ([0.0 if gone else number(cell, f"{what} row {i + 1} column {j + 1}",
                                                         finite=False)
                                 for j, (cell, gone) in enumerate(zip(cells, absent))],
                                [not gone for gone in absent])
        values.append(read[id(target)][0])
        given.append(read[id(target)][1])
    return values, given


def _expected_file(ref: ArrayRef, what: str, node: Node, shape: tuple[int, int]) -> tuple:
    try:
        rows, cols = check_matrix(*ref.header(), ref.label)
        if (rows, cols) != shape:
            raise NumpyFileError(f"{ref.label} is {rows}×{cols} but that stage is {shape[0]}×{shape[1]}")
        values = ref.load()
    except NumpyFileError as error:
        raise located(node, f"{what}: {error}") from None
    return values, None


def _tolerance(node: Node) -> float:
    value = number(node, "expect_tolerance")
    if value <= 0:
        raise located(node, f"expect_tolerance must be positive, not {deref(node).value}")
    return value


def _matrix_values(node: Node, name: str) -> list[list[float]]:
    """The numbers of a matrix written in YAML, as rows of Python floats; a row that is an
    alias of one already read is that same list (an alias bomb costs one row's reading)."""
    read: dict[int, list[float]] = {}
    rows = []
    for i, row in enumerate(deref(node).items):
        target = deref(row)
        if id(target) not in read:
            read[id(target)] = [number(cell, f"{name} row {i + 1} column {j + 1}")
                                for j, cell in enumerate(target.items)]
        rows.append(read[id(target)])
    return rows


def _default_title(path: str) -> str:
    if path.startswith("<"):  # text given without a file
        return "Untitled scenario"
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem.replace("_", " ").strip() or "Untitled scenario"
