"""The checks every engine's text passes, whichever engine wrote it (the local one or a
provider's): the brief's facts kept, no banned word, no junk hashtag, links where the platform
can use them, the register of a sensitive post, captions of their own, and each platform's limits.

:func:`check_texts` lists the problems (a provider engine sends them back to the model as a
repair turn, see :mod:`apps.generation.provider_text`); :func:`clean_texts` mends the ones that
can be mended without a writer (a banned word removed as a word, never its sentence; a junk tag
dropped; emojis, exclamation marks and sounds taken out of a sober post; a URL taken out of an
Instagram or TikTok caption). The facts themselves are read by :mod:`apps.platforms.facts`.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from apps.platforms import facts as brief_facts
from apps.platforms import intents as brief_intents
from apps.platforms.captions import compose_caption, inline_hashtags
from apps.platforms.rules import FormatRules, UnsupportedFormat, get_rules, normalize_platform
from apps.platforms.text import find_urls

from .base import TextRequest, TextResult

logger = logging.getLogger(__name__)

#: problems no mending can fix: the reply is incomplete, or it lost the author's facts
HARD_KINDS = frozenset({"json", "structure", "missing_platform", "missing_key", "fact"})

#: the long-form platforms keep every fact of the brief; the others keep the core facts
SHORT_FORM = frozenset({"x", "threads", "bluesky"})
#: where a URL in the caption is not a link: "link in bio" there (the URL stays on the content)
NO_URL_IN_CAPTION = frozenset({"instagram", "tiktok"})
SOBER_INTENTS = brief_intents.SOBER_INTENTS
#: tones in which a post asks nothing of the reader and shows no emojis
QUIET_TONES = frozenset({"empathetic", "serious", "sober", "solemn", "respectful", "formal"})

_EMOJI_RE = re.compile(
    "(?:[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff]\ufe0f?|\u200d|\ufe0f)"
)
#: sounds a sober post never gets (a calm one, "soft piano", is fine)
_UPBEAT = re.compile(
    r"happy|upbeat|party|dance|\bfun|energetic|hype|celebrat|ukulele|\bpop\b|summer|groove|bounce|cheer|"
    r"uplifting|festive|disco|bright|joy|whistl|clap",
    re.IGNORECASE,
)
_ENGAGEMENT = re.compile(
    r"\b(?:comment below|in the comments|tell us|let us know|drop (?:a|your)|tag (?:a friend|someone|us)|"
    r"double[- ]tap|share (?:this|with)|like (?:this|if)|what do you think|who else)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a reply: where (``platform``, ``field``), what kind, and the message
    a repair turn says (it names the fact, word, tag or figures verbatim)."""

    platform: str  # '' for the whole reply
    field: str  # caption, hashtags, firstComment, altText, title, sounds, or ''
    kind: str  # json, structure, missing_platform, missing_key, fact, banned, junk_tag, link, limit, register, same
    message: str


# --- what the request asks -------------------------------------------------------------------


def register_intent(request: TextRequest) -> str:
    """The intent a post is written for: the one set (``settings.intent``), else the brief's."""
    given = (request.intent or "").strip().lower()
    return given or brief_intents.detect_intent(request.prompt, request.language)


def with_article(word: str) -> str:
    """'a recall', 'an incident', 'an apology' (never 'a incident')."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def is_sober(request: TextRequest) -> bool:
    """A recall, an apology or an incident: the instruction first, no emojis, no hype."""
    return register_intent(request) in SOBER_INTENTS


def is_quiet(request: TextRequest) -> bool:
    """No emojis and no questions: a sober intent, or a tone that calls for it."""
    return is_sober(request) or (request.tone or "").strip().lower() in QUIET_TONES


#: a "don't" guideline of at most this many words is a word or phrase never to write ("cheap",
#: "hey guys"); a longer one is an instruction ("mention competitors' prices") the prompt passes on
BANNED_PHRASE_WORDS = 3


def banned_phrases(request: TextRequest) -> list[str]:
    """The brand's "never" words and phrases (its short ``dont`` guidelines), as written."""
    items = [d.strip() for d in request.brand.dont if d and d.strip()]
    return [d for d in items if len(d.split()) <= BANNED_PHRASE_WORDS]


