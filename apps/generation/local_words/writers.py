"""Each platform written its own way from one brief, with the author's sentences as the body.

- Instagram: a hook line, the sentences in short paragraphs, links as "link in bio" (the URL in
  the first comment), a call to action; tags at the end (adaptation places them).
- Facebook: conversational, one paragraph with the links, a call to action, a first comment.
- LinkedIn: a professional opening, one short paragraph per sentence, links in the text.
- X and Bluesky: one idea: the first fact sentence and the core facts (codes, dates, times,
  prices, handles, the link), decoration cut first; Threads the same with more room.
- TikTok: a hook alone on the first line, "link in bio".
- YouTube: a title and a description with the link.
- Pinterest: a title and a keyword-rich description with the link, no emojis, no bait.

Sober intents (recall, apology, incident) open with a plain label and the instruction, and get
no emojis, no hype hooks and no engagement questions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from apps.platforms.captions import compose_caption
from apps.platforms.rules import get_format

from ..base import TextResult
from .brief import Brief
from .copy import EMOJIS, FAMILY
from .roles import RANKS, Part, cut, parts_of, shorten

LONG_FORM = ("instagram", "facebook", "tiktok", "youtube", "linkedin", "pinterest")
SHORT_FORM = ("x", "threads", "bluesky", "mastodon")
#: how many topic tags each platform's users put on a post (a ceiling: fewer topics, fewer tags)
TAGS_PER_PLATFORM = {
    "x": 2,
    "bluesky": 2,
    "mastodon": 3,
    "threads": 1,
    "facebook": 3,
    "linkedin": 4,
    "tiktok": 5,
    "youtube": 3,
    "pinterest": 5,
}


@dataclass
class Writing:
    """One content's writing: the brief and what its platforms already used (no two platforms
    open with the same hook)."""

    brief: Brief
    post_type: str
    media_type: str
    used: set[str] = field(default_factory=set)

    def pick(self, section: str, key: str, platform: str) -> str:
        copy = self.brief.copy
        if copy is None:
            return ""
        rng = self.brief.rng(section, key, platform)
        for attempt in range(6):
            line = copy.pick(section, self.brief.copy_intent, key, rng, self.brief.brand.name)
            if line and (line not in self.used or attempt == 5):
                self.used.add(line)
                return line
        return ""

    def emoji(self, n: int = 0) -> str:
        if not self.brief.emojis:
            return ""
        pool = EMOJIS.get(self.brief.intent) or EMOJIS["announcement"]
        return pool[n % len(pool)]

    def fits(self, platform: str, caption: str, hashtags: list[str]) -> bool:
        limit = get_format(platform, self.post_type, self.media_type).caption
        return limit.fits(compose_caption(caption, hashtags))

    def tags(self, platform: str) -> list[str]:
        count = self.brief.request.hashtag_count
        if platform in TAGS_PER_PLATFORM:
            count = min(count, TAGS_PER_PLATFORM[platform])
        return list(self.brief.hashtags[: max(0, count)])


def _with_emoji(text: str, emoji: str) -> str:
    return f"{text} {emoji}" if text and emoji else text


def _strip_emoji(text: str) -> str:
    return re.sub(r"\s*[\U0001f300-\U0001faff\u2600-\u27bf]\ufe0f?", "", text).strip()


_DO_VERBS = re.compile(
    r"^\s*(?:always\s+)?(?:mention|include|highlight|feature|promote|emphasi[sz]e|talk about|reference|say)\s+(.+)$",
    re.IGNORECASE,
)


def _body(brief: Brief) -> list[str]:
    """The author's sentences a long-form post carries: all of them, or on ``length: short``
    the ones that hold facts (the first sentence when none does); ``long`` adds what the brand
    asks every post to mention ("mention free delivery" -> "Plus: free delivery.")."""
    if brief.request.length == "short":
        facts = [s for s in brief.sentences if brief.is_fact_sentence(s)]
        return facts or brief.sentences[:1]
    body = list(brief.sentences)
    if brief.request.length == "long" and brief.copy is not None and not brief.sober:
        for item in brief.brand.do:
            m = _DO_VERBS.match(item or "")
            if m and m.group(1).strip().casefold() not in " ".join(body).casefold():
                body.append(brief.copy.word("do_line", item=m.group(1).strip().rstrip(".")))
    return body


def _bio(brief: Brief, sentence: str) -> str:
    """A sentence's links as "link in bio" wording (Instagram, TikTok: links are not clickable
    in captions). A sentence that is only a link goes."""
    copy = brief.copy
    for url in sorted(brief.urls, key=len, reverse=True):
        while copy is not None and url in sentence:  # without words of ours, the link stays
            head, _, tail = sentence.partition(url)
            if not re.search(r"\w", head + tail.strip(" .!?")):
                return ""
            head = copy.prepositions.sub("", head.rstrip()).rstrip(" ,:")
            sentence = f"{head} {copy.word('via_bio')}{tail}" if head else f"{copy.word('via_bio')}{tail}"
            if sentence[-1:].isalnum():
                sentence += "."
    return sentence


def _ends_with_question(text: str) -> bool:
    return text.rstrip().endswith("?")


def _content_words(text: str) -> set[str]:
    return {t.casefold() for t in re.findall(r"[^\W\d_]{4,}", text)}


def _cta(w: Writing, platform: str, hook: str = "") -> str:
    """A call to action that fits the intent and says something the hook did not ('Save this
    for later.' is never followed by 'Save this post for later.')."""
    brief = w.brief
    if brief.sober or brief.request.length == "short":
        return ""
    family = FAMILY[platform]
    line = ""
    for _ in range(4):
        line = w.pick("cta", family, platform)
        if not (_content_words(line) & _content_words(hook)):
            break
    else:
        line = ""  # every call to action would repeat the hook: none
    if brief.quiet and _ends_with_question(line):
        return ""
    return line


def _opening(brief: Brief) -> set[str]:
    """The content words of the brief's first few words, which a hook must not say again
    ('Quick tip.' over 'Quick tip from our mechanics: …', 'Product recall.' over 'Recall notice: …')."""
    first = brief.sentences[0] if brief.sentences else ""
    return _key_words(" ".join(first.split()[:6]))


#: too small to count as saying it again ('Something new!' over 'New autumn menu …' reads fine)
_SMALL = frozenset(
    {"the", "and", "for", "our", "you", "your", "from", "with", "this", "that", "are", "its", "new"}
)


def _key_words(text: str) -> set[str]:
    """Words of three letters or more ('tip', 'hiring'), but the smallest ones."""
    return {t.casefold() for t in re.findall(r"[^\W\d_]{3,}", text)} - _SMALL


def _hook(w: Writing, platform: str) -> str:
    brief = w.brief
    opening = _opening(brief)
    if brief.sober:
        label = brief.copy.label(brief.intent) if brief.copy else ""
        return "" if _key_words(label) & opening else label
    if not brief.confident:
        return ""  # unsure what the post is for: no hook rather than a wrong one
    family = {"short": "social", "pin": "social"}.get(FAMILY[platform], FAMILY[platform])
    hook = w.pick("hooks", family, platform)
    if _key_words(hook) & opening:
        # a line another platform opened with is better than one that says the brief again;
        # none that doesn't: the first, so that no two platforms read the same
        spare = Writing(brief=brief, post_type=w.post_type, media_type=w.media_type, used={hook})
        for _ in range(4):
            candidate = spare.pick("hooks", family, platform)
            if candidate and not (_key_words(candidate) & opening):
                hook = candidate
                break
    if not brief.emojis:
        hook = _strip_emoji(hook)
        if hook and hook[-1].isalnum():
            hook += "."  # 'Quick tip 👇' without its emoji: 'Quick tip.'
    if brief.quiet and _ends_with_question(hook):
        return ""
    return hook


def _comment(w: Writing, platform: str) -> str:
    """A first comment a person would post under this platform's post: a question that fits the
    intent (none on a sober or quiet post), and on Instagram the caption's link."""
    brief = w.brief
    copy = brief.copy
    if copy is None or platform in ("tiktok", "pinterest", "x", "bluesky", "threads"):
        return ""
    parts: list[str] = []
    if brief.sober:
        parts.append(copy.pick("comments", brief.intent, "all", brief.rng("comment", platform)))
    elif brief.confident:  # unsure what the post is for: no stock comment (the link alone on Instagram)
        line = w.pick("comments", platform, platform)
        if line and not (brief.quiet and _ends_with_question(line)):
            parts.append(_with_emoji(line, w.emoji(2)) if platform == "instagram" else line)
    if platform == "instagram" and brief.urls:
        parts.append(copy.word("comment_link", url=" ".join(brief.urls)))
    return "\n\n".join(p for p in parts if p)


def _paragraphs(sentences: list[str], per: int) -> list[str]:
    return [" ".join(sentences[i : i + per]) for i in range(0, len(sentences), per)]


def _finish(parts: list[str], sign_off: str) -> str:
    if sign_off:
        parts = [*parts, sign_off]
    return "\n\n".join(p for p in parts if p and p.strip())


def write_instagram(w: Writing) -> TextResult:
    brief = w.brief
    body = [s for s in (_bio(brief, s) for s in _body(brief)) if s]
    hook = _hook(w, "instagram")
    parts = [_with_emoji(hook, w.emoji(0)), *_paragraphs(body, 2)]
    if brief.urls and brief.copy is not None and not any(brief.copy.word("via_bio") in s for s in body):
        parts.append(brief.copy.word("bio_line"))
    parts.append(_with_emoji(_cta(w, "instagram", hook), w.emoji(1)))
    return TextResult(
        caption=_finish(parts, brief.sign_off),
        hashtags=w.tags("instagram"),
        first_comment=_comment(w, "instagram"),
    )


def write_facebook(w: Writing) -> TextResult:
    brief = w.brief
    body = _body(brief)
    hook = _hook(w, "facebook")
    parts = [_with_emoji(hook, w.emoji(1)), " ".join(body)]
    missing = [u for u in brief.urls if u not in " ".join(body)]
    if missing and brief.copy is not None:
        parts.append(brief.copy.link_line("facebook", " ".join(missing)))
    parts.append(_cta(w, "facebook", hook))
    comment = _comment(w, "facebook")
    if brief.sober:  # where to ask goes in the post itself, not under it
        parts.append(comment)
        comment = ""
    return TextResult(
        caption=_finish(parts, brief.sign_off),
        hashtags=w.tags("facebook"),
        first_comment=comment,
    )


def write_linkedin(w: Writing) -> TextResult:
    brief = w.brief
    body = _body(brief)
    hook = _hook(w, "linkedin")
    parts = [hook, *_paragraphs(body, 1)]
    missing = [u for u in brief.urls if u not in " ".join(body)]
    if missing and brief.copy is not None:
        parts.append(brief.copy.link_line("linkedin", " ".join(missing)))
    parts.append(_cta(w, "linkedin", hook))
    return TextResult(
        caption=_finish(parts, brief.sign_off),
        hashtags=w.tags("linkedin"),
        first_comment=_comment(w, "linkedin"),
    )


#: a TikTok caption is read over a playing video: about two lines, said the way one speaks
TIKTOK_BUDGET = 220


def write_tiktok(w: Writing) -> TextResult:
    """A short spoken-style caption: the hook alone on the first line, then one line per
    sentence of what the post must say (the news, an instruction, a price, a date, a call to
    action), context and pleasantries left to the video when it runs long; links as 'link in
    bio'."""
    brief = w.brief
    body = [s for s in (_bio(brief, s) for s in _body(brief)) if s]
    parts = parts_of(body, brief.language)
    if len(" ".join(p.text for p in parts)) > TIKTOK_BUDGET:  # what must stay always does
        parts = [p for p in parts if p.rank <= RANKS["quote"]] or parts[:1]
    hook = _hook(w, "tiktok")
    lines = [hook, *[p.text for p in parts]] if hook else [p.text for p in parts]
    if brief.urls and brief.copy is not None and not any(brief.copy.word("via_bio") in s for s in lines):
        lines.append(brief.copy.word("bio_line"))
    cta = _cta(w, "tiktok", hook)
    if cta:
        lines.append(cta)
    caption = "\n".join(line for line in lines if line)
    if brief.sign_off:
        caption += "\n" + brief.sign_off
    return TextResult(caption=caption, hashtags=w.tags("tiktok"), title=_title(brief, 90))


def _title(brief: Brief, limit: int = 100) -> str:
    """A title in the author's words: the first sentence without its link, cut when too long at
    the last clause boundary (a comma, a colon, a parenthesis, 'for', 'with'...) that splits no
    fact ('Friday, June 12' stays whole); a closing period goes, an abbreviation's stays."""
    first = next((s for s in brief.sentences if not s.startswith("http")), brief.sentences[0])
    for url in brief.urls:
        first = first.replace(url, "").strip()
    first = shorten(first, brief.language)  # a parenthesis or 'hosted by …' is no part of a title
    quoted = re.match(r"\s*([«“„‘「\"][^»”“’」\"]+[»”“’」\"])\s*(?:[—–-]\s*([^,.;]+))?", first)
    if quoted and len(quoted.group(1)) <= limit:  # a testimonial: the quotation, and who said it
        who = f"{quoted.group(1)} — {quoted.group(2).strip()}" if quoted.group(2) else ""
        return who if who and len(who) <= limit else quoted.group(1)
    title = first.rstrip(" ")
    if not re.search(r"(?:\b\w\.\w\.|\b(?:Co|Inc|Ltd|St|Dr|Jr|Sr|etc)\.)$", title):
        title = title.rstrip(".!?… ")
    title = re.sub(r"[\s:,;-]+$", "", title)
    if len(title) <= limit:
        return title
    spans = [(f.start, f.end) for f in brief.facts_of(title)]
    cuts = [
        m.start()
        for m in re.finditer(
            r"[,;:(]|\s[-–]\s|\s(?:for|with|because|to|and|at|on|in|por|pour|für|mit|para|com)\s", title
        )
        if 12 <= m.start() <= limit and not any(a < m.start() < b for a, b in spans)
    ]
    candidates = [title[:c].rstrip(" ,;:-–") for c in cuts]
    intro = re.match(
        r"(?i)(?:in|at|on|for|after|before|with|this|last|next|en|im|am|em|no|na|dans|pour|para|con|mit|für|nach)\b",
        title,
    )
    for m in re.finditer(r",\s", title if intro else ""):  # 'In episode 18 of X, Lena Ortiz shares ...'
        rest = title[m.end() :]
        if not any(a < m.start() < b for a, b in spans) and 20 <= len(rest) <= limit:
            candidates.append(rest[:1].upper() + rest[1:])
    if candidates:
        return max(candidates, key=len)
    return title[:limit].rsplit(" ", 1)[0]


def write_youtube(w: Writing) -> TextResult:
    brief = w.brief
    body = _body(brief)
    parts = [" ".join(body)]
    missing = [u for u in brief.urls if u not in parts[0]]
    if missing and brief.copy is not None:
        parts.append(brief.copy.link_line("youtube", " ".join(missing)))
    if _cta(w, "youtube") and brief.copy is not None:  # YouTube's own call to action
        parts.append(brief.copy.word("youtube_subscribe"))
    elif brief.sober and brief.copy is not None:  # a sober description closes with where to ask
        parts.append(brief.copy.pick("comments", brief.intent, "all", brief.rng("closing")))
    return TextResult(
        caption=_finish(parts, brief.sign_off),
        hashtags=w.tags("youtube"),
        first_comment="" if brief.sober else _comment(w, "youtube"),
        title=_title(brief),
    )


def _fits_with(
    w: Writing, platform: str, tags: list[str], before: str = "", after: str = ""
) -> Callable[[list[str]], bool]:
    def fits(texts: list[str]) -> bool:
        body = " ".join(texts)
        return w.fits(platform, "\n\n".join(p for p in (before, body, after) if p), tags)

    return fits


def _overflow_comment(w: Writing, platform: str, overflow: list[Part], text: str) -> str:
    """What did not fit, posted as the first comment where the platform takes one (X, Bluesky,
    Threads, Mastodon), cut to the comment's limit from the end."""
    fmt = get_format(platform, w.post_type, w.media_type)
    if not fmt.first_comment_supported or not overflow:
        return ""
    lines = [p.text for p in overflow if p.text not in text]
    while lines and not fmt.first_comment.fits(" ".join(lines)):
        lines.pop()
    return " ".join(lines)


def write_pinterest(w: Writing) -> TextResult:
    """A keyword-rich description under a written title: the ranked sentences that fit (what
    must stay never dropped for decoration), the link, a call to save the Pin when it fits."""
    brief = w.brief
    tags = w.tags("pinterest")
    label = _hook(w, "pinterest") if brief.sober else ""
    parts = parts_of([_strip_emoji(s) for s in _body(brief)], brief.language)
    missing_links = lambda text: [u for u in brief.urls if u not in text]  # noqa: E731
    link_line = ""
    if brief.copy is not None and missing_links(" ".join(p.text for p in parts)):
        link_line = brief.copy.link_line(
            "pinterest", " ".join(missing_links(" ".join(p.text for p in parts)))
        )
    chosen = cut(parts, _fits_with(w, "pinterest", tags, label, link_line), brief.language)
    body = " ".join([*([label] if label else []), chosen.text])
    blocks = [body]
    missing = missing_links(body)
    if missing and brief.copy is not None:
        blocks.append(brief.copy.link_line("pinterest", " ".join(missing)))
    cta = _cta(w, "pinterest")
    if cta and w.fits("pinterest", "\n\n".join([*blocks, cta]), tags):
        blocks.append(cta)
    caption = "\n\n".join(b for b in blocks if b)
    return TextResult(caption=caption, hashtags=tags, title=_title(brief))


def write_short(w: Writing, platform: str) -> TextResult:
    """X, Bluesky, Threads, Mastodon: the ranked sentences that fit (shortened inside first,
    then the lowest-ranked dropped: a pleasantry goes before a price, a deadline, a poll's
    options, an instruction or a link), the link in the text, a short hook when there is room,
    and what did not fit in the first comment. X keeps the news and what must stay, not the
    context: one newsworthy line with its link."""
    brief = w.brief
    tags = w.tags(platform)
    parts = parts_of(_body(brief), brief.language)
    if brief.request.length == "short":
        parts = [p for p in parts if p.must_keep or brief.is_fact_sentence(p.text)] or parts[:1]
    drop_below = RANKS["detail"] if platform == "x" else None
    chosen = cut(
        parts,
        _fits_with(w, platform, tags),
        brief.language,
        drop_below=drop_below,
        always_shorten=platform == "x",
    )
    text = chosen.text
    for url in brief.urls:
        if url not in text and w.fits(platform, f"{text} {url}", tags):
            text = f"{text} {url}"
    hook = _hook(w, platform)
    if platform == "x" and hook and not brief.sober:
        hook = _with_emoji(hook, w.emoji(0))
    if hook and w.fits(platform, f"{hook} {text}", tags):
        text = f"{hook}\n\n{text}" if platform == "threads" else f"{hook} {text}"
    if platform == "threads":
        cta = _cta(w, platform)
        if cta and w.fits(platform, f"{text}\n\n{cta}", tags):
            text = f"{text}\n\n{cta}"
    comment = _overflow_comment(w, platform, chosen.overflow, text)
    if brief.sign_off and w.fits(platform, f"{text}\n\n{brief.sign_off}", tags):
        text = f"{text}\n\n{brief.sign_off}"
    return TextResult(caption=text, hashtags=tags, first_comment=comment)


WRITERS = {
    "instagram": write_instagram,
    "facebook": write_facebook,
    "linkedin": write_linkedin,
    "tiktok": write_tiktok,
    "youtube": write_youtube,
    "pinterest": write_pinterest,
}


def write(w: Writing, platform: str) -> TextResult:
    if platform in WRITERS:
        return WRITERS[platform](w)
    return write_short(w, platform)
