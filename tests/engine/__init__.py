"""The arithmetic: every stage's numbers, forward and backward, online and incremental, against
independent references."""
