"""The debugger screen's controllers, one concern each: what the panes show (``panes``, with the
Why pane's ``why_pane`` and the overview's ``overview_pane``), the keys that move the position
(``moves``), the changes made to the numbers (``changes``), the student's guesses (``guesses``),
the lesson keys (``lessons``) and the files (``saving``). Each holds the screen it works for; the
screen composes the widgets, keeps the one position (step, row, column, head) and routes keys to
them; a controller tells the screen what it did (``after_change``, ``after_guess``), never another
controller."""


def delegate(controller: str, method: str):
    """A screen's action whose work is one of its controllers' methods: in the screen's class,
    ``action_next_beat = delegate("lessons", "next")`` calls ``self.lessons.next()``, with the
    key's parameters (``toggle('decode')``) passed on."""

    def action(self, *parameters):
        return getattr(getattr(self, controller), method)(*parameters)

    action.__doc__ = f"The key's work: self.{controller}.{method}()."
    return action
