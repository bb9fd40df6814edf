"""A smoke run of attn-tui on another Python (CI runs it with each interpreter the machine has
besides the suite's): --json of the chapter's example and of the training built-in, checked
against numbers written here by hand, and the app driven headless to the chapter's softmax.

    python .ci/smoke.py          # with attn-tui installed in that Python
"""

import asyncio
import json
import math
import subprocess
import sys


def main() -> int:
    out = subprocess.run(
        [sys.executable, "-m", "attn_tui", "--json", "cat_sat"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    weights = json.loads(out)["weights"][2]
    e = math.exp(1 / math.sqrt(2))
    expected = [
        e / (2 * e + e * e),
        e / (2 * e + e * e),
        e * e / (2 * e + e * e),
    ]  # "sat": the chapter's 25/25/50
    assert all(abs(a - b) < 1e-12 for a, b in zip(weights, expected)), weights
    out = subprocess.run(
        [sys.executable, "-m", "attn_tui", "--json", "learning_to_attend"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    losses = json.loads(out)["training"]["loss"]
    assert len(losses) == 201 and losses[-1] < losses[0] / 1000, losses[::50]
    asyncio.run(app())
    print(f"smoke: ok on Python {sys.version.split()[0]}")
    return 0


async def app() -> None:
    from attn_tui.core import load
    from attn_tui.core.loading.catalog import find
    from attn_tui.tui.app import AttnApp

    app = AttnApp(load(find("cat_sat")), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("4")
        text = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "sum        = 8.169" in text, text


if __name__ == "__main__":
    sys.exit(main())
