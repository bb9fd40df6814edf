"""Reading a scenario file whole: the built-ins, unknown keys, the checks before NumPy."""
