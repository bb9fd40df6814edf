"""``python -m attn_tui``: the same as the ``attn-tui`` command."""

import sys

from attn_tui.tui.cli import main

sys.exit(main())