def dont_instructions(request: TextRequest) -> list[str]:
    """The brand's longer ``dont`` guidelines: instructions, not words."""
    items = [d.strip() for d in request.brand.dont if d and d.strip()]
    return [d for d in items if len(d.split()) > BANNED_PHRASE_WORDS]


def _banned_patterns(request: TextRequest) -> list[tuple[str, re.Pattern[str]]]:
    return [
        (phrase, re.compile(r"(?<![\w#])#?" + re.escape(phrase) + r"(?!\w)", re.IGNORECASE))
        for phrase in banned_phrases(request)
    ]


def _format(platform: str, request: TextRequest) -> FormatRules | None:
    try:
        return get_rules(platform).format_for(request.post_type, request.media_type)
    except UnsupportedFormat:
        return None


#: what each kind of fact is called where the prompt lists it (one source with the check below)
KIND_NAMES = {
    "url": "link",
    "code": "code",
    "date": "date",
    "time": "time",
    "price": "price",
    "percent": "percentage",
    "handle": "@handle",
}


def keep_rule(platform: str) -> str:
    """What ``platform``'s text must keep, in words: the rule ``required_facts`` checks, rendered
    into the prompt from the same data (``SHORT_FORM``, ``CORE_KINDS``), so the prompt never
    allows what the check refuses."""
    if platform in SHORT_FORM:
        kinds = ", ".join(KIND_NAMES[k] for k in sorted(brief_facts.CORE_KINDS, key=list(KIND_NAMES).index))
        where = (
            " or, where it does not fit, in the first comment" if platform in FIRST_COMMENT_OVERFLOW else ""
        )
        return (
            f"every fact of the brief's first sentence that has one, and every {kinds} of the brief, "
            f"verbatim in the caption{where}; leave out decoration first (pleasantries, then context)"
        )
    if platform in NO_URL_IN_CAPTION:
        return "every fact of the brief verbatim, but its links (say 'link in bio' instead)"
    return "every fact of the brief verbatim"


#: short platforms whose text may put what does not fit in the first comment (they take one)
FIRST_COMMENT_OVERFLOW = frozenset({"x", "threads", "bluesky"})


def must_keep(request: TextRequest) -> list[str]:
    """The brief's must-keep items, verbatim, for the prompt: the facts every short platform
    keeps (links, codes, dates, times, prices, percentages, handles)."""
    return [f.text for f in required_facts(request, "x") if f.kind in brief_facts.CORE_KINDS]


def required_facts(request: TextRequest, platform: str) -> list[brief_facts.Fact]:
    """The facts of the brief ``platform``'s text must hold verbatim: every one on the
    long-form platforms, the core ones on X, Threads and Bluesky (every fact of the first
    sentence that has one, and the links, codes, dates, times, prices, percentages and handles
    of the others); never a link where the platform cannot use one."""
    brief, language = request.prompt, request.language
    facts = brief_facts.facts_in(brief, language)
    if platform in SHORT_FORM:
        first = next(iter(brief_facts.fact_sentences(brief, language)), "")
        start = brief.find(first) if first else -1
        end = start + len(first)
        facts = [
            f for f in facts if f.kind in brief_facts.CORE_KINDS or (start >= 0 and start <= f.start < end)
        ]
    out: list[brief_facts.Fact] = []
    seen: set[str] = set()
    for fact in facts:
        if platform in NO_URL_IN_CAPTION and fact.kind == "url" and "@" not in fact.text:
            continue
        if fact.text not in seen:
            seen.add(fact.text)
            out.append(fact)
    return out


def _fact_kept(fact: brief_facts.Fact, result: TextResult, platform: str = "") -> bool:
    """Verbatim in the caption (on X, Threads and Bluesky, or in the first comment, where what
    did not fit goes); an author's own #tag may stand in the hashtags instead."""
    if fact.text in result.caption:
        return True
    if platform in FIRST_COMMENT_OVERFLOW and fact.text in result.first_comment:
        return True
    return fact.kind == "hashtag" and fact.text.casefold() in {t.casefold() for t in result.hashtags}


# --- checks ------------------------------------------------------------------------------------


