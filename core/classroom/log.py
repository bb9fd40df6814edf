"""``--responses FILE.jsonl``: every answer the teacher's app accepts, one JSON object a line,

    {"time": "2026-12-06T20:15:03.120+00:00", "student": "3f9a0c1e", "beat": 4,
     "stage": "weights", "row": 2, "guess": [0.25, 0.25, null]}

``beat`` counts from 1 as the lesson's beats do; ``row`` is the query row counted from 0, as
the wire carries it (a person reads row + 1, or the token). With ``--names --record-names`` a
line also has ``name``: the first name the student gave (null: they stayed anonymous). Written
a line at a time, each in one write (a crash or Ctrl+C loses at most the line being written);
and such a line read back, checked as the outside text it is."""

from __future__ import annotations

import datetime
import errno
import json
import math
import os
import stat
import time
from dataclasses import dataclass

from attn_tui.core.classroom.beats import PredictBeat, refusal
from attn_tui.core.classroom.wire import MAX_CELLS, MAX_MAGNITUDE, Answer, clean_name

MAX_LOG_LINE = 4096  # bytes: a line of 32 columns, an id and a time takes under 1,000
MAX_STUDENT = 64  # characters of a student's id or name in the log
NOT_REGULAR = "not a regular file (answers are appended to a file)"
KEYS = ("time", "student", "beat", "stage", "row", "guess")
NAME = "name"  # the one key a line may have besides KEYS (--record-names)


@dataclass(frozen=True)
class Logged:
    time: str
    student: str
    answer: Answer
    name: str | None = None  # the first name recorded with it (--record-names), if any


SYNC_SECONDS = 1.0  # the log is fsynced at most this often (and when it is closed)


class ResponseLog:
    """An open log: each answer appended as one line in one write, so a crash of the app loses
    nothing written (the operating system has it); fsynced (kept through a crash of the machine)
    at most each SYNC_SECONDS, as an fsync takes this machine's disk 4-11 ms, on the teacher's
    keys' time: forty answers a second had cost 160 ms a second of it."""

    def __init__(self, path: str) -> None:
        """OSError if ``path`` cannot be appended to, is a link, or is not a regular file (a
        FIFO would hold the class up until something read it; a device would swallow it)."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
        try:
            fd = os.open(path, flags, 0o600)
        except OSError as error:
            if error.errno == errno.ENXIO:  # a FIFO nobody reads
                raise OSError(errno.ENXIO, NOT_REGULAR) from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, NOT_REGULAR)
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        self.file = os.fdopen(fd, "ab", buffering=0)
        self.path = path
        self.synced = time.monotonic()

    def write(
        self,
        student: str,
        beat: PredictBeat,
        answer: Answer,
        when: datetime.datetime | None = None,
        name: str | None = None,
        named: bool = False,
    ) -> None:
        """One answer's line; with ``named`` (--record-names), its ``name`` (None: anonymous)."""
        when = when or datetime.datetime.now(datetime.timezone.utc)
        record = {
            "time": when.isoformat(timespec="milliseconds"),
            "student": student[:MAX_STUDENT],
            **({NAME: name[:MAX_STUDENT] if name else None} if named else {}),
            "beat": answer.beat,
            "stage": beat.key,
            "row": answer.row,
            "guess": list(answer.guess),
        }
        line = json.dumps(record, ensure_ascii=False, allow_nan=False)
        self.file.write(
            line.encode("utf-8") + b"\n"
        )  # one write: O_APPEND puts it whole at the end
        if time.monotonic() - self.synced >= SYNC_SECONDS:
            os.fsync(self.file.fileno())
            self.synced = time.monotonic()

    def close(self) -> None:
        try:
            os.fsync(self.file.fileno())
        except OSError:
            pass
        self.file.close()


def read_line(line: bytes, beats: dict[int, PredictBeat]) -> Logged | str:
    """One line of a log, or why it is not a valid answer (it is skipped, and counted)."""
    if len(line) > MAX_LOG_LINE:
        return "too long"
    try:
        found = json.loads(line, parse_constant=_no_constant)
    except _NotANumber:
        return "a guess that is not a number"
    except (ValueError, RecursionError):
        return "not JSON"
    if not isinstance(found, dict) or set(found) - {NAME} != set(KEYS):
        return "not an answer object"
    time, student, beat, stage, row, guess = (found[key] for key in KEYS)
    name = found.get(NAME)
    if name is not None and (not isinstance(name, str) or clean_name(name) != name):
        return "a name that is not a first name"
    if (
        not isinstance(time, str)
        or not isinstance(student, str)
        or not student
        or len(student) > MAX_STUDENT
    ):
        return "no time or student"
    if type(beat) is not int or type(row) is not int or not isinstance(stage, str):
        return "no beat, stage or row"
    if not isinstance(guess, list) or len(guess) > MAX_CELLS:
        return "no guess"
    values: list[float | None] = []
    for value in guess:
        if value is None:
            values.append(None)
        elif type(value) in (int, float) and math.isfinite(value) and abs(value) <= MAX_MAGNITUDE:
            values.append(float(value))
        else:
            return "a guess that is not a number"
    if all(value is None for value in values):
        return "no guess"
    answer = Answer(beat, row, tuple(values))
    why = refusal(beats, answer)
    if why is None and beats[beat].key != stage:
        why = f"beat {beat} predicts {beats[beat].key}, not {stage}"
    return why if why is not None else Logged(time, student, answer, name)


class _NotANumber(ValueError):
    pass


def _no_constant(name: str):
    raise _NotANumber(
        f"{name} is not a number"
    )  # NaN, Infinity: Python's json reads them, JSON has none
