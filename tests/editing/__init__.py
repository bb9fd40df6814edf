"""Keeping a user's edits: saving, its safety, the served root, recovery copies, the state
folders."""