def check_texts(request: TextRequest, results: Mapping[str, TextResult]) -> list[Problem]:
    """Every problem of ``results`` (one text per platform) against the brief and the rules."""
    problems: list[Problem] = []
    banned = _banned_patterns(request)
    captions_seen: dict[str, str] = {}
    for name, result in results.items():
        platform = normalize_platform(name)
        fmt = _format(platform, request)
        problems += _facts_problems(request, platform, result)
        problems += _banned_problems(platform, result, banned)
        problems += _hashtag_problems(request, platform, result)
        problems += _link_problems(platform, result)
        problems += _register_problems(request, platform, result, fmt)
        if fmt is not None:
            problems += _limit_problems(platform, result, fmt)
        problems += _same_caption_problems(platform, result, captions_seen)
    return problems


def _facts_problems(request: TextRequest, platform: str, result: TextResult) -> list[Problem]:
    missing = [f for f in required_facts(request, platform) if not _fact_kept(f, result, platform)]
    return [
        Problem(
            platform,
            "caption",
            "fact",
            f'the caption lost the fact "{fact.text}" from the brief; write it exactly as the brief does.',
        )
        for fact in missing
    ]


def _fields(result: TextResult) -> list[tuple[str, str]]:
    return [
        ("caption", result.caption),
        ("firstComment", result.first_comment),
        ("title", result.title),
        ("altText", result.alt_text),
    ]


def _banned_problems(
    platform: str, result: TextResult, banned: list[tuple[str, re.Pattern[str]]]
) -> list[Problem]:
    out: list[Problem] = []
    for phrase, pattern in banned:
        where = [name for name, text in _fields(result) if pattern.search(text)]
        if any(pattern.search(tag) or pattern.search(tag.lstrip("#")) for tag in result.hashtags):
            where.append("hashtags")
        for name in where:
            out.append(
                Problem(
                    platform,
                    name,
                    "banned",
                    f'"{name}" uses "{phrase}", which the brand never uses; rephrase without it.',
                )
            )
    return out


def _hashtag_problems(request: TextRequest, platform: str, result: TextResult) -> list[Problem]:
    tags = list(result.hashtags) + [t for _, _, t in inline_hashtags(result.caption)]
    junk = [t for t in dict.fromkeys(tags) if brief_facts.is_junk_hashtag(t, request.language)]
    return [
        Problem(
            platform,
            "hashtags",
            "junk_tag",
            f"the hashtag {tag} is not a topic a person would follow; use topics of the brief or none.",
        )
        for tag in junk
    ]


def _link_problems(platform: str, result: TextResult) -> list[Problem]:
    if platform not in NO_URL_IN_CAPTION:
        return []
    urls = [result.caption[s:e] for s, e in find_urls(result.caption)]
    if not urls:
        return []
    display = get_rules(platform).display_name
    advice = f"links are not clickable on {display}: write 'link in bio' instead and leave the URL out"
    return [Problem(platform, "caption", "link", f"the caption holds {', '.join(urls)}; {advice}.")]


def _has_emoji(text: str) -> bool:
    return bool(_EMOJI_RE.search(text or ""))


def _register_problems(
    request: TextRequest, platform: str, result: TextResult, fmt: FormatRules | None
) -> list[Problem]:
    if not is_quiet(request):
        return []
    what = (
        f"{with_article(register_intent(request))} post"
        if is_sober(request)
        else f"a post in {with_article(request.tone)} tone"
    )
    out: list[Problem] = []
    for name, text in _fields(result):
        if _has_emoji(text):
            out.append(Problem(platform, name, "register", f'"{name}" has emojis; {what} takes none.'))
    texts = [result.caption, result.first_comment]
    if any(_ENGAGEMENT.search(t) or "?" in t for t in texts):
        out.append(
            Problem(
                platform,
                "caption",
                "register",
                f"{what} asks the reader nothing: no questions and no calls for comments, likes, shares or tags.",
            )
        )
    if is_sober(request):
        if any("!" in t for t in texts):
            out.append(Problem(platform, "caption", "register", f"{what} has no exclamation marks."))
        upbeat = [s for s in result.sounds if _UPBEAT.search(s)]
        if upbeat and fmt is not None and fmt.sounds_supported:
            out.append(
                Problem(
                    platform,
                    "sounds",
                    "register",
                    f"{what} takes no upbeat sounds ({', '.join(upbeat)}): a calm one or none.",
                )
            )
    return out


