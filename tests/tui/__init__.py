"""The app in a terminal, driven by keys (Textual's Pilot): screens, lessons, editing cells, themes,
snapshots, text widths."""
