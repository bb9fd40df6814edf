"""Calling a student's attention the way it was written, and judging what it returns.

Students' code in the wild takes the causal mask three ways (a ``causal`` flag; a ``mask``: bool
True = may attend, 1 = blocked to be added ×−1e9, bool True = blocked as PyTorch's
``masked_fill(mask, -inf)`` and NumPy's ``s[mask] = -inf`` need it, or 0/−∞ to be added), batches
its arrays
(…, T, d), takes NumPy arrays or PyTorch tensors, and returns (out, weights), out alone or
(weights, out). A correct student is never marked wrong for a convention: each is tried in
turn, and the first under which the numbers agree is the one read (and said). When none agrees,
the first that ran and returned the right shapes is judged, and its mistake named. On a case
without a mask, a mask argument with a default is left to it (``mask=None``); one without a
default is given a mask that blocks nothing, in each of its conventions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_tui.core.teaching.judgement import Judgement
from attn_tui.grading.cases import Case
from attn_tui.grading.empty_rows import reading
from attn_tui.grading.failures import exception_verdict
from attn_tui.grading.runner import Submission

CAUSAL_NAMES = ("causal", "is_causal", "use_mask", "masked", "autoregressive", "decoder")
MASK_NAMES = ("mask", "attn_mask", "attention_mask")
MASKS_GIVEN = (
    "allowed",
    "blocked",
    "blocked_bool",
    "additive",
)  # the ways that give the mask itself
FLOAT32 = 1e-4  # float32 results: judged to this (float32 keeps ~7 digits), not float64's tolerance


@dataclass(frozen=True)
class Way:
    """One convention of calling: how the arrays go in and what the mask is."""

    torch: bool = False
    batch: int = 0
    # none, flag, flag_positional, allowed, blocked, blocked_bool, additive, none_given
    mask: str = "none"

    def describe(self) -> str:
        arrays = ("PyTorch tensors" if self.torch else "NumPy arrays") + (
            " (1, T, d)" if self.batch else " (T, d)"
        )
        mask = {
            "none": "no mask argument",
            "flag": "causal=… as a keyword",
            "flag_positional": "causal as the 4th argument",
            "allowed": "mask: bool, True = may attend",
            "blocked": "mask: 1 = blocked (0 = seen)",
            "blocked_bool": "mask: bool, True = blocked",
            "additive": "mask: 0 or −∞, added to the scores",
            "none_given": "mask=None",
        }[self.mask]
        return f"{arrays}, {mask}"


@dataclass
class CaseResult:
    case: Case
    ok: bool
    way: Way | None = None
    returns: str = ""  # "(out, weights)", "out", "(weights, out)"
    float32: bool = False
    judgements: tuple[Judgement, ...] = ()  # weights (when returned), then output
    error: str | None = None  # an exception's one line, or shapes that fit no convention
    error_type: str = ""
    weights: np.ndarray | None = None
    output: np.ndarray | None = None
    empty_as: str | None = None  # how a fully masked row was read (grading/empty_rows.py)
    masked_row: str | None = None  # what is wrong at a fully masked row, when the rest is right
    not_run: str | None = None  # why the case could not be given to this code

    @property
    def first_wrong(self) -> Judgement | None:
        return next((found for found in self.judgements if not found.right), None)


def ways(info: dict, causal: bool, torch_first: bool) -> list[Way]:
    """Every convention worth trying for this signature, most likely first."""
    parameters = info.get("parameters", [])
    named = {name.lower(): (kind, default) for name, kind, default in parameters}
    positional = [
        name
        for name, kind, default in parameters
        if kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
    ]
    variadic = any(kind == "VAR_POSITIONAL" for _, kind, _ in parameters)
    if any(name in named for name in CAUSAL_NAMES):
        masks = ["flag"]
    elif any(name in named for name in MASK_NAMES):
        mask_default = next(named[name][1] for name in MASK_NAMES if name in named)
        # a mask the function requires is given as "nothing blocked" in its own convention:
        # None, where it has no default, is not a mask it was written to take
        masks = list(MASKS_GIVEN) if causal or not mask_default else ["none_given"]
    elif len(positional) >= 4 and not parameters[3][2] or variadic:
        masks = ["flag_positional"]
    else:
        masks = ["none"]
    arrays = [False, True] if not torch_first else [True, False]
    return [Way(torch, batch, mask) for torch in arrays for batch in (0, 1) for mask in masks]


def arguments(info: dict, way: Way, case: Case) -> dict:
    """The call's arguments under ``way``: the arrays, and the mask or flag."""
    given = case.inputs()
    call = {
        "arrays": {"Q": given["Q"], "K": given["K"], "V": given["V"]},
        "positional": ["Q", "K", "V"],
        "after": [],
        "keywords": {},
        "keyword_arrays": [],
        "how": {"torch": way.torch, "batch": way.batch},
    }
    named = {name.lower(): name for name, _, _ in info.get("parameters", [])}
    if way.mask == "flag":
        flag = next(named[name] for name in CAUSAL_NAMES if name in named)
        call["keywords"][flag] = case.causal
    elif way.mask == "flag_positional":
        call["after"] = [case.causal]
    elif way.mask == "none_given":
        name = next(named[n] for n in MASK_NAMES if n in named)
        call["keywords"][name] = None
    elif way.mask in MASKS_GIVEN:
        name = next(named[n] for n in MASK_NAMES if n in named)
        allowed = case.allowed()
        mask = {
            "allowed": allowed.astype(np.float64),
            "blocked": (~allowed).astype(np.float64),
            "blocked_bool": (~allowed).astype(np.float64),
            "additive": np.where(allowed, 0.0, -np.inf),
        }[way.mask]
        call["arrays"]["mask"] = mask
        call["keyword_arrays"] = ["mask"]
        call["how"]["bool"] = ["mask"] if way.mask in ("allowed", "blocked_bool") else []
        call["rename"] = {"mask": name}
    return call


