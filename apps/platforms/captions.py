"""Caption text: words, sentences, hashtags and shortening, the way adaptation reads them.

Shortening never cuts a word or a hashtag in half: it drops whole sentences from the end
first; if even the first sentence is too long it drops whole words from the end and adds
"…". A word is a run of non-whitespace (CJK text is also split after its full-width
punctuation, see :func:`tokenize`); a word longer than the limit is dropped entirely. A
sentence ends where :func:`apps.platforms.facts.split_sentences` ends one: never at "Co.",
"Dr.", "e.g.", "8 a.m." before a name, a decimal or a URL. :func:`shorten_keeping_facts`
drops the sentences that carry no fact (:func:`apps.platforms.facts.facts_in`) before those
that do, so a code or a date outlives the decoration around it.

How a variant is published: the hashtags go at the end of the caption, after a blank line
(:func:`compose_caption`); that composed text is what is measured against the caption limit.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from .facts import facts_in, split_sentences
from .rules import get_rules
from .text import find_urls

ELLIPSIS = "…"
CAPTION_SEPARATOR = "\n\n"  # between the caption and its hashtags / a folded first comment
# Look-alikes for characters a platform forbids (YouTube: '<' and '>' in title/description).
FORBIDDEN_REPLACEMENTS = {"<": "‹", ">": "›"}

_CJK_BREAKS = "。！？；，、："
_SENTENCE_END = ".!?…。！？"
_CLOSERS = "\"'”’)]»」』"


# --- text helpers --------------------------------------------------------------------------


def _is_word_char(ch: str) -> bool:
    return ch == "_" or ch.isalnum() or unicodedata.category(ch).startswith("M")


def normalize_hashtag(tag: str) -> str | None:
    """``'#' + word characters`` (letters, digits, '_', combining marks), NFC; None if the
    tag has no letter (``#2024`` is not a hashtag on most platforms)."""
    text = unicodedata.normalize("NFC", str(tag)).strip().lstrip("#")
    body = "".join(ch for ch in text if _is_word_char(ch))
    if not any(ch.isalpha() for ch in body):
        return None
    return "#" + body


def normalize_hashtags(tags: Iterable[str]) -> list[str]:
    """Normalised, deduplicated case-insensitively (first spelling kept), order kept."""
    out: list[str] = []
    seen: set[str] = set()
    for tag in tags:
        norm = normalize_hashtag(tag)
        if norm and norm.casefold() not in seen:
            seen.add(norm.casefold())
            out.append(norm)
    return out


def tokenize(text: str) -> list[tuple[int, int]]:
    """Spans of the words of ``text``: runs of non-whitespace, with CJK runs also split after
    their full-width punctuation (。，、 ...), since CJK does not separate words by spaces."""
    spans: list[tuple[int, int]] = []
    for m in re.finditer(r"\S+", text):
        start, end = m.span()
        for k in range(start, end - 1):
            if text[k] in _CJK_BREAKS:
                spans.append((start, k + 1))
                start = k + 1
        spans.append((start, end))
    return spans


def words(text: str) -> list[str]:
    return [text[s:e] for s, e in tokenize(text)]


def inline_hashtags(text: str) -> list[tuple[int, int, str]]:
    """Hashtags written in ``text``: (word start, word end, normalised tag) for each."""
    spans = tokenize(text)
    out: list[tuple[int, int, str]] = []
    for i, ch in enumerate(text):
        if ch != "#" or (i > 0 and (_is_word_char(text[i - 1]) or text[i - 1] in "#&/")):
            continue
        j = i + 1
        while j < len(text) and _is_word_char(text[j]):
            j += 1
        body = text[i + 1 : j]
        if not any(c.isalpha() for c in body):
            continue
        span = next(((s, e) for s, e in spans if s <= i < e), (i, j))
        out.append((span[0], span[1], "#" + unicodedata.normalize("NFC", body)))
    return out


def hashtag_keys(caption: str, hashtags: Iterable[str]) -> set[str]:
    """The hashtags of the caption and those after it, case-folded (each counted once)."""
    return {t.casefold() for _, _, t in inline_hashtags(caption)} | {t.casefold() for t in hashtags}


def compose_caption(caption: str, hashtags: Iterable[str]) -> str:
    """The text that is published: caption, a blank line, then the hashtags."""
    caption = (caption or "").strip()
    tags = " ".join(hashtags)
    if caption and tags:
        return caption + CAPTION_SEPARATOR + tags
    return caption or tags


def replace_forbidden(platform: str, text: str) -> str:
    """Replace characters the platform refuses (YouTube '<' '>') with look-alikes."""
    for ch in get_rules(platform).forbidden_chars:
        text = text.replace(ch, FORBIDDEN_REPLACEMENTS.get(ch, ""))
    return text


@lru_cache(maxsize=512)
def _sentence_ends(text: str) -> frozenset[int]:
    """The offsets in ``text`` where :func:`~apps.platforms.facts.split_sentences` ends a
    sentence (not after an abbreviation, an initial, a decimal or inside a URL)."""
    ends: set[int] = set()
    position = 0
    for sentence in split_sentences(text):
        at = text.find(sentence, position)
        if at >= 0:
            position = at + len(sentence)
            ends.add(position)
    return frozenset(ends)


def _ends_sentence(text: str, spans: list[tuple[int, int]], i: int) -> bool:
    start, end = spans[i]
    if i + 1 < len(spans) and "\n" in text[end : spans[i + 1][0]]:
        return True
    word = text[start:end].rstrip(_CLOSERS)
    if not word or word[-1] not in _SENTENCE_END:
        return False
    return word[-1] in "。！？" or end in _sentence_ends(text)


def _has_content(word: str) -> bool:
    return any(ch.isalnum() or unicodedata.category(ch) == "So" for ch in word)


def _with_ellipsis(prefix: str) -> str:
    prefix = prefix.rstrip()
    last = prefix.split()[-1] if prefix.split() else ""
    is_url = any(end == len(prefix) for _, end in find_urls(prefix))
    if last[:1] in ("#", "@") or is_url:
        return prefix + " " + ELLIPSIS  # keep the tag / mention / link intact and clickable
    return prefix + ELLIPSIS


def _last_fitting(points: list[int], ok: Callable[[int], bool]) -> int | None:
    """Largest point for which ``ok`` holds (binary search; ``ok`` is monotone in practice)."""
    lo, hi, best = 0, len(points) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        if ok(points[mid]):
            best, lo = points[mid], mid + 1
        else:
            hi = mid - 1
    return best


def shorten(text: str, fits: Callable[[str], bool], *, sentences_only: bool = False) -> str:
    """The longest prefix of ``text`` for which ``fits`` holds, cut at a sentence end, else at a
    word end plus "…"; "" if not even one word fits. Never cuts inside a word. With
    ``sentences_only`` it never cuts inside a sentence ("" when not even the first fits)."""
    text = text.strip()
    if fits(text):
        return text
    spans = tokenize(text)
    sentence_ends = [
        end for i, (_, end) in enumerate(spans) if end < len(text) and _ends_sentence(text, spans, i)
    ]
    best = _last_fitting(sentence_ends, lambda end: fits(text[:end].rstrip()))
    if best is not None:
        return text[:best].rstrip()
    if sentences_only:
        return ""
    word_ends = [end for start, end in spans if _has_content(text[start:end])]
    best = _last_fitting(word_ends, lambda end: fits(_with_ellipsis(text[:end])))
    if best is not None:
        return _with_ellipsis(text[:best])
    return ""


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text`` (as :func:`sentences` reads them)."""
    spans = tokenize(text)
    out: list[tuple[int, int]] = []
    start = None
    for i, (s, e) in enumerate(spans):
        if start is None:
            start = s
        if _ends_sentence(text, spans, i) or i == len(spans) - 1:
            out.append((start, e))
            start = None
    return out


def shorten_keeping_facts(text: str, fits: Callable[[str], bool], *, drop_facts: bool = True) -> str:
    """``text`` made to fit by leaving out whole sentences, decoration first: the sentences
    that carry no fact (a date, time, price, code, handle, URL, number or name), from the
    last, then (``drop_facts``) those that do, from the last, the first of them kept. The
    sentences kept stay in their order with their own line breaks. "" when no choice of whole
    sentences fits (then :func:`shorten` may cut inside one)."""
    text = text.strip()
    if fits(text):
        return text
    pieces = _sentence_spans(text)
    informative = [bool(facts_in(text[s:e])) for s, e in pieces]
    plain = [i for i in reversed(range(len(pieces))) if not informative[i]]
    factual = [i for i in reversed(range(len(pieces))) if informative[i]][:-1] if drop_facts else []
    kept = list(range(len(pieces)))
    for i in [*plain, *factual]:
        if len(kept) == 1:
            break
        kept.remove(i)
        candidate = "".join(
            (text[pieces[k - 1][1] : pieces[k][0]] if n else "") + text[pieces[k][0] : pieces[k][1]]
            for n, k in enumerate(kept)
        ).strip()
        if fits(candidate):
            return candidate
    return ""


def _remove_words(text: str, remove: set[tuple[int, int]]) -> str:
    """``text`` without the given word spans; the spaces left behind are tidied up."""
    if not remove:
        return text
    parts: list[str] = []
    pos = 0
    for start, end in sorted(remove):
        parts.append(text[pos:start])
        pos = end
    parts.append(text[pos:])
    result = re.sub(r"[ \t]{2,}", " ", "".join(parts))
    result = re.sub(r"[ \t]+\n", "\n", result)
    result = re.sub(r"\n[ \t]+", "\n", result)
    return result.strip()


def drop_inline_hashtags(caption: str, keep: int) -> str:
    """Keep the first ``keep`` distinct inline hashtags; drop the words holding the others."""
    kept: set[str] = set()
    remove: set[tuple[int, int]] = set()
    for start, end, tag in inline_hashtags(caption):
        key = tag.casefold()
        if key in kept:
            continue
        if len(kept) < keep:
            kept.add(key)
        else:
            remove.add((start, end))
    # a word holding a dropped tag goes whole, even if it also holds a kept one ("#a,#b")
    return _remove_words(caption, remove)


def derive_title(fits: Callable[[str], bool], *sources: str) -> str:
    """A title from the first source that gives one: its first sentence without links and
    hashtags, shortened to fit; the last source is used as it is (hashtags)."""
    for source in sources:
        urls = find_urls(source)
        kept = [
            source[s:e]
            for s, e in tokenize(source)
            if not source[s:e].startswith("#") and not any(us <= s < ue for us, ue in urls)
        ]
        text = " ".join(kept)
        spans = tokenize(text)
        for i in range(len(spans)):
            if _ends_sentence(text, spans, i):
                text = text[: spans[i][1]]
                break
        text = shorten(text, fits)
        if text:
            return text
    return ""


def clean_text(value: Any) -> str:
    """Text with Windows line ends made plain and the ends stripped."""
    return str(value or "").replace("\r\n", "\n").strip()


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` in order (a line break also ends one), stripped."""
    spans = tokenize(text)
    out: list[str] = []
    start = None
    for i, (s, e) in enumerate(spans):
        if start is None:
            start = s
        if _ends_sentence(text, spans, i) or i == len(spans) - 1:
            out.append(text[start:e].strip())
            start = None
    merged: list[str] = []
    for x in out:  # an emoji (or other symbol) after a sentence's end belongs to that sentence
        if merged and not any(ch.isalnum() for ch in x):
            merged[-1] = f"{merged[-1]} {x}"
        elif x:
            merged.append(x)
    return merged
