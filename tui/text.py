"""The one place the app turns text from outside (a file, an argument, the keyboard) into text
on screen: made visible (``core.text.visible``) and never parsed as markup.

Textual parses a plain ``str`` given as a border title or a notification as markup, so a token
``[/INST]`` would crash it and ``[@click=app.quit]`` would become a live link; a ``Content`` is
shown as it is.
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from attn_tui.core.text import visible


def plain(text: str, multiline: bool = False) -> Content:
    """``text`` made visible, as content that is never markup."""
    return Content(visible(text, multiline))


def tell(
    widget: Widget,
    message: str,
    *,
    title: str = "",
    severity: str = "information",
    timeout: float | None = None,
) -> None:
    """A notification whose message and title are shown literally."""
    widget.notify(
        visible(message, multiline=True),
        title=visible(title),
        severity=severity,
        timeout=timeout,
        markup=False,
    )


def set_titles(widget: Widget, title: str | None = None, subtitle: str | None = None) -> None:
    """Set a widget's border title and subtitle (outside text made visible, never markup),
    only when they change: setting one repaints the whole widget."""
    for name, text in (("border_title", title), ("border_subtitle", subtitle)):
        if text is not None and getattr(widget, f"_shown_{name}", None) != text:
            setattr(widget, f"_shown_{name}", text)
            setattr(widget, name, plain(text))
