"""``attn-tui LESSON --join``: a terminal on the teacher's machine follows the class that
``serve LESSON --follow`` leads, as a browser's app does (its beats; its answers to the teacher).

Who can join is who can open the channel: a Unix-domain socket in a folder that only the
teacher's user may enter (0700). So a terminal of the teacher's own user joins (a lab whose
students SSH in to one shared class account, or the teacher's second screen), and no other
user of the machine can, nor any other machine: the same rule as the class's browsers' apps,
which the teacher's server starts as the teacher's user."""

from __future__ import annotations

import glob
import os
import socket
import stat
import tempfile

from attn_tui.core.classroom.wire import clean_name
from attn_tui.core.text import visible
from attn_tui.tui.classroom import Classroom
from attn_tui.tui.cli.streams import say

PATTERN = "attn-tui-follow-*/beats"  # as tui.follow.channel_socket makes them


def led_here() -> list[str]:
    """The channels of classes this user leads on this machine now (a socket someone listens on)."""
    found = []
    for path in sorted(glob.glob(os.path.join(tempfile.gettempdir(), PATTERN))):
        try:
            info = os.lstat(path)
            folder = os.lstat(os.path.dirname(path))
        except OSError:
            continue
        if (
            not stat.S_ISSOCK(info.st_mode)
            or info.st_uid != os.getuid()
            or folder.st_uid != os.getuid()
            or stat.S_IMODE(folder.st_mode) & 0o077
        ):
            continue  # another user's, or a folder others may enter: not a class of this user's
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(1)
            try:
                probe.connect(path)
            except OSError:
                continue  # left behind by a class that ended
        found.append(path)
    return found


def joined_classroom(parser, args, scenario) -> Classroom | None:
    """The classroom of ``--join`` (None: said why not)."""
    if args.join is None:
        parser.error("--name goes with --join: attn-tui LESSON --join --name Ada")
    if args.present:
        parser.error(
            "--join follows the teacher's beats in the debugger; press p there for projector mode"
        )
    if scenario.lesson is None:
        say(
            f"attn-tui: {visible(scenario.path or 'this scenario')}: has no lesson: "
            "(--join follows a lesson)"
        )
        return None
    name = None
    if args.name is not None:
        name = clean_name(args.name)
        if name is None:
            parser.error(
                f"--name {visible(args.name)}: a first name is letters "
                "(and spaces, - or ' between), up to 24"
            )
    if args.join:
        channel = args.join
        if not os.path.exists(channel):
            say(f"attn-tui: --join {visible(channel)}: no such channel (is the class still led?)")
            return None
    else:
        channels = led_here()
        if not channels:
            say(
                "attn-tui: --join: no class is led on this machine by this user now; start one "
                "with attn-tui serve LESSON --follow (docs/classroom.md: who can join)"
            )
            return None
        if len(channels) > 1:
            say(
                "attn-tui: --join: more than one class is led here; give one: "
                + ", ".join(f"--join {visible(channel)}" for channel in channels)
            )
            return None
        channel = channels[0]
    return Classroom(play=True, follow=channel, names=name is not None, name=name)
