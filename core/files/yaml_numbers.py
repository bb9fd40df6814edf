"""Single values of a scenario read from YAML scalars: numbers, whole numbers, booleans, the
``scale`` and ``mask_value`` options and text, each with an error that names its line.

YAML 1.1 decides what a plain scalar is (PyYAML's resolver tags it); these readers decide what
a scenario accepts: only what a person clearly meant as a number is one (``1e9`` too, though
YAML 1.1 reads it as text), nothing quoted counts as a number, and nothing is constructed
from a tag, so a file can never run code.
"""

from __future__ import annotations

import math

import yaml

from attn_tui.core.errors import ScenarioError
from attn_tui.core.files.yaml_source import Mapping, Node, Scalar, Sequence, deref
from attn_tui.core.limits import MAX_TITLE_LENGTH, MAX_TOKEN_LENGTH
from attn_tui.core.numbers import _NUMBER_TEXT

TAG = "tag:yaml.org,2002:"
_CONSTRUCTOR = yaml.constructor.SafeConstructor()  # used for single scalars only, never for tags
# YAML 1.1's booleans, as PyYAML's constructor reads an explicit !!bool (in any case)
_BOOLEANS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


def number(node: Node, what: str, finite: bool = True) -> float:
    """A finite float from a scalar node (any float unless ``finite``), or an error saying
    what the node is instead."""
    node = deref(node)
    if not isinstance(node, Scalar):
        raise located(node, f"{what} is {kind_of(node)}, not a number")
    tag, text = node.tag, node.value
    _not_base_60(node, what)
    try:
        if tag == TAG + "int":
            value = float(yaml_int(text))
        elif tag == TAG + "float":
            value = yaml_float(text)
        elif tag == TAG + "str" and node.plain and _NUMBER_TEXT.fullmatch(text):
            value = float(text)  # YAML 1.1 reads 1e9 (no dot) as text; a person means a number
        else:
            raise located(node, f"{what} is {describe_scalar(node)}, not a number")
    except OverflowError:
        raise located(node, f"{what}: {shorten(text)} is too large for float64") from None
    except ValueError:
        raise located(node, f"{what} is {describe_scalar(node)}, not a number") from None
    if finite and not math.isfinite(value):
        raise located(node, f"{what} is {text}; numbers must be finite")
    return value


def _not_base_60(node: Scalar, what: str) -> None:
    """YAML 1.1 reads a plain ``1:30`` as the base-60 number 90 (and ``1:30.5`` as 90.5), which
    PyYAML's safe loader keeps; nobody writing a scenario means that, so it is refused here,
    where every number of a scenario, an index and a lesson is read."""
    if node.tag in (TAG + "int", TAG + "float") and ":" in node.value:
        raise located(
            node,
            f"{what} is {shorten(node.value)}, which YAML 1.1 reads as a base-60 number "
            f"({shorten(node.value)} = {_base_60(node.value)}): write the number itself, "
            "or quote it if it is text",
        )


def _base_60(text: str) -> str:
    try:
        value = yaml_float(text, base_60=True) if "." in text else yaml_int(text, base_60=True)
    except (ValueError, OverflowError):
        return "not a number at all"
    return f"{value:g}" if isinstance(value, float) else str(value)


def yaml_int(text: str, *, base_60: bool = False) -> int:
    """An integer as YAML 1.1 writes it (but no base-60 ``1:30`` unless ``base_60``); ValueError
    if it is none, OverflowError if huge."""
    if ":" in text and not base_60:
        raise ValueError(text)
    if len(text) > 400:  # more digits than any float holds (and than int() accepts by default)
        raise OverflowError(text)
    try:
        return int(text)
    except ValueError:  # YAML 1.1 forms: 0x1F, 0o17, 1_000
        pass
    try:
        return _CONSTRUCTOR.construct_yaml_int(yaml.ScalarNode(TAG + "int", text))
    except Exception:  # the constructor's own IndexError, ValueError… on '' or '0b_'
        raise ValueError(text) from None


def yaml_float(text: str, *, base_60: bool = False) -> float:
    """A float as YAML 1.1 writes it (but no base-60 ``1:30.5`` unless ``base_60``)."""
    if ":" in text and not base_60:
        raise ValueError(text)
    try:
        return float(text)
    except ValueError:  # YAML 1.1 forms: .inf, .NaN
        pass
    try:
        return _CONSTRUCTOR.construct_yaml_float(yaml.ScalarNode(TAG + "float", text))
    except Exception:
        raise ValueError(text) from None


