"""Serving the app to a class (``attn-tui --serve``): the served app's saves, the command line."""

from __future__ import annotations

import os
import shlex
import socket
import sys

import pytest
from textual.widgets import Input

from attn_tui.core import load
from attn_tui.core.editing.save_root import SaveRoot
from attn_tui.tui.app import AttnApp
from attn_tui.tui.screens.save_as import SaveAsScreen
from tests.conftest import SCENARIOS
from tests.tui_helpers import delivered_to_browser


async def save_as(app, pilot, name: str) -> list[str]:
    """Ctrl+S, type ``name`` into Save As, Enter; the notifications that followed."""
    before = len(app._notifications)
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert isinstance(app.screen, SaveAsScreen)
    app.screen.query_one(Input).value = name
    await pilot.press("enter")
    await pilot.pause()
    return [n.message for n in list(app._notifications)[before:]]


async def test_a_served_app_saves_only_in_its_folder_and_says_where(tmp_path, monkeypatch):
    root, elsewhere = tmp_path / "class", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    served = SCENARIOS / "cat_sat.yaml"
    before = served.read_text()
    app = AttnApp(load(served), read_only=True, save_root=SaveRoot(root))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")  # an edit: causal off
        said = await save_as(app, pilot, "../escape.yaml")
        assert any("outside the folder this class saves in" in message for message in said), said
        said = await save_as(app, pilot, "mine.yaml")
        saved = os.path.join(os.path.realpath(root), "mine.yaml")
        assert any(message.startswith(f"Saved {saved} ") for message in said), said
        assert not app.screen.session.modified
        app.theme = "textual-light"  # a student's choice, not remembered for the next one
        await pilot.pause()
    assert sorted(os.listdir(root)) == ["mine.yaml"] and os.listdir(elsewhere) == []
    assert not os.path.exists(os.path.join(os.environ["XDG_CONFIG_HOME"], "attn-tui"))
    assert not (tmp_path / "escape.yaml").exists()
    assert load(saved).options.causal is False
    assert served.read_text() == before


# ---- the command line ------------------------------------------------------------------------


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    from attn_tui.tui.cli import main

    try:
        status = main(list(args))
    except SystemExit as exit:  # argparse's usage errors
        status = exit.code
    out, err = capsys.readouterr()
    return status, out, err


def test_without_textual_serve_one_line_says_what_to_install(capsys, monkeypatch, tmp_path):
    for name in ("textual_serve", "textual_serve.server", "attn_tui.tui.serve"):
        monkeypatch.setitem(sys.modules, name, None)  # None: "import it" fails
    monkeypatch.delitem(sys.modules, "attn_tui.tui.serve")
    status, out, err = run_cli(capsys, "--serve", "cat_sat", "--serve-dir", str(tmp_path / "c"))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "pip install 'attn-tui[serve]'" in err, err
    assert not (tmp_path / "c").exists()


