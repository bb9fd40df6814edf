# A child in a session of its own (out of the worker's process group) that outlives the worker
# and, for 20 s, SIGKILLs every process it may (those graded after it, when they share a user).
# Named attnleftover, so that a test can look for it after grading.
import ctypes
import os
import signal
import time

import numpy as np

if os.fork() == 0:
    os.setsid()
    ctypes.CDLL(None).prctl(15, b"attnleftover", 0, 0, 0)  # PR_SET_NAME
    if os.fork() == 0:
        time.sleep(1.0)  # (the worker answers first: then the classmates' workers start)
        ends = time.monotonic() + 20
        while time.monotonic() < ends:
            try:
                os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
            time.sleep(0.05)
    os._exit(0)


def attention(Q, K, V, causal=True):
    return np.zeros((Q.shape[0], V.shape[1]))
