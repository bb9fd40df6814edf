"""How an app takes part in lessons (``Classroom``), apart from the channel itself
(``tui.follow``): every app is given one, and most never follow or lead a class, so opening the
debugger need not import the channel's sockets and wire format."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attn_tui.tui.follow import Leader


@dataclass(frozen=True)
class Classroom:
    """How an app takes part in lessons: whether it plays a scenario's lesson (a served app
    only with --lesson), the channel it follows a teacher on, or the class it leads."""

    play: bool = True
    follow: str | None = None  # the channel's path (a served app of --serve --follow)
    leader: Leader | None = None  # the teacher's app of --serve --follow
    address: str = ""  # where the students open the class
    student: str = ""  # the id this app's answers go by (a served app: its browser's)
    names: bool = False  # the class asks each student's first name (--names)
    # --record-names: the teacher's log keeps the first names (a student's box says so)
    record_names: bool = False
    responses: str | None = None  # the teacher's log of answers (--responses FILE.jsonl)
    channel: str = ""  # the teacher's: the channel's path, which a terminal may --join
    name: str | None = None  # the first name this app sends (--names: asked; --join --name)