def test_a_port_in_use_is_one_clear_line(capsys, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, out, err = run_cli(
            capsys, "--serve", "cat_sat", "--port", str(port), "--serve-dir", str(tmp_path / "c")
        )
    assert status == 2 and out == ""
    assert err == f"attn-tui: port {port} is in use on 127.0.0.1; choose another with --port\n"
    assert not (tmp_path / "c").exists()  # nothing made before the port was known to be free


@pytest.mark.parametrize(
    "args, message",
    [
        (["--host", "0.0.0.0", "cat_sat"], "--host goes with --serve"),
        (["--port", "8000"], "--port goes with --serve"),
        (["--serve-dir", "x", "cat_sat"], "--serve-dir goes with --serve"),
        (["--serve", "--port", "0"], "a port is a number from 1 to 65535"),
        (["--serve", "--port", "70000"], "a port is a number from 1 to 65535"),
        (["--serve", "--json", "cat_sat"], "give one mode: --serve and --json are two"),
        (["--serve", "--save-root", "/tmp"], "--save-root is how --serve starts each app"),
        (["--serve", "--present", "cat_sat"], "--present goes with the app (attn-tui FILE)"),
    ],
)
def test_serving_options_are_checked(capsys, args, message):
    status, _, err = run_cli(capsys, *args)
    assert status == 2 and message in err, err


def test_a_bad_scenario_is_told_before_serving(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("tokens: [a, b]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0]]\nV: [[1, 0], [0, 1]]\n")
    status, out, err = run_cli(capsys, "--serve", str(bad), "--port", "1")
    assert status == 2 and out == ""
    assert err.startswith(f"{bad}:3:") and "K" in err, err


def test_a_served_app_needs_an_existing_folder(capsys, tmp_path):
    status, _, err = run_cli(capsys, "--save-root", str(tmp_path / "missing"), "cat_sat")
    assert status == 2 and "is not a folder" in err, err


# ---- the server's parts ----------------------------------------------------------------------


def test_the_banner_warns_when_other_machines_can_connect():
    from attn_tui.tui.serve import banner

    here = banner("cat_sat", "127.0.0.1", 8000, "/tmp/class")
    assert here.splitlines()[0] == "attn-tui: serving cat_sat at http://127.0.0.1:8000"
    assert "saves go to /tmp/class" in here and "warning" not in here
    for host in ("0.0.0.0", "::", "192.0.2.7"):
        lines = banner("cat_sat", host, 8000, "/tmp/class").splitlines()
        warnings = [line for line in lines if "warning" in line]
        assert len(warnings) == 1 and "anyone who reaches port 8000 gets an app" in warnings[0]
    named = socket.gethostname()
    assert f"at http://{named}:8000 (or this machine's IP address" in banner(
        "x", "0.0.0.0", 8000, "/c"
    )
    assert "at http://192.0.2.7:8000" in banner("x", "192.0.2.7", 8000, "/c")
    assert "at http://[::1]:8000" in banner("x", "::1", 8000, "/c")
    assert "␛[31m" in banner("\x1b[31m", "127.0.0.1", 1, "/c")


@pytest.mark.parametrize(
    "host, loopback",
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LOCALHOST.", True),
        ("app.localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.0.2.7", False),
        ("localhost.example.com", False),
        ("evil.example", False),
        ("", False),
    ],
)
def test_loopback_means_this_machine_only(host, loopback):
    from attn_tui.tui.serve import is_loopback

    assert is_loopback(host) is loopback


def test_each_app_is_started_with_its_folder_whatever_the_names_hold():
    from attn_tui.tui.serve import app_command

    command = app_command("/a b/it's $(rm -rf x).yaml", "/class room/`x`")
    assert shlex.split(command) == [
        sys.executable,
        "-m",
        "attn_tui",
        "open",
        "--save-root",
        "/class room/`x`",
        "/a b/it's $(rm -rf x).yaml",
    ]
    assert shlex.split(app_command(None, "/c")) == [
        sys.executable,
        "-m",
        "attn_tui",
        "open",
        "--save-root",
        "/c",
    ]


@pytest.mark.parametrize(
    "bound, host, origin, allowed",
    [
        ("127.0.0.1", "127.0.0.1:8000", "http://127.0.0.1:8000", True),
        ("127.0.0.1", "localhost:8000", "http://localhost:8000", True),
        ("127.0.0.1", "127.0.0.1:8000", None, True),  # not a browser: nothing to forge
        ("127.0.0.1", "127.0.0.1:8000", "https://evil.example", False),  # a page from elsewhere
        ("127.0.0.1", "evil.example:8000", "http://evil.example:8000", False),  # DNS rebinding
        ("0.0.0.0", "lecture-hall:8000", "http://lecture-hall:8000", True),
        ("0.0.0.0", "lecture-hall:8000", "http://evil.example", False),
    ],
)
def test_an_app_starts_only_for_this_servers_own_page(bound, host, origin, allowed):
    from aiohttp import web
    from aiohttp.test_utils import make_mocked_request

    from attn_tui.tui.serve import ClassServer

    server = ClassServer("true", bound, 8000, "", max_apps=40)
    headers = {"Host": host} | ({"Origin": origin} if origin else {})
    request = make_mocked_request("GET", "/ws", headers=headers)
    if allowed:
        server.refuse_foreign(request)
    else:
        with pytest.raises(web.HTTPForbidden):
            server.refuse_foreign(request)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_serve_dir_that_is_a_file_says_so(capsys, tmp_path):
    named = tmp_path / "notes.txt"
    named.write_text("a lecturer's notes\n")
    status, out, err = run_cli(
        capsys, "--serve", "cat_sat", "--port", str(free_port()), "--serve-dir", str(named)
    )
    assert status == 2 and out == ""
    assert err == (
        f"attn-tui: --serve-dir {named} is a file, not a folder; "
        "give a folder (it is made if missing)\n"
    )
    assert named.read_text() == "a lecturer's notes\n"


# ---- a cap on running apps ---------------------------------------------------------------------


@pytest.fixture
async def class_of_two(tmp_path):
    """A ClassServer of at most two apps, on a test port; each "app" a process that waits for
    the server's first message on its standard input (quit, when the browser leaves)."""
    from aiohttp.test_utils import TestClient, TestServer

    from attn_tui.tui.serve import ClassServer

    server = ClassServer("head -c 1 >/dev/null", "127.0.0.1", 8000, "", max_apps=2)
    client = TestClient(TestServer(await server._make_app()))
    await client.start_server()
    try:
        yield server, client
    finally:
        await client.close()


async def connected(server, client, count: int) -> list:
    import asyncio

    sockets = [await client.ws_connect("/ws") for _ in range(count)]
    for _ in range(100):  # the server counts an app once it has started it
        if len(server.connections) >= count:
            break
        await asyncio.sleep(0.02)
    return sockets


async def test_the_browser_past_max_apps_gets_a_page_saying_the_class_is_full(class_of_two):
    server, client = class_of_two
    sockets = await connected(server, client, 2)
    page = await client.get("/")
    assert page.status == 503 and page.content_type == "text/plain"
    text = await page.text()
    assert text.startswith(
        "attn-tui: the class is full: 2 apps are running, the most this server starts"
    )
    assert "<" not in text  # a plain page, nothing to render
    refused = await client.get("/ws")  # a page loaded before the class filled cannot start a third
    assert refused.status == 503 and len(server.connections) == 2
    await sockets[0].close()
    for _ in range(100):
        if len(server.connections) < 2:
            break
        import asyncio

        await asyncio.sleep(0.02)
    assert (await client.get("/")).status == 200  # someone left: the next browser gets an app
    await sockets[1].close()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--max-apps", "0"], "--max-apps is a number of apps from 1 up"),
        (["--max-apps", "3", "cat_sat"], "--max-apps goes with --serve"),
    ],
)
def test_max_apps_is_checked(capsys, args, message):
    status, _, err = run_cli(capsys, *(["--serve"] if args[-1] != "cat_sat" else []), *args)
    assert status == 2 and message in err, err


