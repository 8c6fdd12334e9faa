"""Shaping one generic generated text the way a platform reads, before adaptation: X one
short idea, TikTok a hook alone on the first line, Pinterest a keyword-led description, the
stock tags a format expects. Used on engine output only, never on a client's edit."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .adaptation import Draft, Variant, as_draft
from .captions import clean_text, sentences
from .rules import PlatformRules, get_rules, normalize_platform
from .text import find_urls

_EMOJI_RE = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\u2b50\u2728]\ufe0f?")
# how many sentences of the caption a short-form platform keeps (its link(s) come on top)
_SHORT_FORM = {"x": 1, "threads": 2, "bluesky": 2}
# Calls to action only Instagram and TikTok users follow (in the engine's five languages).
_APP_HABITS = {
    "link in bio": re.compile(
        r"link in (?:our |the )?bio|enlace de nuestra bio|lien dans notre bio|link in unserer bio|"
        r"link na nossa bio",
        re.IGNORECASE,
    ),
    "double tap": re.compile(r"double[- ]?tap|doble toque|doppeltippen|toque duas vezes", re.IGNORECASE),
}
# Calls for comments, double taps and tags: a Pin is found by search and saved, not commented on.
_ENGAGEMENT_BAIT = re.compile(
    r"\b(?:in the comments|comment below|tell us below|double[- ]tap|tag (?:a|someone|them|a friend)|drop your|"
    r"let us know|en los comentarios|cuéntanos|etiqueta a|en commentaire|dites-le-nous|identifiez|"
    r"in den kommentaren|in die kommentare|markiert|nos comentários|conta pra gente|marque um)\b",
    re.IGNORECASE,
)
# Tags a platform's users expect on a format (data/stock_tags.json): YouTube Shorts' #Shorts.
_STOCK_TAGS: dict[str, dict[str, list[str]]] = json.loads(
    (Path(__file__).parent / "data" / "stock_tags.json").read_text("utf-8")
)


def _information(sentence: str) -> int:
    """How much a sentence says: names, figures and compound words (a hook says little)."""
    tokens = re.findall(r"[\w%'’-]+", sentence)
    return sum(
        1
        for i, t in enumerate(tokens)
        if (i and t[:1].isupper()) or any(c.isdigit() for c in t) or "-" in t.strip("-") or t.endswith("%")
    )


def _remove_sentences(caption: str, drop: list[str]) -> str:
    for p in drop:
        caption = re.sub(r"[ \t]*" + re.escape(p), "", caption, count=1)
    caption = re.sub(r"\n{3,}", "\n\n", caption)
    return re.sub(r"[ \t]+(\n|$)", r"\1", caption).strip()


def _strip_emojis(text: str, keep: int = 0) -> str:
    seen = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal seen
        seen += 1
        return m.group(0) if seen <= keep else ""

    text = _EMOJI_RE.sub(repl, text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return re.sub(r"[ \t]+(\n|$)", r"\1", text).strip()


def style_for_platform(
    platform: str,
    draft: Draft | Variant | Mapping[str, Any],
    *,
    post_type: str = "feed",
    only_stock_tags: bool = False,
) -> tuple[Draft, list[str]]:
    """Shape one generic generated text the way ``platform`` reads (before :func:`adapt`):
    X one short idea, Threads and Bluesky a short conversational pair of sentences, TikTok a
    hook alone on the first line, LinkedIn without emoji walls, Pinterest a keyword-led
    description without emojis or calls for comments and a title taken from it, and the
    stock tags a format expects (#Shorts on YouTube Shorts). Links in the caption are kept as
    links. Used on engine output only, never on a client's edit. Returns the styled draft and
    notes of what changed. A text an engine wrote for this platform (``only_stock_tags``) keeps
    its words: only the tags its format expects are added."""
    name = normalize_platform(platform)
    rules = get_rules(name)
    d = as_draft(draft)
    caption = clean_text(d.caption)
    notes: list[str] = []
    _add_stock_tags(d, rules, post_type, notes)
    if not caption or only_stock_tags:
        return d, notes
    urls = [caption[s:e] for s, e in find_urls(caption)]
    parts = sentences(caption)
    plain = [p for p in parts if not find_urls(p) and not p.lstrip().startswith("•")]
    if name not in ("instagram", "tiktok"):  # "link in bio" and "double tap" are Instagram/TikTok habits
        caption, parts, plain = _drop_app_habits(caption, parts, plain, rules, notes)
    if name in _SHORT_FORM and plain:
        caption = _condense_to_short_form(caption, parts, plain, urls, rules, notes)
    elif name == "tiktok" and parts:
        caption = _hook_alone_on_first_line(caption, parts, notes)
    elif name == "linkedin":
        caption = _without_emoji_wall(caption, notes)
    elif name == "pinterest":
        caption = _pinterest_description(caption, d, notes)
    d.caption = caption
    return d, notes


def _add_stock_tags(d: Draft, rules: PlatformRules, post_type: str, notes: list[str]) -> None:
    """The tags the format expects go first: they survive when hashtags give way."""
    stock = [
        t
        for t in _STOCK_TAGS.get(rules.name, {}).get(post_type, [])
        if t.casefold() not in {h.casefold() for h in d.hashtags}
    ]
    if stock:
        d.hashtags = [*stock, *d.hashtags]
        notes.append(f"{', '.join(stock)} added: expected on {rules.display_name} ({post_type})")


def _drop_app_habits(
    caption: str, parts: list[str], plain: list[str], rules: PlatformRules, notes: list[str]
) -> tuple[str, list[str], list[str]]:
    """The sentences of a call to action other platforms' users do not follow ("link in bio",
    "double tap"), unless the caption is nothing else; returns the caption, its sentences and
    its plain sentences without them."""
    for habit, pattern in _APP_HABITS.items():
        kept = [p for p in parts if not pattern.search(p)]
        if len(kept) < len(parts) and kept:
            for p in parts:
                if p not in kept:
                    caption = re.sub(r"\n*[ \t]*" + re.escape(p), "", caption).strip()
            article = "an" if rules.display_name[:1] in "AEIOUX" else "a"  # "an X habit"
            notes.append(f"'{habit}' call to action removed (not {article} {rules.display_name} habit)")
            parts = kept
            plain = [p for p in plain if p in kept]
    return caption, parts, plain


def _condense_to_short_form(
    caption: str, parts: list[str], plain: list[str], urls: list[str], rules: PlatformRules, notes: list[str]
) -> str:
    """X, Threads and Bluesky: the first sentence(s), or the one that says the most, never a
    stub of under six words, with the caption's links after them."""
    keep = plain[: _SHORT_FORM[rules.name]]
    best = max(plain, key=_information)  # the sentence that says the most (first on a tie)
    if best not in keep and _information(best) > _information(keep[-1]):
        keep = [*keep[:-1], best]  # one idea with its facts beats a hook alone
    while len(keep) < len(plain) and len(" ".join(keep).split()) < 6:  # one idea, never a stub
        keep = plain[: len(keep) + 1]
    text = " ".join(keep)
    for url in urls:
        if url not in text:
            text = f"{text} {url}"
    if text != caption:
        notes.append(
            f"caption condensed for {rules.display_name}: {len(keep)} of {len(parts)} sentences"
            + (" and the link" if urls else "")
        )
    return text


