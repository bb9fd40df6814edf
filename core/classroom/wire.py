"""What a student's app sends the teacher's on the follow channel: one short ASCII line a
message, of a fixed form, read by the teacher's app as hostile input.

    hello 3f9a0c1e            who this app is: a random id (a browser's, or a terminal's)
    name Ada                  with --names only: the first name the student typed
    answer 4 2 0.25 0.25 _    at beat 4 (from 1), query row 2 (from 0): a number or _ a column

A line is at most ``MAX_LINE`` bytes, a row at most ``MAX_CELLS`` numbers, each a plain decimal
(no NaN, no infinity, at most ``MAX_MAGNITUDE`` in size). What the teacher's app sends back is
a beat number a line (``tui.follow``) or ``reveal BEAT``: show the answer at that beat.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_LINE = 512  # bytes, newline included: 32 numbers of 14 characters fit with room
MAX_CELLS = 32  # a predicted row wider than this is not collected (said on the teacher's screen)
MAX_MAGNITUDE = 1e6  # a guess is a number a student typed: anything bigger is not one
MAX_NAME = 24  # characters of a first name
NOT_GIVEN = "_"

_NUMBER = re.compile(r"-?[0-9]{1,9}(\.[0-9]{1,12})?([eE][-+]?[0-9]{1,2})?")
_ID = re.compile(r"[0-9a-f]{8,32}")
_INTEGER = re.compile(r"[0-9]{1,6}")


@dataclass(frozen=True)
class Hello:
    student: str


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Answer:
    beat: int  # from 1, as the lesson's beats are numbered for people
    row: int  # from 0
    guess: tuple[float | None, ...]  # one a column, None where the student gave none


@dataclass(frozen=True)
class Refused:
    why: str


Message = Hello | Name | Answer | Refused


def answer_line(beat: int, row: int, guess) -> bytes:
    """The line that sends ``guess`` (NaN or None: not given), or ValueError if it would not be
    a valid line (too many columns, a number too large)."""
    words = []
    for value in guess:
        if value is None or math.isnan(value):
            words.append(NOT_GIVEN)
            continue
        value = float(value)
        if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
            raise ValueError(f"{value!r} is not a guess this channel carries")
        words.append(_short(value))
    if len(words) > MAX_CELLS:
        raise ValueError(
            f"a row of {len(words)} columns is more than the {MAX_CELLS} the channel carries"
        )
    line = f"answer {beat} {row} {' '.join(words)}\n".encode("ascii")
    if len(line) > MAX_LINE:
        raise ValueError("the answer is longer than a line of the channel")
    return line


def _short(value: float) -> str:
    """The value in at most 12 significant digits (what a student types has fewer), as _NUMBER
    reads."""
    text = f"{value:.12g}"
    if "e" in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def hello_line(student: str) -> bytes:
    if not _ID.fullmatch(student):
        raise ValueError("a student id is 8 to 32 lowercase hex digits")
    return f"hello {student}\n".encode("ascii")


def name_line(name: str) -> bytes:
    cleaned = clean_name(name)
    if cleaned is None:
        raise ValueError(f"a first name is up to {MAX_NAME} letters (spaces, - and ' between)")
    return f"name {cleaned}\n".encode()


def clean_name(name: str) -> str | None:
    """A first name as the channel carries it: letters, with single spaces, hyphens and
    apostrophes between them, up to MAX_NAME characters; None if it is not one."""
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME or not name[0].isalpha():
        return None
    if not all(character.isalpha() or character in " -'" for character in name):
        return None
    return name


def parse(line: bytes) -> Message:
    """One line as it came (with its newline); a ``Refused`` says why it is not a message."""
    if len(line) > MAX_LINE:
        return Refused(f"a line of more than {MAX_LINE} bytes")
    if not line.endswith(b"\n"):
        return Refused("a line cut off before its end")
    try:
        text = line[:-1].decode("utf-8")
    except UnicodeDecodeError:
        return Refused("a line that is not UTF-8 text")
    kind, _, rest = text.partition(" ")
    if kind == "hello":
        return Hello(rest) if _ID.fullmatch(rest) else Refused("a hello without a valid id")
    if kind == "name":
        cleaned = clean_name(rest)
        return (
            Name(cleaned)
            if cleaned is not None and cleaned == rest
            else Refused("a name that is not a first name")
        )
    if kind != "answer" or not text.isascii():
        return Refused("not a message of this channel")
    words = rest.split(" ")
    if len(words) < 3 or not _INTEGER.fullmatch(words[0]) or not _INTEGER.fullmatch(words[1]):
        return Refused("an answer without its beat and row")
    cells = words[2:]
    if len(cells) > MAX_CELLS:
        return Refused(f"an answer of more than {MAX_CELLS} columns")
    guess: list[float | None] = []
    for word in cells:
        if word == NOT_GIVEN:
            guess.append(None)
            continue
        if not _NUMBER.fullmatch(word):
            return Refused("an answer with a column that is not a number")
        value = float(word)
        if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
            return Refused(f"an answer with a number beyond ±{MAX_MAGNITUDE:g}")
        guess.append(value)
    if all(value is None for value in guess):
        return Refused("an answer with no number in it")
    return Answer(int(words[0]), int(words[1]), tuple(guess))


def reveal_line(beat: int) -> bytes:
    return f"reveal {beat}\n".encode("ascii")