# ---- a student takes their saved scenario home ---------------------------------------------------


async def test_a_served_app_hands_the_saved_scenario_to_the_browser(tmp_path, monkeypatch):
    root = tmp_path / "class"
    root.mkdir()
    monkeypatch.chdir(root)
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), read_only=True, save_root=SaveRoot(root))
    delivered = delivered_to_browser(app, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        said = await save_as(app, pilot, "my work; v2.yaml")
        assert any("ctrl+p Download" in message for message in said), said  # told how to get it
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"download")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
    saved = root / "my work; v2.yaml"
    # the bytes on disk, under a name no Content-Disposition header can misread
    assert delivered == [(saved.read_bytes(), "my_work__v2.yaml", "application/yaml")]


async def test_only_a_served_app_offers_the_download():
    # in a terminal, Textual's deliver_binary writes to ~/Downloads: Save already wrote the file
    app = AttnApp(load(SCENARIOS / "cat_sat.yaml"), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        titles = [command.title for command in app.get_system_commands(app.screen)]
    assert "Toggle the causal mask" in titles and not any("Download" in t for t in titles)


@pytest.mark.parametrize(
    "name, shown",
    [
        ("mine.yaml", "mine.yaml"),
        ("my work; v2.yaml", "my_work__v2.yaml"),
        ('a"b\\c.yaml', "a_b_c.yaml"),
        ("çà.yaml", "scenario.yaml"),
        ("...", "scenario.yaml"),
        ("x" * 300 + ".yaml", "x" * 95 + ".yaml"),
    ],
)
def test_a_download_name_is_plain_ascii(name, shown):
    from attn_tui.core.editing.save_root import download_name

    assert download_name(name) == shown


def test_the_banner_says_a_page_is_blank_for_its_first_seconds():
    """Issue 29: a teacher took textual-serve's blank first seconds for a broken class."""
    from attn_tui.tui.serve import FIRST_SECONDS, banner

    text = banner("cat_sat", "127.0.0.1", 8000, "/tmp/class")
    assert (
        f"stays blank for its first {FIRST_SECONDS} seconds" in text
        and "rather than reload" in text
    )
