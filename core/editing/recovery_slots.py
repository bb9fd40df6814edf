"""Where a served app keeps its recovery copies: a folder per browser, a slot per app.

``attn-tui --serve`` gives each browser a folder of its own inside the class folder, named
after a random cookie the page sets (its digest: the folder's name does not give the cookie
away). The app a browser starts takes the lowest-numbered slot of that folder that no running
app holds: a lock held for the app's life, which the system lets go when the process ends,
however it ends (Ctrl+C on the server, a closed tab, a crash). So a student who comes back, in
the same browser, to a server started again on the same folder gets the slot their last app
had and is offered its unsaved edits, as a terminal user is; two tabs open at once hold two
slots and never write over each other's copy; and no browser is ever offered another's.
Standard library only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from attn_tui.core.files import private_files

MAX_SLOTS = 64  # apps of one browser at once; past that, an app keeps no copies
LOCK = "in-use"


@dataclass(frozen=True)
class Slot:
    """A slot held by this process: its folder, and the lock's descriptor."""

    folder: str
    fd: int

    def release(self) -> None:
        """Let the slot go (the process ending does the same)."""
        os.close(self.fd)


def claim(browser_folder: str) -> Slot:
    """The lowest-numbered free slot of ``browser_folder`` (folders made private as needed),
    held until released; ``OSError`` if none can be had."""
    private_files.make(os.path.dirname(browser_folder))  # every browser's folders, 0700 too
    private_files.make(browser_folder)
    for number in range(1, MAX_SLOTS + 1):
        folder = os.path.join(browser_folder, str(number))
        fd = private_files.hold(folder, LOCK)
        if fd is not None:
            return Slot(folder, fd)
    raise OSError(f"{MAX_SLOTS} apps of this browser are running already")
