"""The guesses shown are the guesses scored: a guess belongs
to the numbers it was made against and to its row; a beat predicting a row of the scenario's
``predict:`` shows the guesses typed there; undo and redo show the guesses and the reveal of the
state they go to; a beat's "put … back" notice goes when u takes the put-back away."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from tests.reference import softmax
from tests.tui_helpers import debugger, explanation, matrix, post, running

LESSON = """title: lesson attack
tokens: [a, b, c]
Q: [[1, 0], [0, 1], [1, 1]]
K: [[1, 0], [0, 1], [1, 1]]
V: [[1, 0], [0, 1], [0.5, 0.5]]
causal: false
predict: [weights]
lesson:
  - step: softmax
    row: c
    say: beat one no predict
  - step: softmax
    row: c
    predict: row
    say: beat two predicts c
  - edit: {matrix: Q, row: c, col: 1, to: 5}
    predict: row
    say: beat three edited Q c
  - say: beat four
"""
C = 2
K = np.array([[1.0, 0], [0, 1], [1, 1]])


def weights(q_c) -> np.ndarray:
    """Row c's weights by the formula: softmax(K q / √d_k), d_k = 2."""
    return softmax(K @ np.asarray(q_c, dtype=float) / np.sqrt(2))


def keys_of(typed: str) -> list[str]:
    """'0.1⇥0.2⏎ n' as the keys a person presses."""
    found: list[str] = []
    for word in typed.replace("⇥", " tab ").replace("⏎", " enter ").split():
        found.extend(list(word) if re.fullmatch(r"[\d.]+", word) else [word])
    return found


async def press(app, pilot, typed: str) -> None:
    for key in keys_of(typed):
        await post(app, key)
        await pilot.pause()


def lesson_file(tmp_path, text=LESSON):
    path = tmp_path / "les.yaml"
    path.write_text(text)
    return path


def score_said(why: str) -> tuple[int, int]:
    found = re.search(r"Score so far: (\d+) of (\d+)", why)
    return (int(found[1]), int(found[2])) if found else (0, 0)


def typed_said(why: str) -> int | None:
    found = re.search(r"(\d+) of 3 cells guessed", why)
    return int(found[1]) if found else None


def marks(guesses, actual) -> list[str]:
    return ["✓" if abs(g - w) <= 0.05 else "✗" for g, w in zip(guesses, actual)]


async def test_a_beat_shows_the_guesses_typed_under_predict_and_r_scores_what_is_shown(tmp_path):
    async with running(lesson_file(tmp_path)) as (app, pilot):
        view = debugger(app).stage_view
        await press(app, pilot, "0.1⇥0.2⇥0.3⏎")
        assert view.row_texts(C) == ["0.100?", "0.200?", "0.300?"]
        await press(app, pilot, "n")  # beat 2 predicts row c, in the same numbers: the same guesses
        assert view.row_texts(C) == ["0.100?", "0.200?", "0.300?"]
        assert typed_said(explanation(app)) == 3
        await press(app, pilot, "N")  # no guess at beat 2: beat 1 shows what the Why pane counts
        assert (
            view.row_texts(C) == ["0.100?", "0.200?", "0.300?"]
            and typed_said(explanation(app)) == 3
        )
        await press(app, pilot, "n 0.4⇥0.5⇥0.6⏎ N")
        assert view.row_texts(C) == ["0.400?", "0.500?", "0.600?"]
        await press(app, pilot, "r")
        actual = weights([1, 1])
        expected = marks([0.4, 0.5, 0.6], actual)
        assert [text[-1] for text in view.row_texts(C)] == expected
        why = explanation(app)
        assert "a: 0.400 → actual" in why and "0.100" not in why
        assert score_said(why) == (expected.count("✓"), 3)
        assert view.border_subtitle == f"{expected.count('✓')}/3 close"


