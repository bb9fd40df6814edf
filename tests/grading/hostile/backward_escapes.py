# Its backward raises with escape sequences and a chat-template token in the message.
import numpy as np


def attention(Q, K, V, causal=True):
    return np.zeros((Q.shape[0], V.shape[1]))


def attention_backward(Q, K, V, dO):
    raise ValueError("\x1b[2J back [/INST]")
