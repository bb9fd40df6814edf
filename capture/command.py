"""``attn-tui capture MODEL --text "…" --layer N [-o FILE]``: run a real model on a text and
write what one layer's attention used as a scenario (YAML, with its matrices in an .npz).

Exit status: 0 written; 2 a problem the user can fix (no such model, layer out of range, empty
or too long text, the file exists, the models extra not installed), in one line; 3 the
captured arrays would not reproduce the model (nothing is written).
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
from dataclasses import replace

from attn_tui.capture import demo_model
from attn_tui.capture.errors import CaptureError
from attn_tui.capture.families import DECODER
from attn_tui.capture.model_loading import (
    INSTALL,
    import_models_extra,
    load_pretrained,
    quiet_transformers,
)
from attn_tui.capture.output_files import check_output, output_paths, write_layer, write_text
from attn_tui.core.text import quoted, visible

EXIT_OK, EXIT_USAGE, EXIT_INTERNAL = 0, 2, 3
ALL = "all"
MAX_GENERATED = 1024  # tokens --generate chooses at most: a screenful of steps many times over


def build_parser() -> argparse.ArgumentParser:
    from attn_tui.capture.families import FAMILIES

    parser = argparse.ArgumentParser(
        prog="attn-tui capture",
        description="Run a real Hugging Face model on your text and write one layer's attention "
        "(every head's Q, K, V, the output projection, the mask and scaling) as a "
        "scenario to step through, or every layer's and an index of them.",
        epilog=f"Needs PyTorch and transformers: {INSTALL}. Knows these model_type families: "
        f"{', '.join(FAMILIES)}. Exit status: 0 written, 2 a problem with the model, "
        "text, layer or file (one line), 3 the capture would not reproduce the model.",
    )
    parser.add_argument(
        "model",
        metavar="MODEL",
        help="demo (a small GPT-2 with hand-set previous-token, first-token, self and "
        "induction heads, built here: no download), a model folder (with "
        "config.json), or a model name such as "
        "openai-community/gpt2: from the local Hugging Face cache, or "
        "downloaded when not there (never when HF_HUB_OFFLINE=1)",
    )
    parser.add_argument(
        "--text",
        required=True,
        action="append",
        help="the text to run the model on (an encoder-decoder's source); "
        "twice for an encoder, a pair of sentences with segment ids",
    )
    parser.add_argument(
        "--layer",
        type=_layer,
        required=True,
        metavar="N|all",
        help="the layer whose attention to capture, counted from 0 as Hugging "
        "Face counts (0 to the number of layers − 1); 'all': every layer, "
        "in one forward pass, and an index of them to open as a model view",
    )
    parser.add_argument(
        "--part",
        choices=("encoder", "decoder", "cross"),
        help="an encoder-decoder's (t5, bart, marian) attention to capture: the "
        "encoder's self-attention (the default), the decoder's causal "
        "self-attention, or its cross-attention (queries from "
        "--target-text, keys and values from --text)",
    )
    parser.add_argument(
        "--target-text",
        metavar="TEXT",
        help="with --part decoder or cross: the text the decoder writes",
    )
    parser.add_argument(
        "--pad-to",
        type=int,
        metavar="N",
        help="an encoder's text padded with its padding token to N tokens, the "
        "padding hidden by the attention mask (the Padding rule)",
    )
    parser.add_argument(
        "--generate",
        type=int,
        metavar="N",
        help="a decoder: choose N more tokens after the text, greedily, as "
        "model.generate(do_sample=False) does (with its KV cache), and capture the "
        "layer over the text and those tokens: the scenario keeps which tokens the model "
        "chose and the probability it gave each (generated:), stepped through by the "
        "app's decode view",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE.yaml",
        help="the scenario to write; its matrices go to FILE.npz beside it "
        "(default: MODEL_lN.yaml in this folder, e.g. gpt2_l3.yaml); with "
        "--layer all, the index (default MODEL_layers.yaml), each layer's "
        "scenario beside it as FILE_lN.yaml",
    )
    parser.add_argument("--force", action="store_true", help="replace the files if they exist")
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return parser


def _layer(text: str) -> int | str:
    if text == ALL:
        return ALL
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a layer number or 'all'") from None


def capture(args: argparse.Namespace) -> int:
    """Run the command; every problem the user can fix is one line on stderr and exit 2."""
    try:
        return _capture(args)
    except CaptureError as error:
        print(f"attn-tui capture: {error}", file=sys.stderr)
        return EXIT_USAGE


def _capture(args: argparse.Namespace) -> int:
    from attn_tui.capture.families import FAMILIES

    texts = [check_text(text, "--text") for text in args.text]
    if len(texts) > 2:
        raise CaptureError("--text is given more than twice: once for a text, twice for a pair")
    target = None if args.target_text is None else check_text(args.target_text, "--target-text")
    if args.pad_to is not None and args.pad_to < 1:
        raise CaptureError(f"--pad-to {args.pad_to}: give a number of tokens, 1 or more")
    if args.generate is not None and not 1 <= args.generate <= MAX_GENERATED:
        raise CaptureError(f"--generate {args.generate}: give from 1 to {MAX_GENERATED} tokens")
    every = args.layer == ALL
    layer = None if every else args.layer  # (None: every layer, and an index of them)
    if args.output is not None:  # before the seconds PyTorch takes to import
        check_output(args.output, args.force, with_npz=not every)
    elif (
        args.model == demo_model.NAME
        and not os.path.exists(args.model)
        and (every or 0 <= args.layer < demo_model.LAYERS)
    ):  # (out of range: said with the depth)
        # its names are known before it is built
        output_paths(args.output, args.force, layer, demo_model.NAME, None, demo_model.LAYERS)
    torch, transformers = import_models_extra()
    quiet_transformers(transformers)

    from attn_tui.capture.agreement import TOLERANCE, agreement
    from attn_tui.capture.model_run import forward, prepare
    from attn_tui.capture.model_source import locate
    from attn_tui.capture.projections import Run
    from attn_tui.capture.run_to_layer import run_to_sites
    from attn_tui.capture.write_scenario import PART_NAMES, About, shortened

    if args.model == demo_model.NAME and not os.path.exists(args.model):  # built here: no hub
        import tempfile

        from attn_tui.capture.model_source import ModelSource

        built = demo_model.build(
            os.path.join(tempfile.mkdtemp(prefix="attn-tui-demo-"), demo_model.NAME)
        )
        source = ModelSource(built, local_files_only=True, label=demo_model.NAME)
    else:
        source = locate(args.model)
    name = quoted(args.model)
    if not source.local_files_only:
        print(
            f"attn-tui capture: {name} is not in the local Hugging Face cache; downloading it",
            file=sys.stderr,
        )
    config = load_pretrained(
        f"cannot read the configuration of {name}",
        transformers.AutoConfig,
        source.location,
        **source.kwargs,
    )
    model_type = getattr(config, "model_type", None)
    if model_type not in FAMILIES:
        raise CaptureError(
            f"{name} is a {quoted(str(model_type))} model; capture knows {', '.join(FAMILIES)}"
        )
    known = FAMILIES[model_type]
    part = args.part or known.parts[0]
    if part not in known.parts:
        raise CaptureError(
            f"--part {part}: {name} is {_kind_phrase(known.kind)}, whose only "
            f"part is {known.parts[0]}"
        )
    family = importlib.import_module(known.module)
    shown_part = part if len(known.parts) > 1 else None
    depth = _depth(config, part)
    if not every and not 0 <= args.layer < depth:
        raise CaptureError(
            f"--layer {args.layer} is out of range: {name} has {depth} layers, "
            f"numbered 0 to {depth - 1}"
        )
    index_path, numbers, yaml_paths, npz_paths = output_paths(
        args.output, args.force, layer, source.label, shown_part, depth
    )
    tokenizer = load_pretrained(
        f"cannot load the tokenizer of {name}",
        transformers.AutoTokenizer,
        source.location,
        **source.kwargs,
    )
    prepared = prepare(tokenizer, config, known.kind, part, texts, target, args.pad_to)
    if args.generate is not None and known.kind != DECODER:
        raise CaptureError(
            f"--generate: {name} is {_kind_phrase(known.kind)}; only a decoder (gpt2, "
            "llama, …) generates its text token by token"
        )
    context = getattr(config, "max_position_embeddings", None) or getattr(
        config, "n_positions", None
    )
    for ids, what in ((prepared.ids, "text"), (prepared.target_ids, "target text")):
        if ids is not None and not ids:
            raise CaptureError(f"the {what} gives no tokens")
        more = args.generate if what == "text" and args.generate else 0
        if ids is not None and context is not None and len(ids) + more > context:
            and_more = f" with the {more} to generate" if more else ""
            raise CaptureError(
                f"the {what} is {len(ids)} tokens long{and_more}, longer than {name}'s "
                f"context of {context} tokens"
            )
    loader = transformers.AutoModel
    if args.generate is not None:
        loader = transformers.AutoModelForCausalLM
    loaded = load_pretrained(
        f"cannot load the model {name}",
        loader,
        source.location,
        attn_implementation="eager",
        dtype=torch.float32,
        output_loading_info=True,
        **source.kwargs,
    )
    model, generated = loaded[0], None
    if args.generate is not None:
        from attn_tui.capture.generation import generate_from

        generated = generate_from(loaded, name, prepared.ids, args.generate, family, numbers)
        model = loaded[0].base_model
        prepared = replace(prepared, ids=prepared.ids + generated.ids)
    sites = family.sites(model, part)
    run = Run(part=part, padding=prepared.padding)
    recorded = run_to_sites(forward(model, known.kind, part, prepared), [sites[n] for n in numbers])
    checks = []
    for number, record in zip(numbers, recorded):  # all checked before anything is written
        captured = family.layer(model, number, record, run)
        check = agreement(captured)
        if generated is not None:
            check = generated.checked(check, captured, number)
        if not check.ok:
            at = f" at layer {number}" if every else ""
            mask = (
                f", and its mask differs from the model's in {check.mask_cells} cells"
                if check.mask_cells
                else ""
            )
            if check.cache is not None and check.cache > TOLERANCE:
                mask += f", and the KV cache's rows from the whole text's by {check.cache:.2g}"
            print(
                f"attn-tui capture: the captured arrays do not reproduce {name}'s attention"
                f"{at} (weights differ by up to {check.weights:.2g}, output by "
                f"{check.output:.2g}{mask}); this model does something capture does not know, "
                "so nothing was written (please report it)",
                file=sys.stderr,
            )
            return EXIT_INTERNAL
        checks.append(check)
    about = About(
        model=source.label,
        layer=0,
        depth=depth,
        text=texts[0] if len(texts) == 1 else " / ".join(texts),
        tokens=[],
        part=shown_part,
        target=target,
        generation=None if generated is None else generated.about(),
    )
    source_tokens = shown_tokens(tokenizer, prepared.ids)
    target_tokens = (
        None if prepared.target_ids is None else shown_tokens(tokenizer, prepared.target_ids)
    )
    about = replace(
        about,
        tokens=source_tokens if target_tokens is None or part != "decoder" else target_tokens,
        query_tokens=target_tokens if part == "cross" else None,
    )
    written = []
    for number, record, check, yaml_path, npz_path in zip(
        numbers, recorded, checks, yaml_paths, npz_paths
    ):
        captured = family.layer(model, number, record, run)
        write_layer(captured, replace(about, layer=number), check, yaml_path, npz_path)
        written.append(captured)
    captured = written[-1]
    heads = f"{captured.heads} heads"
    if captured.kv_heads < captured.heads:
        heads += f" sharing {captured.kv_heads} key/value heads"
    if every:
        from attn_tui.capture.write_index import index_yaml, layer_kind

        title = (
            f"{source.label} · all {depth} "
            f"{'layers' if shown_part is None else PART_NAMES[part] + 's'} · "
            f"{shortened(target if target is not None and part == 'decoder' else about.text, 40)}"
        )
        what = "" if shown_part is None else f" ({PART_NAMES[part]}s)"
        description = (
            f"Every layer{what} of {source.label}, a {captured.family} model with "
            f'{heads} a layer, on the text "{shortened(about.text, 300)}"'
            + (f' and the target text "{shortened(target, 300)}"' if target else "")
            + f", captured in one forward pass; each layer's scenario reproduces the "
            f"model's own weights within {max(c.weights for c in checks):.1e}."
        )
        text = index_yaml(
            title,
            description,
            list(zip(numbers, yaml_paths)),
            captured.heads,
            [layer_kind(layer) for layer in written],
        )
        write_text(index_path, text)
        worst = max(check.weights for check in checks)
        chosen = ""
        if generated is not None:
            chosen = (
                f" ({len(generated.ids)} of them chosen by the model; every row it computed "
                f"while generating is within {max(c.cache for c in checks):.1e})"
            )
        print(
            f"Wrote {visible(index_path)} and {depth} scenarios beside it "
            f"({visible(os.path.basename(yaml_paths[0]))} … "
            f"{visible(os.path.basename(yaml_paths[-1]))}): {name}, {captured.T} tokens{chosen}, "
            f"{heads} a layer, d_k = {captured.d_k}; every layer's weights match the model's "
            f"within {worst:.1e}. Open the model view: attn-tui "
            f"{shlex.quote(visible(index_path))}"
        )
        return EXIT_OK
    yaml_path, npz_path = yaml_paths[0], npz_paths[0]
    print(
        f"Wrote {visible(yaml_path)} and {visible(os.path.basename(npz_path))}: {name}, "
        f"layer {args.layer} of {depth}, {captured.T} tokens, {heads}, d_k = {captured.d_k}; "
        f"{checks[0].describe()}. Open it: attn-tui {shlex.quote(visible(yaml_path))}"
    )
    return EXIT_OK


def _kind_phrase(kind: str) -> str:
    return {"decoder": "a decoder", "encoder": "an encoder"}.get(kind, "an encoder-decoder")


def _depth(config, part: str) -> int:
    """How many layers the part has: a decoder's may differ from its encoder's."""
    if part != "encoder":
        for name in ("num_decoder_layers", "decoder_layers"):
            value = getattr(config, name, None)
            if isinstance(value, int):
                return value
    return config.num_hidden_layers


def check_text(text: str, option: str = "--text") -> str:
    if text == "":
        raise CaptureError(f"{option} is empty: give the text to run the model on")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes that were not UTF-8 in the argument (surrogate escapes)
        raise CaptureError(f"{option} is not valid UTF-8") from None
    return text


def shown_tokens(tokenizer, ids: list[int]) -> list[str]:
    """Each token as a student should see it (see capture.tokens)."""
    from attn_tui.capture.tokens import shown, spelling_from_decoder

    backend = getattr(tokenizer, "backend_tokenizer", None)
    decoder = getattr(backend, "decoder", None)
    spelling = spelling_from_decoder(None if decoder is None else decoder.__getstate__())
    literal = set(getattr(tokenizer, "added_tokens_decoder", {}))
    return [
        shown(piece, spelling, literal=token in literal)
        for token, piece in zip(ids, tokenizer.convert_ids_to_tokens(ids))
    ]