async def test_undo_and_redo_across_the_lessons_edit_show_the_state_they_go_to(tmp_path):
    async with running(lesson_file(tmp_path)) as (app, pilot):
        screen = debugger(app)
        view, session = screen.stage_view, screen.session
        before, after = weights([1, 1]), weights([5, 1])  # beat 3 sets Q[c, 1] (from 1) to 5
        first = marks([0.4, 0.5, 0.6], before)
        await press(app, pilot, "n 0.4⇥0.5⇥0.6⏎ r n 0.7⇥0.1⇥0.2⏎")
        assert view.row_texts(C) == ["0.700?", "0.100?", "0.200?"]
        assert "Your turn" in str(screen.narration.render())
        await press(app, pilot, "u")
        assert session.cell("Q", C, 0) == 1.0
        bar = str(screen.narration.render())  # nothing left to guess in these numbers: the beat's
        assert "guess this row" not in bar and "U puts them back" in bar  # own are put back with U
        assert [text[-1] for text in view.row_texts(C)] == first  # beat 2's row, revealed
        assert view.row_texts(C)[0].startswith(f"{before[0]:.3f}")
        await press(app, pilot, "r")  # nothing left to reveal in these numbers: the score stands
        assert score_said(explanation(app)) == (first.count("✓"), 3)
        await press(app, pilot, "U")
        assert session.cell("Q", C, 0) == 5.0
        assert view.row_texts(C) == ["0.700?", "0.100?", "0.200?"]  # never revealed here
        assert "Your turn" in str(screen.narration.render())
        assert typed_said(explanation(app)) == 3
        await press(app, pilot, "r")
        second = marks([0.7, 0.1, 0.2], after)
        assert [text[-1] for text in view.row_texts(C)] == second
        assert score_said(explanation(app)) == (first.count("✓") + second.count("✓"), 6)


async def test_the_put_back_notice_goes_when_u_takes_the_put_back_away(tmp_path):
    text = LESSON.replace("predict: [weights]\n", "").replace("    predict: row\n", "")
    async with running(lesson_file(tmp_path, text)) as (app, pilot):
        screen = debugger(app)
        session = screen.session

        def notice() -> bool:
            return "back to the lesson's values" in str(screen.narration.render())

        await press(app, pilot, "n n tab")  # beat 3: Q[c, 1] = 5; the Q matrix focused
        assert app.focused is matrix(app, "Q")
        await press(app, pilot, "down down 3 enter")
        assert session.cell("Q", C, 0) == 3.0  # the student's own value
        await press(app, pilot, "N")  # beat 2 has Q[c, 1] = 1: the student's 3 put back
        assert session.cell("Q", C, 0) == 1.0 and notice()
        await press(app, pilot, "u")
        assert session.cell("Q", C, 0) == 3.0 and not notice()
        await press(app, pilot, "U")
        assert session.cell("Q", C, 0) == 1.0 and notice()


class Rule:
    """The rule, written out for les.yaml alone: a row's guesses per state (the value of Q[c, 1]:
    1 or 5), each with whether it was revealed; the row shows the entry of the state it is in, or
    where it has none, the one it showed last; a beat predicting the row (beats 2 and 3) shows
    the entry of its state, made if there is none; the score counts every revealed entry once."""

    def __init__(self) -> None:
        self.entries: dict[float, dict] = {}
        self.shown: float | None = None

    def entry(self, state: float) -> dict:
        return self.entries.setdefault(state, {"guesses": [None] * 3, "revealed": False})

    def moved(self, state: float, entered_beat: int | None) -> None:
        if state in self.entries:
            self.shown = state
        if entered_beat in (1, 2):
            self.entry(state)
            self.shown = state

    def hidden(self) -> bool:
        return self.shown is None or not self.entries[self.shown]["revealed"]

    def guessed(self, state: float, col: int, value: float) -> None:
        self.entry(state)["guesses"][col] = value
        self.shown = state

    def revealed(self, state: float) -> None:
        if self.shown is None or all(g is None for g in self.entries[self.shown]["guesses"]):
            self.shown = state
        self.entry(self.shown)["revealed"] = True

    def texts(self, state: float) -> list[str]:
        """Row c as the screen should draw it."""
        entry = self.entries.get(self.shown, {"guesses": [None] * 3, "revealed": False})
        if not entry["revealed"]:
            return ["?" if g is None else f"{g:.3f}?" for g in entry["guesses"]]
        actual = weights([state, 1])
        here = self.shown == state  # marks only beside the numbers the guesses were about
        return [
            f"{w:.3f}" + ("" if g is None or not here else marks([g], [w])[0])
            for g, w in zip(entry["guesses"], actual)
        ]

    def score(self) -> tuple[int, int]:
        close = judged = 0
        for state, entry in self.entries.items():
            if entry["revealed"]:
                actual = weights([state, 1])
                for g, w in zip(entry["guesses"], actual):
                    if g is not None:
                        judged += 1
                        close += abs(g - w) <= 0.05
        return close, judged


