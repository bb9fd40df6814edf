"""How a token is shown: as the text it stands for, so that a student recognises it.

Tokenizers write their pieces in codes of their own: byte-level BPE (GPT-2, Llama 3) spells
every byte as a printable character, so " cat" is ``Ġcat`` and a line feed ``Ċ``;
SentencePiece (Llama 2) marks a word's leading space with ``▁`` and spells a byte it has no
piece for as ``<0x0A>``. :func:`shown` undoes those codes: the piece's bytes are decoded as
UTF-8, a space is shown as ``␣`` (an invisible label would be no label), bytes that are only
part of a character (a character split across tokens) are shown as ``<0xE2>``, and special
tokens such as ``<|endoftext|>``, ``<s>`` or ``[CLS]`` stay literally what they are. Control
characters stay in the text; every view of a scenario makes them visible.

Pure Python: the tokenizer is described by its decoder's settings (:func:`spelling_from_decoder`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache

from attn_tui.core.text import visible

SPACE = "\u2423"  # ␣
SENTENCEPIECE_SPACE = "\u2581"  # ▁
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_UNDECODED_BYTE = re.compile("[\udc80-\udcff]")


@dataclass(frozen=True)
class Spelling:
    """How a tokenizer writes the text of its pieces."""

    byte_level: bool = False  # every byte as one printable character (GPT-2's alphabet)
    space_marker: str | None = None  # the character that stands for a space, such as "▁"
    byte_pieces: bool = False  # "<0x0A>" is the byte 0x0A (SentencePiece's byte fallback)


def spelling_from_decoder(decoder: dict | str | bytes | None) -> Spelling:
    """The spelling a Hugging Face ``tokenizers`` decoder undoes, from its settings (the JSON
    of ``tokenizer.backend_tokenizer.decoder``); no decoder means pieces are plain text."""
    if decoder is None:
        return Spelling()
    if isinstance(decoder, (str, bytes)):
        decoder = json.loads(decoder)
    parts = _flatten(decoder)
    kinds = {part.get("type") for part in parts}
    marker = None
    for part in parts:
        if part.get("type") == "Metaspace":
            marker = part.get("replacement", SENTENCEPIECE_SPACE)
        elif (
            part.get("type") == "Replace"
            and part.get("content") == " "
            and isinstance(part.get("pattern"), dict)
            and "String" in part["pattern"]
        ):
            marker = part["pattern"]["String"]
    return Spelling(
        byte_level="ByteLevel" in kinds, space_marker=marker, byte_pieces="ByteFallback" in kinds
    )


def _flatten(decoder: dict) -> list[dict]:
    if decoder.get("type") == "Sequence":
        return [part for inner in decoder.get("decoders", []) for part in _flatten(inner)]
    return [decoder]


def shown(piece: str, spelling: Spelling, *, literal: bool = False) -> str:
    """The text a token stands for, as a student should see it (see the module's docstring).

    ``literal``: the piece is an added or special token, whose text the tokenizer keeps as
    written (``<|endoftext|>``, ``<s>``, ``[CLS]``): only its spaces are marked.
    """
    if literal:
        return piece.replace(" ", SPACE)
    if spelling.byte_level:
        alphabet = _byte_of_character()
        data = b"".join(
            bytes([alphabet[character]])
            if character in alphabet
            else character.encode("utf-8", "surrogatepass")
            for character in piece
        )
    else:
        text = piece if spelling.space_marker is None else piece.replace(spelling.space_marker, " ")
        match = _BYTE_PIECE.fullmatch(text) if spelling.byte_pieces else None
        data = bytes([int(match.group(1), 16)]) if match else text.encode("utf-8", "surrogatepass")
    text = data.decode("utf-8", errors="surrogateescape")
    text = _UNDECODED_BYTE.sub(lambda undecoded: f"<0x{ord(undecoded.group()) - 0xDC00:02X}>", text)
    text = text.replace(" ", SPACE)
    if not text.strip():  # a scenario reads a label of only a line feed, a tab, … as empty:
        # the control characters as the views show them (␊, ␉), any other space as its code
        text = "".join(
            f"<U+{ord(character):04X}>" if character.isspace() else character
            for character in visible(text)
        )
    return text


@cache
def _byte_of_character() -> dict[str, int]:
    """GPT-2's byte-level alphabet, reversed: printable bytes stand for themselves, the others
    (controls, space, DEL, 0x80–0xA0, 0xAD) for the characters from U+0100 on, in byte order."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    others = [byte for byte in range(256) if byte not in printable]
    shifted = {chr(256 + n): byte for n, byte in enumerate(others)}
    return {chr(byte): byte for byte in printable} | shifted
