"""A served app keeps recovery copies in the class folder, in a slot of its browser's own
(issue 23, item 4): a Ctrl+C on the server loses no student's edits, a student who comes back
in the same browser is offered theirs, and no browser is ever offered another's."""

from __future__ import annotations

import os
import shlex

import pytest

from attn_tui.core import load
from attn_tui.core.editing.recovery_slots import claim
from attn_tui.core.editing.save_root import RECOVERY_FOLDER, OutsideSaveRoot, SaveRoot
from attn_tui.core.editing.session import Session
from tests.conftest import SCENARIOS

CAT_SAT = SCENARIOS / "cat_sat.yaml"


@pytest.fixture
def room(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    return folder


def browser(room, name: str) -> str:
    return str(room / RECOVERY_FOLDER / name)


def test_an_app_takes_the_lowest_free_slot_of_its_browser(room):
    first, second = claim(browser(room, "a")), claim(browser(room, "a"))  # two tabs at once
    assert (os.path.basename(first.folder), os.path.basename(second.folder)) == ("1", "2")
    first.release()  # the first tab's app ended (a closed tab, Ctrl+C on the server)
    again = claim(browser(room, "a"))
    assert again.folder == first.folder  # the student back: the slot of the app that ended
    assert claim(browser(room, "b")).folder == browser(room, "b") + "/1"
    for held in (second, again):
        held.release()


def served(room, slot) -> Session:
    return Session(load(CAT_SAT), read_only=True, save_root=SaveRoot(room, recovery=slot.folder))


def test_a_served_apps_edits_come_back_to_its_browser_only(room, state_folder):
    slot = claim(browser(room, "a"))
    session = served(room, slot)
    session.set_cell("Q", 2, 1, 5.0)
    copy = session.journal.path
    assert copy.startswith(slot.folder + "/") and os.path.isfile(copy)
    assert not os.path.exists(state_folder / "attn-tui")  # nothing in the lecturer's own state
    slot.release()  # Ctrl+C: the app process ends; the copy stays
    other = claim(browser(room, "b"))  # another student, the same scenario
    assert served(room, other).journal.pending() is None
    back = claim(browser(room, "a"))
    found = served(room, back).journal.pending()
    assert found is not None and [e.value for e in found.edits] == [5.0]
    for held in (other, back):
        held.release()


def test_no_slot_no_copies(room, state_folder):
    session = Session(load(CAT_SAT), read_only=True, save_root=SaveRoot(room))
    session.set_cell("Q", 2, 1, 5.0)
    assert session.journal.path is None
    assert os.listdir(room) == [] and not os.path.exists(state_folder / "attn-tui")


@pytest.mark.parametrize(
    "name",
    [
        f"{RECOVERY_FOLDER}/x.yaml",
        f"{RECOVERY_FOLDER}/a/1/cat_sat.yaml.1.attn-recover",
        f"sub/../{RECOVERY_FOLDER}/y.yaml",
    ],
)
def test_a_student_cannot_save_into_the_recovery_folder(room, name):
    with pytest.raises(OutsideSaveRoot, match="where the class's unsaved edits are kept"):
        SaveRoot(room).resolve(name)


def test_the_recovery_folders_are_private(room):
    slot = claim(browser(room, "a"))
    for folder in (room / RECOVERY_FOLDER, browser(room, "a"), slot.folder):
        assert os.stat(folder).st_mode & 0o777 == 0o700
    slot.release()


# ---- the server: a cookie names the browser --------------------------------------------------


@pytest.fixture
async def server(room):
    from aiohttp.test_utils import TestClient, TestServer

    from attn_tui.tui.serve import ClassServer

    server = ClassServer("true", "127.0.0.1", 8000, "", max_apps=40, folder=str(room))
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    try:
        yield server, client
    finally:
        await client.close()


def recovery_dir(command: str) -> str:
    words = shlex.split(command)
    return words[words.index("--recovery-dir") + 1]


async def test_the_page_gives_a_browser_a_private_cookie_and_its_apps_one_folder(server, room):
    from aiohttp.test_utils import make_mocked_request

    server, client = server
    page = await client.get("/")
    assert page.status == 200
    cookie = page.cookies["attn-tui-browser"]
    assert len(cookie.value) == 32 and cookie["httponly"] and cookie["samesite"] == "Lax"
    again = await client.get("/")  # the same browser, reloading: its cookie stays
    assert "attn-tui-browser" not in again.cookies

    def command(cookie: str | None) -> str:
        headers = {"Cookie": f"attn-tui-browser={cookie}"} if cookie else {}
        return server.command_for(make_mocked_request("GET", "/ws", headers=headers))

    mine = recovery_dir(command(cookie.value))
    assert os.path.dirname(mine) == str(room / RECOVERY_FOLDER)
    assert cookie.value not in mine  # the folder's name does not give the cookie away
    assert recovery_dir(command(cookie.value)) == mine
    assert recovery_dir(command("0" * 32)) != mine
    # without a cookie (or with one attn-tui did not make) an app still keeps copies, in a
    # folder of its own that no later browser will find
    assert (
        len(
            {
                recovery_dir(command(None)),
                recovery_dir(command(None)),
                recovery_dir(command("../x")),
            }
        )
        == 3
    )
    assert all(
        os.path.dirname(recovery_dir(command(c))) == str(room / RECOVERY_FOLDER)
        for c in (None, "../../etc", "x" * 5000)
    )


@pytest.mark.parametrize("name", [".ATTN-TUI-RECOVERY/x.yaml", ".Attn-Tui-Recovery"])
def test_the_recovery_folder_is_refused_in_any_case(room, name):
    # (a case-insensitive file system would take these names for the folder itself)
    with pytest.raises(OutsideSaveRoot, match="where the class's unsaved edits are kept"):
        SaveRoot(room).resolve(name)


def test_the_server_tidies_the_slots_that_kept_nothing(room):
    from attn_tui.tui.serve import unsaved_browsers

    idle, busy = claim(browser(room, "idle")), claim(browser(room, "busy"))
    served(room, busy).set_cell("Q", 2, 1, 5.0)
    idle.release(), busy.release()  # the server stopped
    assert unsaved_browsers(str(room)) == 1
    assert sorted(os.listdir(room / RECOVERY_FOLDER)) == [
        "busy"
    ]  # a script's thousand visits leave nothing
