"""That a scenario's inputs fit together, from their shapes alone (before any number is read):
the layout they give — heads, key/value heads, T (query rows), T_k (keys), d_k, d_v, d_out."""

from __future__ import annotations

from attn_tui.core.files.yaml_numbers import count, located, whole_number
from attn_tui.core.files.yaml_source import Node, Sequence, deref
from attn_tui.core.limits import MAX_DIM, MAX_HEADS, MAX_T
from attn_tui.core.reading.keys import Entry


def layout_of(
    kind: str, shapes: dict[str, tuple[int, ...]], where: dict[str, Node], top: dict[str, Entry]
) -> dict[str, int]:
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
    wanted_heads = (
        whole_number(top["heads"].value, "heads", 1, MAX_HEADS)
        if "heads" in top and not isinstance(deref(top["heads"].value), Sequence)
        else None
    )
    wanted_kv = (
        whole_number(top["kv_heads"].value, "kv_heads", 1, MAX_HEADS) if "kv_heads" in top else None
    )
    cross = "query_tokens" in top
    if kind == "qkv":
        q, k, v = shapes["Q"], shapes["K"], shapes["V"]
        heads = q[0] if len(q) == 3 else 1
        if wanted_heads is not None and wanted_heads != heads:
            fail(
                "heads",
                f"heads: {wanted_heads}, but Q holds {heads} matrices (one per head)"
                if len(q) == 3
                else f"heads: {wanted_heads} needs one Q, K and V per head: a list of matrices, or "
                "3-D arrays (heads × tokens × d) in .npy or .npz files; Q here is one matrix",
            )
        if len(k) != len(v):
            fail(
                "V",
                f"{shape('V')} but {shape('K')}: K and V are both one matrix, or both one per "
                "key/value head",
            )
        kv_heads = k[0] if len(k) == 3 else 1
        if len(v) == 3 and v[0] != kv_heads:
            fail(
                "V", f"V holds {v[0]} heads but K holds {kv_heads}: one value matrix per key matrix"
            )
        if wanted_kv is not None and wanted_kv != kv_heads:
            fail(
                "kv_heads",
                f"kv_heads: {wanted_kv}, but K holds {kv_heads} "
                f"{'matrices' if kv_heads > 1 else 'matrix'}",
            )
        T, d_k = q[-2], q[-1]
        T_k, d_k_of_k = k[-2], k[-1]
        d_v = v[-1]
        if d_k_of_k != d_k:
            fail("K", f"{shape('K')} but {shape('Q')}: queries and keys need the same width d_k")
        if not cross and T_k != T:
            fail(
                "K",
                f"{shape('K')} but {shape('Q')}: self-attention needs one key row per query row "
                "(one per token); for cross-attention, label the query rows with query_tokens",
            )
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
                fail(
                    name,
                    f"{shape(name)} but {shape('X')}: "
                    + (
                        f"X_q needs X's {d_model} columns (the same embedding width)"
                        if name == "X_q"
                        else f"X·{name} needs {name} to have one row per column of X ({d_model})"
                    ),
                )
        if shapes["Wq"][1] % heads:
            fail(
                "Wq",
                f"{shape('Wq')}: {shapes['Wq'][1]} columns cannot be split among {heads} heads "
                "(head h uses columns h·d_k … (h+1)·d_k − 1, so Wq needs heads × d_k columns)",
            )
        d_k = shapes["Wq"][1] // heads
        if shapes["Wk"][1] != kv_heads * d_k:
            fail(
                "Wk",
                f"{shape('Wk')} but {shape('Wq')}: with {heads} head{'s' if heads > 1 else ''} "
                f"of d_k = {d_k}, Wk needs {kv_heads} × {d_k} = {kv_heads * d_k} columns "
                f"({kv_heads} key head{'s' if kv_heads > 1 else ''})",
            )
        if shapes["Wv"][1] % kv_heads:
            fail(
                "Wv",
                f"{shape('Wv')}: {shapes['Wv'][1]} columns cannot be split among {kv_heads} "
                "value heads",
            )
        d_v = shapes["Wv"][1] // kv_heads
        if cross and "X_q" not in shapes:
            fail(
                "query_tokens",
                "query_tokens label the queries of cross-attention: with X, give "
                "them as X_q (one row per query token)",
            )
        T = shapes["X_q"][0] if "X_q" in shapes else T_k
        query_name = "X_q" if "X_q" in shapes else "X"
    if kv_heads > heads or heads % kv_heads:
        fail(
            "kv_heads" if "kv_heads" in top else "K",
            f"{count(heads, 'query head')} cannot share {count(kv_heads, 'key/value head')} "
            "evenly: kv_heads must divide heads",
        )
    if "X_q" in shapes and kind == "qkv":
        fail(
            "X_q",
            "X_q goes with X, Wq, Wk and Wv (Q = X_q·Wq); with Q, K and V given, Q already holds "
            "the queries",
        )
    if "X_q" in shapes and not cross:
        fail(
            "X_q",
            "X_q holds the queries of cross-attention: give query_tokens too (one per row of X_q)",
        )
    if not cross and T != T_k:
        fail(
            query_name,
            f"{shape(query_name)} but {shape('K' if kind == 'qkv' else 'X')}: "
            "self-attention needs one key row per query row (one per token); for "
            "cross-attention, label the query rows with query_tokens",
        )
    d_out = heads * d_v
    if "Wo" in shapes:
        if shapes["Wo"][0] != heads * d_v:
            fail(
                "Wo",
                f"{shape('Wo')}: it multiplies the {heads} head{'s' if heads > 1 else ''}' outputs "
                f"side by side ({heads} × d_v {d_v} = {heads * d_v} columns), so it needs "
                f"{heads * d_v} rows",
            )
        d_out = shapes["Wo"][1]
    if "bo" in shapes:
        if "Wo" not in shapes:
            fail("bo", "bo is the output projection's bias: it goes with Wo")
        if len(shapes["bo"]) == 2 and shapes["bo"][0] != 1:
            fail(
                "bo",
                f"bo is {shapes['bo'][0]}×{shapes['bo'][1]}; a bias is one row of d_out numbers",
            )
        if shapes["bo"][-1] != d_out:
            fail(
                "bo",
                f"bo has {count(shapes['bo'][-1], 'number')} "
                f"but Wo gives {count(d_out, 'output')}: one bias each",
            )
    for rows, name in ((T, query_name), (T_k, "K" if kind == "qkv" else "X")):
        if rows > MAX_T:
            fail(name, f"{rows:,} tokens; at most {MAX_T:,}")
    return dict(heads=heads, kv_heads=kv_heads, T=T, T_k=T_k, d_k=d_k, d_v=d_v, d_out=d_out)
