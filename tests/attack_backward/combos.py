import itertools, subprocess, sys, json, os, textwrap
import numpy as np
from attn_tui.core.scenario_file import loads
from attn_tui.core.backward import gradients, finite_difference
rng = np.random.default_rng(0)
def m(r, c, s=1.0): return "[" + ", ".join("[" + ", ".join(f"{x:.3f}" for x in row) + "]" for row in rng.standard_normal((r, c)) * s) + "]"
cases = {}
T, Tk, d = 3, 4, 2
cases["cross_qkv"] = f"query_tokens: [q1, q2, q3]\ntokens: [k1, k2, k3, k4]\nQ: {m(3,2)}\nK: {m(4,2)}\nV: {m(4,3)}\nloss: {{target: {m(3,3)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["cross_proj_wo_bo"] = f"query_tokens: [q1, q2, q3]\ntokens: [k1, k2, k3, k4]\nX_q: {m(3,3)}\nX: {m(4,3)}\nWq: {m(3,4)}\nWk: {m(3,4)}\nWv: {m(3,4)}\nheads: 2\nWo: {m(4,2)}\nbo: [0.1, -0.2]\nloss: {{target: {m(3,2)}}}\ntrain: {{learn: [X, X_q, Wq, Wk, Wv, Wo, bo], steps: 3, optimizer: adam}}\n"
cases["gqa"] = f"tokens: [a, b, c, d]\nX: {m(4,4)}\nWq: {m(4,8)}\nWk: {m(4,4)}\nWv: {m(4,4)}\nheads: 4\nkv_heads: 2\nloss: {{target: {m(4,8)}}}\ntrain: {{learn: [X, Wq, Wk, Wv], steps: 3}}\n"
cases["heads3d"] = f"tokens: [a, b, c]\nQ: [{m(3,2)}, {m(3,2)}]\nK: [{m(3,2)}, {m(3,2)}]\nV: [{m(3,2)}, {m(3,2)}]\nloss: {{target: {m(3,4)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["gqa3d"] = f"tokens: [a, b, c]\nheads: 2\nkv_heads: 1\nQ: [{m(3,2)}, {m(3,2)}]\nK: {m(3,2)}\nV: {m(3,2)}\nloss: {{target: {m(3,4)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["padding_empty"] = f"tokens: [a, b, c]\ncausal: true\npadding: [1, 0, 0]\nQ: {m(3,2)}\nK: {m(3,2)}\nV: {m(3,2)}\nloss: {{target: {m(3,2)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["mask_empty_row"] = f"tokens: [a, b, c]\ncausal: false\nmask: [[0,0,0],[1,1,0],[1,0,1]]\nQ: {m(3,2)}\nK: {m(3,2)}\nV: {m(3,2)}\nloss: {{target: {m(3,2)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["mask_finite"] = f"tokens: [a, b, c]\ncausal: true\nmask_value: -1e9\npadding: [1,0,0]\nQ: {m(3,2)}\nK: {m(3,2)}\nV: {m(3,2)}\nloss: {{target: {m(3,2)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["window_softcap_alibi"] = f"tokens: [a, b, c, d]\nwindow: 2\nsoftcap: 0.7\nalibi: true\nQ: {m(4,2)}\nK: {m(4,2)}\nV: {m(4,2)}\nloss: {{target: {m(4,2)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["bias"] = f"tokens: [a, b, c]\ncausal: false\nbias: {m(3,3)}\nQ: {m(3,2)}\nK: {m(3,2)}\nV: {m(3,2)}\nloss: {{target: {m(3,2)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["rope"] = f"tokens: [a, b, c]\nrope: {{base: 10, dims: 2}}\nQ: {m(3,4)}\nK: {m(3,4)}\nV: {m(3,2)}\nloss: {{target: {m(3,2)}}}\ntrain: {{learn: [Q, K], steps: 3}}\n"
cases["rope_proj"] = f"tokens: [a, b, c]\nrope: {{base: 10, pairs: interleaved}}\nX: {m(3,3)}\nWq: {m(3,4)}\nWk: {m(3,4)}\nWv: {m(3,2)}\nloss: {{target: {m(3,2)}}}\ntrain: {{learn: [X, Wq, Wk], steps: 3}}\n"
cases["tiles_decode"] = f"tokens: [a, b, c, d]\ntiles: {{queries: 2, keys: 3}}\ndecode: true\nQ: {m(4,2)}\nK: {m(4,2)}\nV: {m(4,2)}\nloss: {{target: {m(4,2)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["random"] = f"random: {{seed: 0, T: 4, d_k: 3, d_v: 2}}\nloss: {{target: {m(4,2)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["scale_num_variants"] = f"tokens: [a, b, c]\nscale: 0.5\nQ: {m(3,2)}\nK: {m(3,2)}\nV: {m(3,2)}\nloss: {{target: {m(3,2)}}}\ntrain: {{learn: [Q], steps: 3}}\nvariants:\n  - {{name: x, causal: false, mask_value: -3}}\n  - {{name: '[b]y[/b]\x1b[31m', scale: false}}\n"
cases["heads_list"] = f"tokens: [a, b, c]\nheads:\n  - {{name: h1, Q: {m(3,2)}, K: {m(3,2)}, V: {m(3,2)}}}\n  - {{name: h2, Q: {m(3,2)}, K: {m(3,2)}, V: {m(3,2)}}}\nloss: {{target: {m(3,4)}}}\ntrain: {{learn: [Q, K, V], steps: 3}}\n"
cases["qkv_wo"] = f"tokens: [a, b, c]\nQ: {m(3,2)}\nK: {m(3,2)}\nV: {m(3,2)}\nWo: {m(2,3)}\nbo: [1, 2, 3]\nloss: {{target: {m(3,3)}}}\ntrain: {{learn: [Q, K, V, Wo, bo], steps: 3}}\n"
only = sys.argv[1:] 
for name, text in cases.items():
    if only and name not in only: continue
    path = f"c_{name}.yaml"; open(path, "w").write(text)
    out = []
    for mode in (["--json"], ["--print", "--row", "all"], ["--markdown"], ["--check"]):
        r = subprocess.run(["attn-tui", *mode, path], capture_output=True, text=True, timeout=120)
        bad = r.returncode != 0 or r.stderr.strip() or "nan" in r.stdout.lower().replace("nanos","")
        if mode[0] == "--json" and r.returncode == 0:
            for tok in ("NaN", "Infinity"):
                if tok in r.stdout: bad = True
        out.append(f"{mode[0]}={r.returncode}" + (f" [{r.stderr.strip()[:300]}]" if bad else ""))
    # FD check
    try:
        s = loads(text)
        g = gradients(s)
        worst = 0
        for inp, arr in s.inputs.items():
            for idx in np.ndindex(arr.shape):
                if arr.ndim == 1: continue
                fd = finite_difference(s, inp, idx)
                an = g.inputs[inp][idx]
                worst = max(worst, abs(fd - an) / max(1, abs(an)))
        out.append(f"fd_worst={worst:.1e}")
    except Exception as e:
        out.append(f"FD EXC {type(e).__name__}: {e}")
    print(name, " ".join(out))
