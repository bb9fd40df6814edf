"""Students' own code, checked and graded (#43): ``runner`` runs a file in a worker process with
limits (the one place attn-tui starts another Python for it; ``worker_limits`` the limits,
``failures`` the one line a teacher reads when it cannot answer), ``calling`` finds the
convention its function was written in, ``cases`` the battery, ``check`` and ``grade`` the two
commands.
It imports NumPy and the core; PyTorch only inside the worker, when the student's code uses it."""
