# Its softmax raises with escape sequences and a chat-template token in the message.
import numpy as np


def softmax(x):
    raise ValueError("[/INST] \x1b[2J\x1b]0;pwned\x07 <|im_end|>")


def attention(Q, K, V, causal=True):
    return np.zeros((Q.shape[0], V.shape[1]))
