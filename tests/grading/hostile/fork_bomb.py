# A fork loop, bounded (at most 150 children in all, however often it is called, each asleep
# 20 s, then gone) so that if the process limit did not hold, the machine would still not be
# hurt: the worker's process group is killed when the submission closes, these children with it.
import os
import time

forked = 0


def attention(Q, K, V, causal=True):
    global forked
    while forked < 150:
        try:
            pid = os.fork()
        except OSError:
            print(f"forked {forked}", flush=True)
            raise
        if pid == 0:
            time.sleep(20)
            os._exit(0)
        forked += 1
    return Q
