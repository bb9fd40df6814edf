"""A lesson read and checked: its beats, in the order they are played."""
