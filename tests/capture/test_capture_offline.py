"""Offline, capture says at once that the Hugging Face Hub cannot be reached (issue 23): it
printed ~26 s of retries before its one clear line. Runs without PyTorch (huggingface_hub only)."""

from __future__ import annotations

import socket
import time

import pytest

from tests.conftest import NEEDS_MODELS

pytest.importorskip(
    "huggingface_hub", reason="needs huggingface_hub, which transformers brings: " + NEEDS_MODELS
)

from attn_tui.capture.errors import CaptureError  # noqa: E402
from attn_tui.capture.model_source import locate  # noqa: E402

pytestmark = pytest.mark.models

NOT_CACHED = "attn-tui-tests/not-in-any-cache"


@pytest.fixture
def online(monkeypatch, tmp_path):
    """No offline switch, and an empty cache: a name must come from the Hub."""
    from huggingface_hub import constants

    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    return constants


def refused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again: nothing listens there


@pytest.fixture
def silent_server():
    """A port that accepts connections and never answers (a network that swallows packets)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


@pytest.mark.parametrize("endpoint", ["http://nowhere.invalid", "refused", "silent"])
def test_an_unreachable_hub_is_said_once_within_two_seconds(
    online, monkeypatch, capsys, endpoint, silent_server
):
    if endpoint == "refused":
        endpoint = f"http://127.0.0.1:{refused_port()}"
    elif endpoint == "silent":
        endpoint = f"http://127.0.0.1:{silent_server}"
    monkeypatch.setattr(online, "ENDPOINT", endpoint)
    started = time.perf_counter()
    with pytest.raises(CaptureError) as refused:
        locate(NOT_CACHED)
    took = time.perf_counter() - started
    assert took < 2.5, took
    message = str(refused.value)
    assert message.startswith(
        f'"{NOT_CACHED}": not in the local Hugging Face cache, and the Hub '
        f"({endpoint}) cannot be reached"
    ), message
    for advice in ("a model folder", "HF_HUB_OFFLINE=1"):
        assert advice in message, message
    assert "\n" not in message and capsys.readouterr() == ("", "")


def test_a_reachable_hub_is_left_to_download(online, monkeypatch):
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from threading import Thread

    class Hub(BaseHTTPRequestHandler):
        def do_HEAD(self):
            self.send_response(404)  # any answer at all: the Hub is there
            self.end_headers()

        def log_message(self, *args):
            pass

    with HTTPServer(("127.0.0.1", 0), Hub) as hub:
        Thread(target=hub.serve_forever, daemon=True).start()
        monkeypatch.setattr(online, "ENDPOINT", f"http://127.0.0.1:{hub.server_address[1]}")
        source = locate(NOT_CACHED)
        hub.shutdown()
    assert source.location == NOT_CACHED and not source.local_files_only
