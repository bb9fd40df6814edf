def attention(Q, K, V, causal=True):
    while True:
        pass