def _hook_alone_on_first_line(caption: str, parts: list[str], notes: list[str]) -> str:
    """TikTok: the first sentence alone on the first line, above the fold."""
    first = parts[0]
    rest = caption[caption.find(first) + len(first) :].strip()
    if rest and not caption.startswith(first + "\n"):
        notes.append("hook put alone on the first line for TikTok")
        return first + "\n" + rest
    return caption


def _without_emoji_wall(caption: str, notes: list[str]) -> str:
    """LinkedIn: one emoji at most."""
    text = _strip_emojis(caption, keep=1)
    if text != caption:
        notes.append("emojis reduced to one for LinkedIn")
    return text


def _pinterest_description(caption: str, d: Draft, notes: list[str]) -> str:
    """A Pin is found by search and saved, not commented on: no emojis, the keywords first, no
    calls for comments and no first comment, and a title taken from the lead."""
    text = _strip_emojis(caption)
    if text != caption:
        notes.append("emojis removed from the Pinterest description")
        caption = text
    caption, lead = _lead_with_keywords(caption, notes)
    if d.first_comment:
        d.first_comment = ""
        notes.append("first comment dropped: a Pin is found by its words, not by a question")
    if lead:
        clause = re.split(r"(?<=\w)[,.!?;](?:\s|$)", lead[0])[0].strip()
        if len(clause.split()) >= 3 and len(clause) <= 100 and clause != d.title:
            d.title = clause
            notes.append("Pinterest title taken from the description's lead (searchable words)")
    return caption


def _lead_with_keywords(caption: str, notes: list[str]) -> tuple[str, list[str]]:
    """Calls for comments go, and so does a hook that only announces what the next sentences
    say (or says less than they do), unless nothing would be left; returns the caption and
    its lead sentences (without links)."""
    parts = sentences(caption)
    drop = [p for p in parts if _ENGAGEMENT_BAIT.search(p)]
    lead = [p for p in parts if p not in drop and not find_urls(p)]
    if len(lead) > 1 and _hook_says_less(lead[0], lead[1:]):
        drop.append(lead[0])
        lead = lead[1:]
    if drop and len(drop) < len(parts):
        caption = _remove_sentences(caption, drop)
        notes.append("Pinterest description leads with its keywords (hook and calls for comments left out)")
    return caption, lead


def _hook_says_less(hook: str, later: list[str]) -> bool:
    """The hook says no more than the best later sentence, and either says less or only
    announces its words."""
    most = max(_information(p) for p in later)
    if _information(hook) > most:
        return False
    hook_words = {w.casefold() for w in re.findall(r"\w+", hook) if len(w) > 3}
    later_words = {w.casefold() for p in later for w in re.findall(r"\w+", p)}
    return bool(hook_words & later_words) or _information(hook) < most
