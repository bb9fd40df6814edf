"""How the scores become weights: ``causal:``, ``scale:``, ``mask_value:``, and ``variants:``
that override them, each a trace of its own."""

from __future__ import annotations

from attn_tui.core.files.yaml_numbers import (
    boolean,
    located,
    mask_value_option,
    named,
    scalar_text,
    scale_option,
)
from attn_tui.core.files.yaml_source import Sequence, deref
from attn_tui.core.limits import MAX_TOKEN_LENGTH
from attn_tui.core.model.options import Options, Variant
from attn_tui.core.reading.keys import Entry, check_keys, entries

OPTION_KEYS = ("causal", "scale", "mask_value")
VARIANT_KEYS = ("name",) + OPTION_KEYS
MAX_VARIANTS = 16


def options(found: dict[str, Entry], base: Options) -> Options:
    causal, scale, mask_value = base.causal, base.scale, base.mask_value
    if "causal" in found:
        causal = boolean(found["causal"].value, "causal")
    if "scale" in found:
        scale = scale_option(found["scale"].value)
    if "mask_value" in found:
        mask_value = mask_value_option(found["mask_value"].value)
    return Options(causal, scale, mask_value)


def variants(entry: Entry | None, base: Options) -> tuple[Variant, ...]:
    if entry is None:
        return ()
    node = deref(entry.value)
    if not isinstance(node, Sequence):
        raise located(
            node, "variants must be a list like [{name: scaled}, {name: unscaled, scale: false}]"
        )
    if len(node.items) > MAX_VARIANTS:
        raise located(node, f"{len(node.items)} variants; at most {MAX_VARIANTS}")
    variants: list[Variant] = []
    for position, item in enumerate(node.items, 1):
        found = entries(item, f"variant {position}")
        check_keys(found, VARIANT_KEYS, f"variant {position}")
        if "name" not in found:
            raise located(
                item, f"variant {position} needs a name: {{name: unscaled, scale: false}}"
            )
        name = scalar_text(found["name"].value, "a variant's name", MAX_TOKEN_LENGTH).strip()
        if not name:
            raise located(found["name"].value, f"variant {position} has an empty name")
        if any(variant.name == name for variant in variants):
            raise located(
                found["name"].value, f"two variants are named {named(name)}; names must differ"
            )
        overrides = options(found, base)
        variants.append(
            Variant(name, **{key: getattr(overrides, key) for key in OPTION_KEYS if key in found})
        )
    return tuple(variants)
