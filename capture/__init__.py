"""``attn-tui capture``: a real Hugging Face model's attention, taken apart into a scenario.

The command runs a model on the student's text up to one layer, records what that layer's
attention really used (every head's Q, K and V, the output projection, the mask and scaling)
and writes a multi-head scenario: a commented YAML file and an ``.npz`` of its matrices.

Only this package imports PyTorch and transformers (the optional extra
``pip install 'attn-tui[models]'``), and only when ``capture`` runs: importing
``attn_tui.capture`` or its command line imports neither.
"""
