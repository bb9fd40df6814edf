"""Make docs/screenshot.svg, README's picture of the app, with the app itself.

    python docs/screenshot.py              # writes docs/screenshot.svg
    python docs/screenshot.py OUT.svg      # writes OUT.svg instead

The app runs headless (Textual's ``run_test``) on the built-in cat_sat at a fixed 120×40, steps
to Softmax (the key 4) and moves to the row "sat", then saves the screen with Textual's own
``export_screenshot``. As tests/tui/test_snapshots.py does, it opens the built-in read-only and
without the settings file, so the picture depends on neither the folder nor the user's theme;
the stage view has the focus, so no cursor blinks. tests/test_screenshot.py checks that the
checked-in SVG is what this script makes today.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE = (120, 40)
PRESS = ("4",)  # step to Softmax; the focus row is the scenario's own, "sat"
TITLE = "attn-tui scenarios/cat_sat.yaml"


async def screenshot() -> str:
    """The SVG of the app on cat_sat at Softmax."""
    from attn_tui.core import load
    from attn_tui.core.loading.catalog import find
    from attn_tui.tui.app import AttnApp

    app = AttnApp(load(find("cat_sat")), read_only=True, remember=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*PRESS)
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        return app.export_screenshot(title=TITLE)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else HERE / "screenshot.svg"
    out.write_text(asyncio.run(screenshot()), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))  # the checkout this script is in, as the tests use it
    sys.exit(main(sys.argv[1:]))