def _limit_problems(platform: str, result: TextResult, fmt: FormatRules) -> list[Problem]:
    display = get_rules(platform).display_name
    out: list[Problem] = []
    checks = [
        ("caption", compose_caption(result.caption, result.hashtags), fmt.caption, "with its hashtags ")
    ]
    if fmt.title is not None:
        checks.append(("title", result.title, fmt.title, ""))
    if fmt.first_comment_supported:
        checks.append(("firstComment", result.first_comment, fmt.first_comment, ""))
    if fmt.alt_text is not None:
        checks.append(("altText", result.alt_text, fmt.alt_text, ""))
    for name, text, limit, extra in checks:
        if text and not limit.fits(text):
            problem = limit.problem(text, f" on {display}")
            out.append(
                Problem(platform, name, "limit", f'"{name}" {extra}{problem}; shorten it, keeping the facts.')
            )
    return out


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", _EMOJI_RE.sub("", text or "")).strip().casefold()


def _same_caption_problems(platform: str, result: TextResult, seen: dict[str, str]) -> list[Problem]:
    if platform in SHORT_FORM or not result.caption:
        return []
    key = _plain(result.caption)
    other = seen.get(key)
    if other is None:
        seen[key] = platform
        return []
    return [
        Problem(
            platform,
            "caption",
            "same",
            f"the caption is the same as {other}'s; write {platform}'s its own way.",
        )
    ]


# --- mending -----------------------------------------------------------------------------------


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"[ \t]+([,.!?:;…])", r"\1", text)
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)
    text = re.sub(r"(^|\n)[ \t]*[,.!?:;]+[ \t]*", r"\1", text)  # a line that now opens on punctuation
    text = re.sub(r"([.!?])[ \t]*[,.;:]+", r"\1", text)
    text = re.sub(r"[ \t]+\n", "\n", text)
    return text.strip()