def whole_number(node: Node, what: str, low: int, high: int) -> int:
    node = deref(node)
    if not (isinstance(node, Scalar) and node.tag == TAG + "int"):
        shown = describe_scalar(node) if isinstance(node, Scalar) else kind_of(node)
        raise located(node, f"{what} must be a whole number from {low} to {high}, not {shown}")
    _not_base_60(node, what)
    try:
        value = yaml_int(node.value)
    except (ValueError, OverflowError):
        raise located(
            node, f"{what} must be a whole number from {low} to {high}, not {describe_scalar(node)}"
        ) from None
    if not low <= value <= high:
        raise located(node, f"{what} must be from {low} to {high}, not {value}")
    return value


def boolean(node: Node, what: str) -> bool:
    node = deref(node)
    if isinstance(node, Scalar) and node.tag == TAG + "bool":
        value = _BOOLEANS.get(node.value.lower())
        if value is None:  # an explicit !!bool on other text: PyYAML itself would refuse it
            raise located(node, f"{what} must be true or false, not !!bool {shorten(node.value)!r}")
        return value
    shown = describe_scalar(node) if isinstance(node, Scalar) else kind_of(node)
    raise located(node, f"{what} must be true or false, not {shown}")


def scale_option(node: Node) -> bool | float:
    node = deref(node)
    if isinstance(node, Scalar) and node.tag == TAG + "bool":
        return boolean(node, "scale")
    if not (isinstance(node, Scalar) and node.tag in (TAG + "int", TAG + "float", TAG + "str")):
        raise located(node, "scale must be true (÷√d_k), false (no scaling) or a positive number")
    _not_base_60(node, "scale")
    try:
        value = number(node, "scale")
    except ScenarioError:
        raise located(
            node,
            "scale must be true (÷√d_k), false (no scaling) or a positive number, "
            f"not {describe_scalar(node)}",
        ) from None
    if value <= 0:
        raise located(node, f"scale must be positive: scores are divided by it (got {node.value})")
    return value


def mask_value_option(node: Node) -> float:
    node = deref(node)
    if (
        isinstance(node, Scalar)
        and node.plain
        and node.value.lower() in ("-.inf", "-inf", "-infinity")
    ):
        return -math.inf  # (quoted, it is text, as every quoted number is)
    if not isinstance(node, Scalar):  # (a list, a mapping: was an AttributeError, exit 3)
        raise located(
            node, f"mask_value must be -.inf or a negative number such as -1e9, not {kind_of(node)}"
        )
    _not_base_60(node, "mask_value")
    try:
        value = number(node, "mask_value")
    except ScenarioError:
        raise located(
            node,
            "mask_value must be -.inf or a negative number such as -1e9, not "
            f"{describe_scalar(node)}",
        ) from None
    if value >= 0:
        raise located(
            node,
            f"mask_value must be negative (-.inf or e.g. -1e9), not {node.value}: "
            "it stands for a score no key may get",
        )
    return value


def scalar_text(node: Node, what: str, longest: int = MAX_TITLE_LENGTH) -> str:
    """A scalar's text as written (so a token ``on`` stays "on", not True), at most ``longest``
    characters: an alias may repeat a long text thousands of times, each a copy in every view."""
    written, node = node, deref(node)
    if not isinstance(node, Scalar):
        raise located(node, f"{what} must be text, not {kind_of(node)}")
    if len(node.value) > longest:  # located where it is used: an alias (title: *t) may be
        raise located(
            written, f"{what} is {len(node.value):,} characters long; at most {longest:,}"
        )
    return "" if node.tag == TAG + "null" and node.plain else node.value


def token_text(node: Node, position: int) -> str:
    text = scalar_text(node, f"token {position}", MAX_TOKEN_LENGTH)
    if not text.strip():
        raise located(
            node,
            f"token {position} is empty; every row needs a label (write it in quotes "
            "if YAML would read it otherwise, like '~' or 'null')",
        )
    return text


def shorten(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def named(text: str) -> str:
    """A name from the file as a message quotes it: in quotes, escaped, and not too long."""
    return repr(shorten(text, 40))


def some_of(names: tuple[str, ...] | list[str], shown: int = 8) -> str:
    """A few names from a list, for a message: ``the cat sat … (4,093 more)``."""
    listed = " ".join(shorten(name, 24) for name in names[:shown])
    return listed if len(names) <= shown else f"{listed} … ({len(names) - shown:,} more)"


def describe_scalar(node: Node) -> str:
    if not isinstance(node, Scalar):
        return kind_of(node)
    if node.tag == TAG + "null":
        return "empty"
    if node.tag == TAG + "bool":
        return node.value
    shown = node.value if len(node.value) <= 24 else node.value[:23] + "…"
    return f"{shown!r}" + ("" if node.plain else " (quoted text)")


def kind_of(node: Node) -> str:
    node = deref(node)
    if isinstance(node, Sequence):
        return "a list"
    if isinstance(node, Mapping):
        return "a mapping"
    return describe_scalar(node)


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def located(node: Node, message: str) -> ScenarioError:
    return ScenarioError(message, node.line, node.col)
