"""The one error a capture stops with when the user can fix the cause (exit status 2)."""


class CaptureError(Exception):
    """A problem with the model, the text, the layer or the output file: the message is one
    line, says what is wrong, and has outside text already made visible."""
