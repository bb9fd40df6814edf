# Replaces the worker's description of it with one whose parameters are of the wrong shape.
import sys

worker = sys.modules["__main__"]
worker.describe = lambda *args: {"found": True, "parameters": [["Q"], 5, None], "names": ["x"]}


def attention(Q, K, V, causal=True):
    return Q