@pytest.mark.parametrize("seed", range(8))
async def test_random_keys_never_show_a_guess_that_is_not_the_one_scored(tmp_path, seed):
    """Any sequence of guesses, n, N, u, U and r: the row shows what the rule says and what the
    Why pane counts, and the score is the rule's, by formula: nothing shown that is not scored,
    nothing scored that was not shown, nothing lost."""
    rng = random.Random(seed)
    rule = Rule()
    async with running(lesson_file(tmp_path)) as (app, pilot):
        screen = debugger(app)
        view, session, player = screen.stage_view, screen.session, screen.lessons.player
        done = []
        for _ in range(40):
            action = rng.choice(["guess"] * 3 + ["n", "n", "N", "N", "u", "u", "U", "U", "r"])
            state = session.cell("Q", C, 0)
            assert screen.revealable() == rule.hidden(), done
            if action == "guess":
                if not rule.hidden():
                    continue
                col = view.cursor[1] if view.cursor is not None else 0  # the rest of the row, typed
                values = [rng.randint(1, 9) / 10 for _ in range(col, 3)]
                await press(app, pilot, "⇥".join(str(value) for value in values) + "⏎")
                for j, value in enumerate(values, start=col):
                    rule.guessed(state, j, value)
            elif action == "r":
                await press(app, pilot, "r")
                if rule.hidden():
                    rule.revealed(state)
            else:
                waiting = action == "n" and player.current.predict and rule.hidden()
                await press(app, pilot, action)
                goes = action in "nN" and not waiting
                rule.moved(session.cell("Q", C, 0), player.beat if goes else None)
            done.append(action)
            why, texts = explanation(app), view.row_texts(C)
            assert texts == rule.texts(session.cell("Q", C, 0)), (done, why)
            assert score_said(why) == rule.score(), (done, why)
            if rule.hidden():  # a row to guess: the Why pane counts the guesses shown
                assert typed_said(why) == sum(text != "?" for text in texts), (done, why)


async def test_n_waits_for_a_beat_s_question_when_u_took_its_edit_back(tmp_path):
    """The second attack: at beat 3 (it sets Q[c, 1] to 5 and asks for row c), u took the edit
    back, beat 2's numbers and their revealed row came back, and n went on to beat 4 with beat 3's
    question never answered. n now waits and says how to put the beat's numbers back."""
    async with running(lesson_file(tmp_path)) as (app, pilot):
        screen = debugger(app)
        player = screen.lessons.player
        await press(app, pilot, "n 0.4⇥0.5⇥0.6⏎ r n 0.1⏎ u")
        assert player.beat == 2 and screen.session.cell("Q", C, 0) == 1.0  # (the lesson's col 1)
        await press(app, pilot, "n")
        assert player.beat == 2  # not on to beat 4
        said = [notice.message for notice in app._notifications]
        assert any("which u took back: U puts them back" in m for m in said), said
        await press(app, pilot, "U")
        assert screen.session.cell("Q", C, 0) == 5.0
        await press(app, pilot, "r n")  # its question answered in its own numbers: n goes on
        assert player.beat == 3
