"""attn-tui's terminal front end: the command line and the Textual app.

Importing this package imports nothing heavy; ``attn_tui.tui.cli`` loads Textual only when the
app is about to start, so the headless modes stay quick.
"""
