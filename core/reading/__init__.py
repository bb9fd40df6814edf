"""The readers of a scenario file's keys, one group each, found by name: ``text`` (the bytes),
``keys`` (a mapping's keys), ``files`` (data files), ``inputs`` and ``shapes`` (the matrices
and the layout they give), ``labels`` (tokens, focus, precision), ``options`` (and variants),
``masks``, ``rope``, and a stage's own keys (``bias``).
``core.loading.scenario_file`` reads the top keys and calls them. No NumPy here: checking a file
needs none."""
