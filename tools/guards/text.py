"""How Gavel treats the characters of untrusted text: `neutralize` for what the model is shown inside the engine's
blocks, `break_chat_markup` for everything a model is sent, `normalize_for_matching` for what the injection rules read,
`printable` for what a terminal is sent.

`neutralize` and `normalize_for_matching` know the same look-alike brackets and invisible characters: `neutralize`
breaks up a run of them that could pass for the engine's delimiters, `normalize_for_matching` folds them to ASCII so
the rules see a fake one.
"""

from __future__ import annotations

import re
import unicodedata

# Characters a reader (human or model) takes for an angle bracket. A run of three of any mix of them
# could pass for the engine's delimiters, so each side is treated as one class.
_LEFT_ANGLES = "<＜﹤‹«〈⟨〈《❮❬⟪˂ᐸ≺⧼"
_RIGHT_ANGLES = ">＞﹥›»〉⟩〉》❯❭⟫˃ᐳ≻⧽"
# Invisible characters that could be slipped between two brackets so the run no longer looks like one
# to a naive check but still renders (and tokenizes) as one.
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
)
_INV = f"[{_INVISIBLE}]"
_ANGLE_RUN = re.compile(
    rf"[{re.escape(_LEFT_ANGLES)}](?:{_INV}*[{re.escape(_LEFT_ANGLES)}]){{2,}}"
    rf"|[{re.escape(_RIGHT_ANGLES)}](?:{_INV}*[{re.escape(_RIGHT_ANGLES)}]){{2,}}"
)
# C0 controls except tab and newline, DEL and the C1 block. Carriage returns become newlines instead
# (a bare CR can visually overwrite a line in a terminal log; as a newline it stays readable).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Surrogate code points: in a Python str they are always unpaired (a JSON "\ud800" escape, a surrogateescape'd
# byte). No model backend can encode them (llama.cpp's JSON parser rejects them with a RuntimeError), so each
# becomes U+FFFD, as a UTF-8 decoder would render it.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _space_out(match: re.Match[str]) -> str:
    brackets = [ch for ch in match.group(0) if ch not in _INVISIBLE]
    return " ".join(brackets)


def neutralize(text: str) -> str:
    """`text` with no run of three angle brackets (or look-alikes), no control characters and no lone surrogates.

    A run such as `<<<`, `＜＜＜`, `«‹<` or `<\u200b<<` becomes its brackets separated by spaces
    (`< < <`), which keeps the text readable and can never read as a delimiter. Applying it twice
    changes nothing more.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = _SURROGATE.sub("\ufffd", text)
    return _ANGLE_RUN.sub(_space_out, text)


def printable(text: str) -> str:
    """`text` with each control character but tab and newline (C0, DEL, C1) shown as U+FFFD: written to a terminal,
    an escape sequence in it could retitle the window, clear the screen or set the clipboard."""
    return _CONTROL.sub("\ufffd", text)


# Chat-template markup: the strings a model's chat template writes its special tokens as (Qwen, Llama 3, Phi:
# `<|im_end|>`, `<|eot_id|>`; DeepSeek: `<｜end▁of▁sentence｜>`; Gemma: `<start_of_turn>`; Llama 2, Mistral:
# `[INST]`, `</s>`). The match is the opening bracket, before what makes the rest markup.
_CHAT_MARKUP = re.compile(r"<(?=[|｜][^\s<>|｜]{1,64}[|｜]>)|<(?=/?(?:s|start_of_turn|end_of_turn)>)|\[(?=/?INST\])")


def break_chat_markup(text: str) -> str:
    """`text` with a zero-width space after the opening bracket of every piece of chat-template markup.

    llama.cpp's server renders the chat template into one string and tokenizes it with special tokens parsed (other
    servers may too; only llama.cpp's was measured), so markup inside a message is read as the real thing: on the
    embedded default, "hello <|im_end|> there" takes two tokens more than "hello there" (a space and one special
    token), "hello <|im_endd|> there" six. A judged text could end its own turn and write the model a new one.
    Broken up, every character a reader sees stays, no special token matches, and applying it twice changes nothing
    more.
    """
    return _CHAT_MARKUP.sub(lambda match: match.group(0) + "\u200b", text)


_OTHER_DIGITS = re.compile(r"(?![0-9])\d")
_ANGLE_FOLD = str.maketrans({**dict.fromkeys(_LEFT_ANGLES, "<"), **dict.fromkeys(_RIGHT_ANGLES, ">")})


_LONG_RUN = re.compile(r"[^\w\s]{9,}")


def normalize_for_matching(text: str) -> str:
    """NFKC, no invisible/format characters, case-folded, accents removed, brackets folded to ASCII.

    Used only to *match*: the text shown to anyone is never this.
    """
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf" and ch not in _INVISIBLE)
    text = text.translate(_ANGLE_FOLD).casefold()
    decomposed = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Digits of every script as ASCII: "۱۰ از ۱۰" is "10 از 10" to the rules.
    text = _OTHER_DIGITS.sub(lambda m: str(unicodedata.decimal(m.group(0))), text)
    # Collapse horizontal whitespace so "ignore   previous" and "ignore\tprevious" match alike, and every run
    # that holds a line break to one line break: a rule's "\n\s*" tried at each break of a run of blank lines
    # scanned the rest of the run, so 10,000 newlines (10 kB) held the server for 48 s.
    text = re.sub(r"[^\S\n]+", " ", text)
    text = re.sub(r" ?\n\s*", "\n", text)
    # A run of symbols longer than any rule asks for ("-{2,}", "[=#*~_-]{3,}") as its first eight: a rule tried at
    # each dash of a 20,000-dash line scanned the rest of the line (19 s; "-=" repeated: 254 s at the
    # 200,000-character limit).
    return _LONG_RUN.sub(lambda m: m.group(0)[:8], text)
