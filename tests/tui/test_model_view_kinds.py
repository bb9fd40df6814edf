"""The model view labels each layer with its kind (full, sliding and its window; RoPE and its
base, NoPE), as the index gives it (core/loading/model_index.py)."""

from __future__ import annotations

import re

from attn_tui.core.loading.model_index import read_index
from attn_tui.tui.app import AttnApp
from tests.reading.test_model_index import two_layer_index
from tests.tui_helpers import screen_text


async def test_each_layer_is_labelled_with_its_kind_when_the_index_gives_it(tmp_path):
    path = two_layer_index(tmp_path)
    path.write_text(
        path.read_text(encoding="utf-8")
        .replace(
            "scenario: tiny_gpt2_l1.yaml}",
            "scenario: tiny_gpt2_l1.yaml, kind: {attention: sliding, window: 3, position: rope, "
            "rope_base: 10000}}",
        )
        .replace(
            'scenario: "second.yaml"}',
            'scenario: "second.yaml", kind: {attention: full, position: nope}}',
        ),
        encoding="utf-8",
    )
    app = AttnApp(index=read_index(str(path)), remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        lines = screen_text(app).splitlines()
        label = [re.split("[┃│┏┗╭╰]", line, maxsplit=1)[0].strip() for line in lines]
        first, second = label.index("layer 0"), label.index("layer 1")
        assert label[first + 1 : first + 3] == ["sliding 3", "RoPE 10000"]
        assert label[second + 1 : second + 3] == ["full", "NoPE"]
