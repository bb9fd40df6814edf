"""``python -m tui``: the same as the ``attn-tui`` command."""

import sys

from tui.cli import main

sys.exit(main())
