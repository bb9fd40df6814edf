"""YAML and NumPy files: reading them bounded and with positions, writing them safely."""
