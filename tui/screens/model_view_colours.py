"""The model view's ``s``: every head coloured by a pattern score (core.teaching.patterns), its
border by the score's fifth and the score on the map's first line. The scores of every layer are
computed in a worker, once, the first time a pattern is asked for. A part of ModelViewScreen
(tui/screens/model_view.py), kept apart as the one concern it is."""

from __future__ import annotations

from textual import work
from textual.content import Content
from textual.widgets import Static
from textual.worker import get_current_worker

from attn_tui.core.errors import ScenarioError
from attn_tui.core.teaching.patterns import PATTERNS
from attn_tui.tui.text import tell
from attn_tui.tui.widgets.head_map import HeadMap

SCORES = (None, *PATTERNS)  # what ``s`` cycles through: no colouring, then each pattern
LEVELS = 5  # border colours by a score's fifth: -score-0 … -score-4


class PatternColours:
    """Mixed into ModelViewScreen, which holds ``index``, ``listed``, ``score``, ``scores`` and
    the map widgets (``_cells``), and says its hint (``_hint``)."""

    def action_next_score(self) -> None:
        self.score = SCORES[(SCORES.index(self.score) + 1) % len(SCORES)]
        if self.score is not None and self.scores is None:
            self._scores()
        self._colour()

    @work(thread=True, exclusive=True, group="scores")
    def _scores(self) -> None:
        from attn_tui.core.loading.model_index import load_layer
        from attn_tui.core.loading.work_estimate import check_index_work
        from attn_tui.core.teaching.patterns import scenario_scores

        worker = get_current_worker()
        try:  # the 20 s rule of heads and figure --model-view holds for s too (issue 47, attacked)
            check_index_work(self.index)
        except ScenarioError as error:
            self.app.call_from_thread(self._scores_refused, str(error))
            return
        found = {}
        for row, entry in enumerate(self.index.layers):
            if self.listed[row][2] is not None:
                continue
            try:
                heads = scenario_scores(load_layer(entry), entry.layer)
            except ScenarioError:
                continue
            if worker.is_cancelled:
                return
            found.update({(row, head.head): head.scores for head in heads})
        self.app.call_from_thread(self._scores_ready, found)

    def _scores_refused(self, problem: str) -> None:
        """The scores would take too long: say so, and go back to no colouring."""
        self.score = None
        self._colour()
        tell(
            self.app,
            f"s: {problem} (attn-tui heads INDEX --layers … scores fewer)",
            severity="warning",
            timeout=12,
        )

    def _scores_ready(self, found: dict) -> None:
        self.scores = found
        self._colour()

    def _colour(self) -> None:
        for view in self._cells():
            self._colour_one(view)
            view.refresh()
        self.query_one("#model-hint", Static).update(Content(self._hint()))

    def _colour_one(self, view: HeadMap) -> None:
        value = (
            None
            if self.score is None or self.scores is None
            else self.scores.get((view.grid_row, view.head), {}).get(self.score)
        )
        for level in range(1, LEVELS):
            view.set_class(
                value is not None and min(LEVELS - 1, int(value * LEVELS)) == level,
                f"-score-{level}",
            )
        if view.score_text == "unreadable" and view.small is None:
            return
        if self.score is None:
            view.score_text = ""
        elif self.scores is None:
            view.score_text = "scoring…"
        else:
            view.score_text = f"{self.score[:4]} {'—' if value is None else f'{value:.2f}'}"
