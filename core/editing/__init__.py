"""A session of edits: undo, saving into the author's own text, recovery copies, recording
lessons."""
