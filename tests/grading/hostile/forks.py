import os
import time


def attention(Q, K, V, causal=True):
    pid = os.fork()
    if pid == 0:  # a child left behind, sleeping: it must go with the worker
        time.sleep(600)
        os._exit(0)
    print(f"child {pid}", flush=True)
    raise RuntimeError("forked")
