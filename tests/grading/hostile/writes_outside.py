# Writes into the shared temporary folders (and fills /dev/shm, which is memory): none of it may
# stay once the submission is graded.
import os

import numpy as np

for folder in ("/tmp", "/dev/shm", "/var/tmp"):
    try:
        with open(os.path.join(folder, "attn-leftover-from-student"), "wb") as file:
            file.write(b"x" * 2**20)
    except OSError:
        pass
try:
    with open("/dev/shm/attn-leftover-fill", "wb") as file:
        for _ in range(1024):
            file.write(b"\0" * 2**20)
except OSError:
    pass


def attention(Q, K, V, causal=True):
    return np.zeros((Q.shape[0], V.shape[1]))
