"""A checked scenario's fields built into the Scenario with its arrays (this is where NumPy comes
in), and the bound that tells ``check`` whether it must build one to be sure no stage overflows.
The fields come from ``core.loading.scenario_file.fields``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attn_tui.core.errors import NumericError, ScenarioError
from attn_tui.core.files.yaml_matrices import largest as largest_of
from attn_tui.core.model.options import Options

if TYPE_CHECKING:
    from attn_tui.core.model.scenario import Scenario


def build(found: dict[str, Any]) -> Scenario:
    """The Scenario, with its arrays, from checked fields (this is where NumPy comes in)."""
    import numpy as np

    from attn_tui.core.engine.overflow import check_backward_range, check_range
    from attn_tui.core.lessons.reader import with_lesson
    from attn_tui.core.model.scenario import Scenario

    values = found["random"].generate() if found["random"] is not None else dict(found["inputs"])
    if "bo" in values:  # a bias is a vector; kept as one row, to add to every row of concat·Wo
        values["bo"] = np.asarray(values["bo"], dtype=np.float64).reshape(1, -1)
    files = dict(found["files"])
    explicit = found["stage_settings"].get("bias")
    # an explicit bias is an input like the others: edited, undone, saved
    if explicit is not None and not explicit.alibi:
        values["bias"] = explicit.matrix
        if explicit.source is not None:
            files["bias"] = explicit.source
    layout = found["layout"]
    mask = None if found["mask"] is None else np.array(found["mask"], dtype=bool)
    scenario = Scenario(
        inputs=values,
        heads=layout["heads"],
        kv_heads=layout["kv_heads"],
        mask=mask,
        files=files,
        **{
            key: found[key]
            for key in (
                "title",
                "description",
                "tokens",
                "options",
                "focus",
                "precision",
                "variants",
                "random",
                "path",
                "source",
                "expect",
                "expect_tolerance",
                "predict",
                "query_tokens",
                "head_names",
                "window",
                "padding",
                "rope",
                "stage_settings",
                "heads_written",
                "generated",
            )
        },
    )
    try:
        check_range(scenario)
        from attn_tui.core.engine.stages.backward_steps import has_loss

        if has_loss(scenario):
            from attn_tui.core.model.heads import HeadInputs

            check_backward_range(scenario, HeadInputs(scenario))
    except NumericError as exc:
        # the error at the key it names (V's, not Q's), or the archive's, the heads'
        top = found["top"]
        named = [top[name].key for name in (*exc.inputs, "npz", "heads") if name in top]
        where = named[0] if named else found["first_input"]
        raise ScenarioError(str(exc), where.line, where.col, found["path"]) from None
    return with_lesson(scenario, found["lesson"])


def surely_finite(found: dict[str, Any]) -> bool:
    """Whether no stage can overflow, by a bound from the largest |value| of each input (a
    random scenario's are at most about 6; 10 is taken, with a wide margin on the result)."""
    layout = found["layout"]
    if found["random"] is not None:
        largest = {name: 10.0 for name in ("Q", "K", "V")}
    else:
        largest = {name: largest_of(values) for name, values in found["inputs"].items()}
        if "X" in largest:
            d_model = found["shapes"]["X"][1]
            x = max(largest["X"], largest.get("X_q", 0.0))
            largest.update({name: d_model * x * largest["W" + name.lower()] for name in "QKV"})
    d_k = layout["d_k"]
    bound = d_k * largest["Q"] * largest["K"]
    option_sets = [found["options"], *(v.options(found["options"]) for v in found["variants"])]
    # a bias on the scaled scores: every scale the app's s key can set (core.engine.overflow)
    if found["stage_settings"]:
        option_sets += [Options(scale=True), Options(scale=False)]
    if "Wo" in largest:
        projected = layout["heads"] * layout["d_v"] * largest["V"] * largest["Wo"] + largest.get(
            "bo", 0.0
        )
        if not projected < 1e290:
            return False
    return largest["V"] < 1e290 and all(bound / o.divisor(d_k) < 1e290 for o in option_sets)
