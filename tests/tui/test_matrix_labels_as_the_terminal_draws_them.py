"""The app's matrices measure labels as the terminal draws them: the numbers stay
aligned and character clusters whole."""

from __future__ import annotations

from tests.tui_helpers import running


async def test_matrix_labels_keep_the_numbers_aligned_and_clusters_whole(tmp_path):
    from attn_tui.core.text import cells
    from tests.tui_helpers import drawn_lines, stage_view

    family = "👨\u200d👩\u200d👧"
    tokens = ["日本語テキストです", family * 8, "e\u0301" * 14, "x"]
    path = tmp_path / "wide.yaml"
    path.write_text(
        "tokens: [" + ", ".join(f'"{t}"' for t in tokens) + "]\n"
        "Q: [[1, 0], [0, 1], [1, 1], [0, 0]]\nK: [[1, 0], [0, 1], [1, 1], [0, 0]]\n"
        "V: [[1, 0], [0, 1], [1, 1], [0, 0]]\n",
        encoding="utf-8",
    )
    async with running(path) as (app, pilot):
        lines = drawn_lines(stage_view(app))
        header, rows = lines[0], [line for line in lines[1:5]]
        starts = {
            cells(line[: next(i for i, c in enumerate(line) if c.isdigit())]) for line in rows
        }
        assert len(starts) == 1, "\n".join(lines[:5])  # every row's numbers begin in one column
        for line in rows:
            label = line.split(" ")[0]
            assert "\u200d" not in label[-1:] and not label.startswith("\u0301")
            assert label.count("\u200d") % 2 == 0  # whole families only (two joiners each)
        assert "…" in header or cells(header) >= 8  # a long key's header is clipped, not spilled
        for line in lines[:5]:
            assert cells(line) == cells(lines[0]), "\n".join(lines[:5])
