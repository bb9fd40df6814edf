"""``attn-tui capture MODEL --text "…" --layer N [-o FILE]``: run a real model on a text and
write what one layer's attention used as a scenario (YAML, with its matrices in an .npz).

Exit status: 0 written; 2 a problem the user can fix (no such model, layer out of range, empty
or too long text, the file exists, the models extra not installed), in one line; 3 the
captured arrays would not reproduce the model (nothing is written).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import shlex
import sys

from attn_tui.capture.errors import CaptureError
from attn_tui.core.text import quoted, visible

EXIT_OK, EXIT_USAGE, EXIT_INTERNAL = 0, 2, 3
INSTALL = "pip install 'attn-tui[models]'"

# model_type in config.json → the module that knows where that family keeps its attention
FAMILIES = {"gpt2": "attn_tui.capture.gpt2", "llama": "attn_tui.capture.llama"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attn-tui capture",
        description="Run a real Hugging Face model on your text and write one layer's attention "
                    "(every head's Q, K, V, the output projection, the mask and scaling) as a "
                    "scenario to step through.",
        epilog=f"Needs PyTorch and transformers: {INSTALL}. Knows GPT-2 and Llama models "
               "(model_type gpt2, llama). Exit status: 0 written, 2 a problem with the model, "
               "text, layer or file (one line), 3 the capture would not reproduce the model.")
    parser.add_argument("model", metavar="MODEL",
                        help="a model folder (with config.json), or a model name such as "
                             "openai-community/gpt2: from the local Hugging Face cache, or "
                             "downloaded when not there (never when HF_HUB_OFFLINE=1)")
    parser.add_argument("--text", required=True, help="the text to run the model on")
    parser.add_argument("--layer", type=int, required=True, metavar="N",
                        help="the layer whose attention to capture, counted from 0 as Hugging "
                             "Face counts (0 to the number of layers − 1)")
    parser.add_argument("-o", "--output", metavar="FILE.yaml",
                        help="the scenario to write; its matrices go to FILE.npz beside it "
                             "(default: MODEL_lN.yaml in this folder, e.g. gpt2_l3.yaml)")
    parser.add_argument("--force", action="store_true", help="replace the files if they exist")
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return parser


def capture(args: argparse.Namespace) -> int:
    """Run the command; every problem the user can fix is one line on stderr and exit 2."""
    try:
        return _capture(args)
    except CaptureError as error:
        print(f"attn-tui capture: {error}", file=sys.stderr)
        return EXIT_USAGE


def _capture(args: argparse.Namespace) -> int:
    text = check_text(args.text)
    yaml_path = args.output or default_output(args.model, args.layer)
    npz_path = check_output(yaml_path, args.force)
    torch, transformers = import_models_extra()
    _quiet(transformers)

    from attn_tui.capture.agreement import agreement
    from attn_tui.capture.model_source import locate
    from attn_tui.capture.write_scenario import About, npz_bytes, scenario_yaml, write_files

    source = locate(args.model)
    name = quoted(args.model)
    if not source.local_files_only:
        print(f"attn-tui capture: {name} is not in the local Hugging Face cache; downloading it",
              file=sys.stderr)
    config = _load(f"cannot read the configuration of {name}", transformers.AutoConfig,
                   source.location, **source.kwargs)
    model_type = getattr(config, "model_type", None)
    if model_type not in FAMILIES:
        raise CaptureError(f"{name} is a {quoted(str(model_type))} model; capture knows "
                           f"{', '.join(FAMILIES)}")
    family = importlib.import_module(FAMILIES[model_type])
    depth = config.num_hidden_layers
    if not 0 <= args.layer < depth:
        raise CaptureError(f"--layer {args.layer} is out of range: {name} has {depth} layers, "
                           f"numbered 0 to {depth - 1}")
    tokenizer = _load(f"cannot load the tokenizer of {name}", transformers.AutoTokenizer,
                      source.location, **source.kwargs)
    ids = list(tokenizer(text)["input_ids"])
    context = getattr(config, "max_position_embeddings", None)
    if not ids:
        raise CaptureError("the text gives no tokens")
    if context is not None and len(ids) > context:
        raise CaptureError(f"the text is {len(ids)} tokens long, longer than {name}'s context "
                           f"of {context} tokens")
    model = _load(f"cannot load the model {name}", transformers.AutoModel, source.location,
                  attn_implementation="eager", dtype=torch.float32, **source.kwargs)
    captured = family.capture(model, ids, args.layer)
    check = agreement(captured)
    if not check.ok:
        print(f"attn-tui capture: the captured arrays do not reproduce {name}'s attention "
              f"(weights differ by up to {check.weights:.2g}, output by {check.output:.2g}); "
              "this model does something capture does not know, so nothing was written "
              "(please report it)", file=sys.stderr)
        return EXIT_INTERNAL
    about = About(model=source.label, layer=args.layer, depth=depth, text=text,
                  tokens=shown_tokens(tokenizer, ids))
    try:
        write_files(yaml_path, scenario_yaml(captured, about, check, os.path.basename(npz_path)),
                    npz_path, npz_bytes(captured))
    except OSError as exc:
        raise CaptureError(f"cannot write {quoted(exc.filename or yaml_path)}: "
                           f"{exc.strerror or exc}") from None
    heads = f"{captured.heads} heads"
    if captured.kv_heads < captured.heads:
        heads += f" sharing {captured.kv_heads} key/value heads"
    print(f"Wrote {visible(yaml_path)} and {visible(os.path.basename(npz_path))}: {name}, "
          f"layer {args.layer} of {depth}, {captured.T} tokens, {heads}, d_k = {captured.d_k}; "
          f"{check.describe()}. Open it: attn-tui {shlex.quote(visible(yaml_path))}")
    return EXIT_OK


def check_text(text: str) -> str:
    if text == "":
        raise CaptureError("--text is empty: give the text to run the model on")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes that were not UTF-8 in the argument (surrogate escapes)
        raise CaptureError("--text is not valid UTF-8") from None
    return text


def default_output(model: str, layer: int) -> str:
    from attn_tui.capture.write_scenario import default_name

    return default_name(model, layer)


def check_output(yaml_path: str, force: bool) -> str:
    """The .npz path beside ``yaml_path``, once both may be written."""
    from attn_tui.capture.write_scenario import npz_path_for

    if not yaml_path.endswith((".yaml", ".yml")):
        raise CaptureError(f"-o {quoted(yaml_path)}: give a name ending in .yaml, such as "
                           "gpt2_l3.yaml (the matrices go to gpt2_l3.npz beside it)")
    folder = os.path.dirname(yaml_path) or "."
    if not os.path.isdir(folder):
        raise CaptureError(f"-o {quoted(yaml_path)}: no such folder {quoted(folder)}")
    npz_path = npz_path_for(yaml_path)
    for path in (yaml_path, npz_path):
        if os.path.isdir(path):
            raise CaptureError(f"{quoted(path)} is a folder")
        if os.path.exists(path) and not force:
            raise CaptureError(f"{quoted(path)} already exists; add --force to replace it")
    return npz_path


def import_models_extra():
    """torch and transformers, or a one-line :class:`CaptureError` saying what to install.

    Both are looked for before either is imported, so a missing one is named at once rather
    than after the seconds PyTorch takes to import.
    """
    missing = [name for name in ("torch", "transformers") if not _installed(name)]
    try:
        if not missing:
            import torch
            import transformers

            return torch, transformers
    except ImportError as exc:
        missing = [exc.name or "torch or transformers"]
    raise CaptureError(f"capture needs PyTorch and transformers ({' and '.join(missing)} "
                       f"{'is' if len(missing) == 1 else 'are'} not installed): {INSTALL}")


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def shown_tokens(tokenizer, ids: list[int]) -> list[str]:
    """Each token as a student should see it (see capture.tokens)."""
    from attn_tui.capture.tokens import shown, spelling_from_decoder

    backend = getattr(tokenizer, "backend_tokenizer", None)
    decoder = getattr(backend, "decoder", None)
    spelling = spelling_from_decoder(None if decoder is None else decoder.__getstate__())
    literal = set(getattr(tokenizer, "added_tokens_decoder", {}))
    return [shown(piece, spelling, literal=token in literal)
            for token, piece in zip(ids, tokenizer.convert_ids_to_tokens(ids))]


def _load(failure: str, loader, location: str, **kwargs):
    """``loader.from_pretrained``; a failure (a missing or broken file) as one line."""
    try:
        return loader.from_pretrained(location, **kwargs)
    except Exception as exc:  # whatever a broken model folder raises, the user can fix it
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CaptureError(f"{failure}: {visible(reason)}") from None


def _quiet(transformers) -> None:
    """No progress bars or load reports: the command's output is its one line."""
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    from huggingface_hub.utils import disable_progress_bars

    disable_progress_bars()