def remove_phrase(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` without the phrase (as a word, never its sentence); a sentence it opened starts
    with a capital again."""
    for _ in range(50):  # bounded: each pass removes one occurrence
        m = pattern.search(text or "")
        if m is None:
            break
        head, tail = text[: m.start()], text[m.end() :]
        if not head.strip() or re.search(r"[.!?…\n]\s*$", head):  # it opened a sentence
            tail = tail.lstrip(" \t,;:!.")
            tail = tail[:1].upper() + tail[1:]
            head = head if not head.strip() else head.rstrip(" \t") + ("" if head.endswith("\n") else " ")
        text = head + tail
    return _tidy(text)


#: "link in bio" in the languages the embedded engine writes (a URL on Instagram or TikTok becomes it)
LINK_IN_BIO = {
    "en": "link in bio",
    "es": "enlace en la bio",
    "fr": "lien dans la bio",
    "de": "Link in der Bio",
    "pt": "link na bio",
}
_LINK_IN_BIO_RE = re.compile(
    r"link in (?:our |the )?bio|enlace (?:en|de) (?:la |nuestra )?bio|lien dans (?:la |notre )?bio|"
    r"link in (?:der |unserer )?bio|link na (?:nossa )?bio",
    re.IGNORECASE,
)


def _without_urls(text: str, platform: str, language: str) -> str:
    """The caption's URLs out; on Instagram and TikTok the first becomes "link in bio" (in the
    post's language) unless the caption says it already."""
    spans = find_urls(text)
    say = LINK_IN_BIO.get(brief_facts.language_code(language), "")
    if _LINK_IN_BIO_RE.search(text):
        say = ""
    for n, (s, e) in enumerate(reversed(spans)):
        first = n == len(spans) - 1
        text = text[:s] + (say if first else "") + text[e:]
    return _tidy(text)


@dataclass
class _Mending:
    """One platform's text being mended: its fields as they stand and the notes of each change."""

    platform: str
    fields: dict[str, str]  # caption, first_comment, title, alt_text
    hashtags: list[str]
    sounds: list[str]
    notes: list[str]

    def note(self, text: str) -> None:
        self.notes.append(text)

    def without_banned(self, banned: list[tuple[str, re.Pattern[str]]]) -> None:
        for phrase, pattern in banned:
            for key, text in self.fields.items():
                mended = remove_phrase(text, pattern)
                if mended != text:
                    self.fields[key] = mended
                    self.note(
                        f'"{phrase}" removed from the {key.replace("_", " ")} (the brand never uses it)'
                    )
            kept = [t for t in self.hashtags if not (pattern.search(t) or pattern.search(t.lstrip("#")))]
            if len(kept) != len(self.hashtags):
                self.note(f'hashtags with "{phrase}" dropped')
                self.hashtags = kept

    def without_junk_tags(self, language: str) -> None:
        junk = [t for t in self.hashtags if brief_facts.is_junk_hashtag(t, language)]
        if junk:
            self.hashtags = [t for t in self.hashtags if t not in junk]
            self.note(f"junk hashtags dropped: {' '.join(junk)}")
        caption = self.fields["caption"]
        inline = [
            (s, e, t) for s, e, t in inline_hashtags(caption) if brief_facts.is_junk_hashtag(t, language)
        ]
        if inline:
            for s, e, _ in reversed(inline):
                caption = caption[:s] + caption[e:]
            self.fields["caption"] = _tidy(caption)
            self.note(f"junk hashtags dropped from the caption: {' '.join(t for *_, t in inline)}")

    def without_urls(self, language: str) -> None:
        if self.platform in NO_URL_IN_CAPTION and find_urls(self.fields["caption"]):
            self.fields["caption"] = _without_urls(self.fields["caption"], self.platform, language)
            self.note("URL taken out of the caption (not a link there)")

    def quiet(self) -> None:
        for key, text in self.fields.items():
            if _EMOJI_RE.search(text):
                self.fields[key] = _tidy(_EMOJI_RE.sub("", text))
                self.note(f"emojis removed from the {key.replace('_', ' ')}")

    def sober(self) -> None:
        for key in ("caption", "first_comment", "title"):
            if "!" in self.fields[key]:
                self.fields[key] = re.sub(r"!+", ".", self.fields[key]).replace("..", ".")
                self.note(f"exclamation marks removed from the {key.replace('_', ' ')}")
        upbeat = [s for s in self.sounds if _UPBEAT.search(s)]
        if upbeat:
            self.sounds = [s for s in self.sounds if s not in upbeat]
            self.note(f"upbeat sounds dropped (a sober post): {', '.join(upbeat)}")


def clean_texts(
    request: TextRequest, results: Mapping[str, TextResult]
) -> tuple[dict[str, TextResult], dict[str, list[str]]]:
    """``results`` with what can be mended without a writer mended, and notes of each change by
    platform: banned words removed as words (and hashtags holding them dropped), junk hashtags
    dropped, a URL in an Instagram or TikTok caption made "link in bio", emojis out of a quiet post, exclamation marks and upbeat sounds out of a
    sober one."""
    banned = _banned_patterns(request)
    out: dict[str, TextResult] = {}
    notes: dict[str, list[str]] = {}
    for name, result in results.items():
        work = _Mending(
            platform=normalize_platform(name),
            fields={
                "caption": result.caption,
                "first_comment": result.first_comment,
                "title": result.title,
                "alt_text": result.alt_text,
            },
            hashtags=list(result.hashtags),
            sounds=list(result.sounds),
            notes=notes.setdefault(name, []),
        )
        work.without_banned(banned)
        work.without_junk_tags(request.language)
        work.without_urls(request.language)
        if is_quiet(request):
            work.quiet()
        if is_sober(request):
            work.sober()
        out[name] = dataclasses.replace(
            result,
            hashtags=work.hashtags,
            sounds=work.sounds,
            caption=work.fields["caption"],
            first_comment=work.fields["first_comment"],
            title=work.fields["title"],
            alt_text=work.fields["alt_text"],
        )
    return out, notes


def publishable(
    request: TextRequest, results: Mapping[str, TextResult], *, engine: str = ""
) -> tuple[dict[str, TextResult], dict[str, list[str]]]:
    """The checks every engine's text passes before it is fitted to its platforms (the pipeline
    runs this for every engine, local or provider): what can be mended is mended (with a note
    per platform for its ``adaptations``), and what is still wrong afterwards (a lost fact, an
    identical caption) is logged with the engine's name. A provider engine has already sent its
    problems back to the model (apps/generation/provider_text.py)."""
    mended, notes = clean_texts(request, results)
    left = check_texts(request, mended)
    if left:
        logger.warning("%s text still breaks the checks: %s", engine or "engine", problems_text(left))
    return mended, notes


def problems_text(problems: Iterable[Problem]) -> str:
    return "; ".join(f"{p.platform}: {p.message}" if p.platform else p.message for p in problems)
