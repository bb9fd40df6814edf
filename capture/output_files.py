"""Where ``attn-tui capture`` writes, and whether it may: the default names, each .yaml and the
.npz beside it checked before the model is loaded (an existing file needs --force, a folder
must exist), and a layer's scenario or the index written, a failure as one line."""

from __future__ import annotations

import os

from attn_tui.capture.errors import CaptureError
from attn_tui.core.text import quoted


def default_output(model: str, layer: int | None, part: str | None = None) -> str:
    from attn_tui.capture.write_scenario import default_name

    return default_name(model, layer, part)


def output_paths(
    output: str | None, force: bool, layer: int | None, label: str, part: str | None, depth: int
):
    """Where a capture of ``depth`` layers writes (the index, or None; the layers' numbers; their
    .yaml and .npz files), each checked to be writable (:func:`check_output`). ``output`` is
    -o's file or None (the default name); ``layer`` the one layer, or None for every layer and
    an index of them."""
    from attn_tui.capture.write_scenario import layer_path_for

    index_path = None
    if layer is None:
        index_path = output or default_output(label, None, part)
        numbers = list(range(depth))
        yaml_paths = [layer_path_for(index_path, n) for n in numbers]
        check_output(index_path, force, with_npz=False)
    else:
        numbers = [layer]
        yaml_paths = [output or default_output(label, layer, part)]
    return index_path, numbers, yaml_paths, [check_output(path, force) for path in yaml_paths]


def check_yaml_name(yaml_path: str) -> None:
    if not yaml_path.endswith((".yaml", ".yml")):
        raise CaptureError(
            f"-o {quoted(yaml_path)}: give a name ending in .yaml, such as "
            "gpt2_l3.yaml (the matrices go to gpt2_l3.npz beside it)"
        )


def check_output(yaml_path: str, force: bool, with_npz: bool = True) -> str:
    """The .npz path beside ``yaml_path``, once both may be written."""
    from attn_tui.capture.write_scenario import npz_path_for

    check_yaml_name(yaml_path)
    folder = os.path.dirname(yaml_path) or "."
    if not os.path.isdir(folder):
        raise CaptureError(f"-o {quoted(yaml_path)}: no such folder {quoted(folder)}")
    npz_path = npz_path_for(yaml_path)
    for path in (yaml_path, npz_path) if with_npz else (yaml_path,):
        if os.path.isdir(path):
            raise CaptureError(f"{quoted(path)} is a folder")
        if os.path.exists(path) and not force:
            raise CaptureError(f"{quoted(path)} already exists; add --force to replace it")
    return npz_path


def write_layer(captured, about, check, yaml_path: str, npz_path: str) -> None:
    from attn_tui.capture.write_scenario import npz_bytes, scenario_yaml, write_files

    try:
        write_files(
            yaml_path,
            scenario_yaml(captured, about, check, os.path.basename(npz_path)),
            npz_path,
            npz_bytes(captured),
        )
    except OSError as exc:
        raise CaptureError(
            f"cannot write {quoted(exc.filename or yaml_path)}: {exc.strerror or exc}"
        ) from None


def write_text(path: str, text: str) -> None:
    from attn_tui.core.files.atomic_write import write_atomic

    try:
        write_atomic(path, text)
    except OSError as exc:
        raise CaptureError(
            f"cannot write {quoted(exc.filename or path)}: {exc.strerror or exc}"
        ) from None