def run_case(submission: Submission, case: Case, preferred: Way | None = None) -> CaseResult:
    """Call the student's function on one case under each convention until one agrees."""
    info = submission.info
    torch_first = bool(info.get("uses_torch"))
    tried = ways(info, case.causal or case.explicit, torch_first)
    if case.explicit and not any(way.mask in MASKS_GIVEN for way in tried):
        return CaseResult(
            case,
            False,
            not_run="its attention takes no mask argument (mask, attn_mask, "
            "attention_mask), so this case's mask cannot be given to it",
        )
    if preferred is not None and preferred in tried:
        tried.remove(preferred)
        tried.insert(0, preferred)
    fallback: CaseResult | None = None
    misshapen: CaseResult | None = (
        None  # ran, but returned shapes that fit nothing: said before an exception
    )
    first_error: CaseResult | None = None
    for way in tried:
        call = arguments(info, way, case)
        answer, returned = submission.call(
            call["arrays"],
            positional=call["positional"],
            after=call["after"],
            keywords=call["keywords"],
            keyword_arrays=call["keyword_arrays"],
            how=call["how"],
            rename=call.get("rename"),
        )
        if not answer.get("ok"):
            if first_error is None:
                first_error = CaseResult(
                    case,
                    False,
                    way,
                    error=exception_verdict(answer, submission.path, submission.memory),
                    error_type=answer.get("type", ""),
                )
            if answer.get("type") == "MemoryError":
                break
            continue
        found = judge(case, way, answer, returned)
        if found.ok:
            return found
        if fallback is None and found.error is None:
            fallback = found
        if misshapen is None and found.error is not None:
            misshapen = found
    return (
        fallback
        or misshapen
        or first_error
        or CaseResult(case, False, error="it ran under no convention")
    )


def judge(case: Case, way: Way, answer: dict, returned: list[np.ndarray]) -> CaseResult:
    """Judge what one call returned: which part is the output and which the weights, by shape."""
    scenario = case.scenario
    T, T_k, d_v = scenario.T, scenario.T_k, scenario.d_v
    parts = [_unbatched(part) for part in returned[:2]]
    float32 = any(dtype in ("float32", "float16", "bfloat16") for dtype in answer.get("dtypes", []))
    tolerance = max(scenario.expect_tolerance, FLOAT32) if float32 else None
    the_judge = case.judge(tolerance)
    orders = []
    if len(parts) >= 2:
        orders = [("(out, weights)", parts[0], parts[1]), ("(weights, out)", parts[1], parts[0])]
    elif parts:
        orders = [("out", parts[0], None)]
    results = []
    for returns, out, weights in orders:
        if out.shape != (T, d_v) or weights is not None and weights.shape != (T, T_k):
            continue
        judgements = (
            (the_judge("weights", weights, given=True),) if weights is not None else ()
        ) + (the_judge("output", out, given=True),)
        ok = all(found.right for found in judgements)
        empty_as, masked_row = (
            reading(case, way.mask, weights, out, the_judge.tolerance) if ok else (None, None)
        )
        ok = ok and masked_row is None
        results.append(
            CaseResult(
                case,
                ok,
                way,
                returns,
                float32,
                judgements,
                weights=weights,
                output=out,
                empty_as=empty_as,
                masked_row=masked_row,
            )
        )
        if ok:
            return results[-1]
    if results:
        return results[0]
    shapes = " and ".join("×".join(map(str, np.shape(part))) for part in returned[:2]) or "nothing"
    return CaseResult(
        case,
        False,
        way,
        error=f"returned {shapes}; expected the output ({T}×{d_v}) "
        f"and optionally the weights ({T}×{T_k})",
    )


def _unbatched(array: np.ndarray) -> np.ndarray:
    while array.ndim > 2 and array.shape[0] == 1:
        array = array[0]
    return array
