"""The tests of attn-tui: run them from the repository root with ``python -m pytest`` (or
``pytest``)."""
