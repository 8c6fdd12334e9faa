"""The provider engines' text: every platform of a content in one call, checked, and repaired
by conversation.

:func:`render_prompt` renders ``prompts/text.md`` (one readable template, Django's template
engine with autoescape off) with each platform's rules from the platform data
(:mod:`apps.platforms.rules`): its caption limit in its own unit, its hashtag range, whether it
takes a first comment, an alt text, a title and sounds, and where its links go. The brief's
intent (``request.intent``, else detected by :func:`apps.platforms.intents.detect_intent`) picks
the register.

:class:`TextConversation` holds the conversation with the model: the engine sends
``conversation.messages``, hands the raw reply to :meth:`TextConversation.reply`, which parses
it (:func:`parse_texts`) and checks it (:func:`apps.generation.text_checks.check_texts`, the
same checks the pipeline runs on every engine's text). A reply with problems gets a repair turn
appended (the reply as the assistant's message, then a user message naming every problem:
missing keys, a missing platform, a lost fact verbatim, a banned word, a junk tag, a limit with
its count), never an identical retry. After ``repairs`` repair turns, a reply that still is not
JSON, misses a platform or its caption, or loses a fact raises :class:`EngineError`; smaller
problems (a banned word, a junk tag, emojis in a sober post) are left to the pipeline's check
(:func:`apps.generation.text_checks.publishable`), which mends them for every engine and notes
each change in the variant's adaptations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from apps.platforms.rules import FormatRules, UnsupportedFormat, get_rules, normalize_platform
from apps.platforms.text import UNIT_CHARACTERS

from .base import EngineError, TextRequest, TextResult
from .provider_common import (
    FIELD_ALIASES,
    extract_json_object,
    normalize_hashtags,
    sentence,
    strip_emojis,
)
from .text_checks import (
    HARD_KINDS,
    Problem,
    banned_phrases,
    check_texts,
    dont_instructions,
    is_sober,
    keep_rule,
    must_keep,
    register_intent,
    with_article,
)

PROMPT_DIR = Path(__file__).resolve().parent / "prompts"
USER_MARKER = "=== user ==="

#: repair turns a reply gets before the engine gives up (GENERATION_TEXT_REPAIRS)
DEFAULT_REPAIRS = 2

POST_FIELDS = ("caption", "hashtags", "firstComment", "altText", "title", "sounds")

POST_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "caption": {"type": "string"},
        "hashtags": {"type": "array", "items": {"type": "string"}},
        "firstComment": {"type": "string"},
        "altText": {"type": "string"},
        "title": {"type": "string"},
        "sounds": {"type": "array", "items": {"type": "string"}},
    },
    "required": list(POST_FIELDS),
    "additionalProperties": False,
}

# How each platform reads: its hook, structure and call to action (the limits come from the rules).
PLATFORM_NOTES = {
    "instagram": (
        "a hook line that stops the scroll, then short paragraphs separated by line breaks, one call "
        "to action; 'link in bio' where a link would go"
    ),
    "facebook": "conversational, two or three short paragraphs, the link in the text, one call to action",
    "tiktok": "a hook alone on the first line, then one or two short lines; 'link in bio' where a link would go",
    "youtube": (
        "a clear searchable title; a description whose first lines say what the video is about, then "
        "the details and the link"
    ),
    "linkedin": (
        "a professional opening line, then short paragraphs of one to three sentences, specific and "
        "useful, at most one emoji, the link in the text"
    ),
    "x": "one idea in one or two sentences with the core facts and the link",
    "threads": "conversational, one idea in one to three sentences with the core facts and the link",
    "bluesky": "conversational, one idea in one or two sentences with the core facts and the link",
    "pinterest": (
        "a title of searchable words; a keyword-rich description that starts with what the Pin shows, "
        "no emojis, no calls for comments or likes"
    ),
    "mastodon": "plain and conversational, the link in the text, hashtags in CamelCase",
}
#: how each platform reads a sober post (a recall, an apology, an incident): no hook, the instruction first
SOBER_NOTES = {
    "instagram": "the instruction or the apology on the first line, then the facts in short paragraphs; "
    "'link in bio' where a link would go",
    "tiktok": "the instruction alone on the first line, then the facts; 'link in bio' where a link would go",
    "x": "the instruction and the core facts in one or two sentences, with the link",
    "threads": "the instruction and the core facts in one to three sentences, with the link",
    "bluesky": "the instruction and the core facts in one or two sentences, with the link",
    "pinterest": "a plain title; a description that starts with the instruction, then the facts",
    "youtube": "a plain title; a description that starts with the instruction, then the facts and the link",
}
SOBER_DEFAULT_NOTE = "the instruction or the apology first, then the facts, plainly, with the link"
LINK_IN_BIO = {"instagram", "tiktok"}
_LINK_RULES = {
    "text": "the brief's links in the caption, exactly as written",
    "bio": "no URL anywhere; write 'link in bio' (in the post's language) where the link would go",
    "pinterest": (
        "the brief's links at the end of the description, exactly as written (the Pin's destination "
        "link is set when it is published)"
    ),
}
_LENGTHS = {
    "short": "short: the facts in two or three sentences, nothing more",
    "medium": "medium: three to six sentences or short paragraphs",
    "long": "long: six to ten sentences or short paragraphs",
}

# The register each intent is written in (apps.platforms.intents.detect_intent names them).
SOBER_REGISTER = (
    "This is {intent} post: write it sober and plain. The instruction or the apology comes first "
    "(what to do or not do, who is affected), then the facts. No emojis, no exclamation marks, no hype "
    "or sales hook, no questions to the reader and no calls for comments, likes, shares or tags, and no "
    "upbeat sounds (a calm one or none)."
)
REGISTERS = {
    "launch": "This is a launch or an opening: say what opens or launches and when, warm and concrete, then one invitation.",
    "opening": "This is an opening: say what opens, where and when, warm and concrete, then one invitation.",
    "product": "This is a product release: what it is and what it does for the reader, then when and where to get it.",
    "release": "This is a product release: what it is and what it does for the reader, then when and where to get it.",
    "event": "This is an event: what, who, when and where first, then how to register or attend.",
    "talk": "This is a talk: the speaker and the subject, when and where, then how to attend.",
    "offer": "This is an offer: the offer, the code and the deadline exactly as written, and how to redeem it; no invented urgency.",
    "sale": "This is a sale: what is discounted and by how much, until when, and how to buy; no invented urgency.",
    "hiring": "This is a hiring post: the role, where, what the person will do and how to apply; professional and welcoming.",
    "fundraiser": "This is a fundraiser: the cause, the goal and how to give; warm and sincere, never guilt.",
    "recipe": "This is a recipe: what it is and its key ingredients or steps from the brief, inviting.",
    "podcast": "This is a podcast episode: the guest and the subject, then where to listen.",
    "episode": "This is an episode: the guest and the subject, then where to watch or listen.",
    "tip": "This is a tip: the useful point first, plainly explained; no sales hook.",
    "educational": "This is an educational post: the useful point first, plainly explained; no sales hook.",
    "announcement": "This is an announcement: the news first, then the details.",
}
DEFAULT_REGISTER = "Say the news first, then the details; one call to action that fits the platform."


# --- the prompt -----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _template():
    from django.template import Engine

    engine = Engine(dirs=[str(PROMPT_DIR)], autoescape=False, debug=False)
    return engine.get_template("text.md")


def platform_keys(request: TextRequest) -> tuple[str, ...]:
    """The platforms the reply is keyed by (normalised ids, in the content's order)."""
    out: list[str] = []
    for name in request.all_platforms:
        key = normalize_platform(name)
        if key not in out:
            out.append(key)
    return tuple(out)


def format_of(platform: str, request: TextRequest) -> FormatRules | None:
    try:
        return get_rules(platform).format_for(request.post_type, request.media_type)
    except UnsupportedFormat:
        return None


def _limit_text(limit) -> str:
    out = f"{limit.max:,} {limit.unit_label}"
    if limit.url_length and limit.unit != UNIT_CHARACTERS:
        out += f" (each URL counts as {limit.url_length})"
    if limit.max_bytes is not None:
        out += f" and {limit.max_bytes:,} bytes (UTF-8)"
    return out


def brand_lines(brand) -> list[str]:
    lines: list[str] = []
    if brand.name:
        lines.append(f"Name: {sentence(brand.name)}")
    if brand.voice:
        lines.append(f"Voice: {sentence(brand.voice)}")
    if brand.caption_style:
        lines.append(f"Caption style: {sentence(brand.caption_style)}")
    if brand.audience:
        lines.append(f"Audience: {sentence(brand.audience)}")
    if brand.themes:
        lines.append(f"Themes: {sentence('; '.join(t.strip() for t in brand.themes if t.strip()))}")
    if brand.do:
        lines.append(f"Always: {sentence('; '.join(d.strip() for d in brand.do if d.strip()))}")
    return lines


def _never_line(request: TextRequest) -> list[str]:
    never = dont_instructions(request)
    return [f"Never: {sentence('; '.join(never))}"] if never else []


def _hashtag_rule(platform: str, request: TextRequest) -> str:
    if not request.include_hashtags or request.hashtag_count <= 0:
        return "none ([])"
    low, high = get_rules(platform).hashtag_recommended
    high = min(high, request.hashtag_count)
    low = min(low, high)
    if high == 0:
        return "none ([])"
    return f"{low} to {high}" if low != high else f"exactly {high}" if low else f"at most {high}"


def _platform_context(platform: str, request: TextRequest) -> dict[str, str]:
    rules = get_rules(platform)
    fmt = format_of(platform, request)
    if is_sober(request):
        notes = SOBER_NOTES.get(platform, SOBER_DEFAULT_NOTE)
    else:
        notes = PLATFORM_NOTES.get(platform, "written the way its readers read")
    if fmt is None or not fmt.caption_supported:
        caption = 'none on this format ("")'
    else:
        caption = f"at most {_limit_text(fmt.caption)}, hashtags included"
    if platform in LINK_IN_BIO:
        links = _LINK_RULES["bio"]
    elif platform == "pinterest":
        links = _LINK_RULES["pinterest"]
    else:
        links = _LINK_RULES["text"]
    first_comment = (
        f"optional, at most {_limit_text(fmt.first_comment)}; a different one from every other platform's"
        if fmt is not None and fmt.first_comment_supported
        else 'none on this platform ("")'
    )
    if fmt is not None and fmt.alt_text_supported:
        alt_text = f"required, at most {_limit_text(fmt.alt_text)}" if fmt.alt_text else "required"
    else:
        alt_text = 'none on this format ("")'
    if fmt is not None and fmt.title_supported and fmt.title is not None:
        title = f"required, at most {_limit_text(fmt.title)}"
    else:
        title = 'none on this platform ("")'
    if fmt is not None and fmt.sounds_supported:
        sounds = "up to 3 names of fitting background sounds" + (
            ", calm ones or [] for a sober post" if is_sober(request) else ""
        )
    else:
        sounds = "none on this format ([])"
    return {
        "key": platform,
        "name": rules.display_name,
        "keeps": keep_rule(platform),
        "style": notes[:1].upper() + notes[1:] + ".",
        "caption_limit": caption,
        "hashtags": _hashtag_rule(platform, request),
        "links": links,
        "first_comment": first_comment,
        "alt_text": alt_text,
        "title": title,
        "sounds": sounds,
    }


def register_line(request: TextRequest) -> str:
    intent = register_intent(request)
    if is_sober(request):
        return SOBER_REGISTER.format(intent=with_article(intent or "sensitive"))
    return REGISTERS.get(intent, DEFAULT_REGISTER)


def render_prompt(request: TextRequest) -> tuple[str, str]:
    """(system, user) messages asking for every platform of ``request`` in one JSON object."""
    brand = request.brand
    keys = platform_keys(request)
    media = "video" if request.media_type == "video" else "image"
    context = {
        "system_prompt": (brand.system_prompt or "").strip(),
        "brand_lines": brand_lines(brand) + _never_line(request),
        "brand_hashtags": " ".join(brand.hashtags),
        "include_hashtags": request.include_hashtags and request.hashtag_count > 0,
        "hashtag_count": request.hashtag_count,
        "register": register_line(request),
        "emojis": request.include_emojis and not is_sober(request),
        "language": request.language or "en",
        "banned": "; ".join(f'"{b}"' for b in banned_phrases(request)),
        "platform_keys": ", ".join(f'"{k}"' for k in keys),
        "media": media,
        "media_article": "a" if media == "video" else "an",
        "brief": request.prompt.strip(),
        "must_keep": "; ".join(f'"{item}"' for item in must_keep(request)),
        "post_type": request.post_type,
        "platforms": [_platform_context(p, request) for p in keys],
        "tone": "sober and plain" if is_sober(request) else request.tone,
        "length": _LENGTHS.get(request.length, request.length),
        "variation": max(0, request.variation),  # a regeneration's number (0: the first generation)
    }
    rendered = _template().render(_context(context))
    system, _, user = rendered.partition(USER_MARKER)
    return _squeeze(system), _squeeze(user)


def _context(values: dict[str, Any]):
    from django.template import Context

    return Context(values, autoescape=False)


def _squeeze(text: str) -> str:
    lines = [line.rstrip() for line in text.strip().splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def texts_schema(request: TextRequest) -> dict[str, Any]:
    """A strict JSON schema of the reply: one post object per platform, every key required."""
    keys = platform_keys(request)
    return {
        "type": "object",
        "properties": {k: POST_JSON_SCHEMA for k in keys},
        "required": list(keys),
        "additionalProperties": False,
    }


# --- parsing ------------------------------------------------------------------------------


def _platform_key(name: Any) -> str | None:
    try:
        return normalize_platform(str(name))
    except ValueError:
        return None


def _posts_of(data: dict, keys: tuple[str, ...]) -> dict[str, Any]:
    """The reply's posts by platform: top-level platform keys, or one wrapper object holding
    them ({"posts": {...}}), or, for a single platform, a bare post object."""
    found = {k: v for name, v in data.items() if (k := _platform_key(name)) in keys}
    if found:
        return found
    for value in data.values():
        if isinstance(value, dict):
            inner = {k: v for name, v in value.items() if (k := _platform_key(name)) in keys}
            if inner:
                return inner
    if len(keys) == 1 and any(str(k).lower() in ("caption", "text", "post") for k in data):
        return {keys[0]: data}
    return {}


def _pick(post: dict, name: str) -> tuple[bool, Any]:
    lowered = {str(k).lower(): v for k, v in post.items()}
    for alias in FIELD_ALIASES[name]:
        if alias.lower() in lowered:
            return True, lowered[alias.lower()]
    return False, None


def _text_value(value: Any) -> str | None:
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else None


def _list_value(value: Any) -> list[str] | None:
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in value.replace(",", " ").split() if v]
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v).strip() for v in value if str(v).strip()]
    return None


def parse_post(platform: str, post: Any, request: TextRequest) -> tuple[TextResult | None, list[Problem]]:
    """One platform's post; missing optional keys default to empty."""
    if not isinstance(post, dict):
        return None, [
            Problem(platform, "", "structure", f'"{platform}" must be an object with the keys {_key_list()}.')
        ]
    problems: list[Problem] = []
    values: dict[str, Any] = {}
    for name in POST_FIELDS:
        present, raw = _pick(post, name)
        if name in ("hashtags", "sounds"):
            items = _list_value(raw)
            if items is None:
                problems.append(
                    Problem(platform, name, "structure", f'"{name}" must be an array of strings.')
                )
            values[name] = items or []
        else:
            text = _text_value(raw)
            if text is None:
                problems.append(Problem(platform, name, "structure", f'"{name}" must be a string.'))
            values[name] = text or ""
        if name == "caption" and not present:
            problems.append(Problem(platform, "caption", "missing_key", '"caption" is missing.'))
    fmt = format_of(platform, request)
    if not values["caption"] and fmt is not None and fmt.caption_supported and not problems:
        problems.append(Problem(platform, "caption", "missing_key", '"caption" is empty.'))
    if problems:
        return None, problems
    caption, first_comment, title = values["caption"], values["firstComment"], values["title"]
    if not request.include_emojis:
        caption, first_comment, title = (
            strip_emojis(caption),
            strip_emojis(first_comment),
            strip_emojis(title),
        )
    hashtags = (
        normalize_hashtags(values["hashtags"], request.hashtag_count) if request.include_hashtags else []
    )
    return (
        TextResult(
            caption=caption,
            hashtags=hashtags,
            first_comment=first_comment,
            alt_text=values["altText"],
            title=title,
            sounds=values["sounds"],
        ),
        [],
    )


def _key_list() -> str:
    return ", ".join(f'"{f}"' for f in POST_FIELDS)


def parse_texts(raw: str | None, request: TextRequest) -> tuple[dict[str, TextResult], list[Problem]]:
    """The reply's posts by platform, and what keeps it from being complete (not JSON, a
    platform missing, a post without its caption or with a field of the wrong type)."""
    keys = platform_keys(request)
    try:
        data = extract_json_object(raw or "")
    except EngineError:
        return {}, [
            Problem(
                "",
                "",
                "json",
                f"Your reply is not a JSON object. Reply with the JSON object only, keyed by {', '.join(keys)}.",
            )
        ]
    posts = _posts_of(data, keys)
    results: dict[str, TextResult] = {}
    problems: list[Problem] = []
    for key in keys:
        if key not in posts:
            problems.append(
                Problem(key, "", "missing_platform", f'"{key}" is missing: write a post for every platform.')
            )
            continue
        result, found = parse_post(key, posts[key], request)
        problems.extend(found)
        if result is not None:
            results[key] = result
    return results, problems


# --- the conversation ---------------------------------------------------------------------


def repair_message(problems: Iterable[Problem], keys: Iterable[str]) -> str:
    """The user turn that follows a reply with problems: each problem, then what to send."""
    lines = ["Your reply needs these fixes:"]
    for problem in problems:
        lines.append(
            f"- {problem.platform}: {problem.message}" if problem.platform else f"- {problem.message}"
        )
    lines.append(
        "Reply with the whole JSON object again, keyed by "
        + ", ".join(keys)
        + ", with these fixed and everything else kept."
    )
    return "\n".join(lines)


@dataclass
class TextConversation:
    """A text request's conversation with a provider: the messages to send, and what to do
    with each reply (accept it, or ask for a repair, or give up)."""

    request: TextRequest
    repairs: int = DEFAULT_REPAIRS
    engine: str = "provider"
    system: str = ""
    messages: list[dict[str, str]] = field(default_factory=list)
    turns: int = 0
    failed: dict[str, list[str]] = field(default_factory=dict)  # platforms the local engine wrote, and why

    def __post_init__(self) -> None:
        self.system, user = render_prompt(self.request)
        self.keys = platform_keys(self.request)
        self.messages = [{"role": "user", "content": user}]

    @property
    def chat_messages(self) -> list[dict[str, str]]:
        """System message first (Chat Completions' shape)."""
        return [{"role": "system", "content": self.system}, *self.messages]

    def reply(self, raw: str | None) -> dict[str, TextResult] | None:
        """The model's reply: the results when it is good (or only has problems the pipeline
        mends), None when a repair turn was appended (send ``messages`` again). Raises
        EngineError when the repairs are spent and the reply is still incomplete or loses a fact."""
        self.turns += 1
        results, problems = parse_texts(raw, self.request)
        # every problem in one repair turn: a missing platform and the others' lost facts,
        # limits and tags together, never one at a time
        problems = [*problems, *check_texts(self.request, results)]
        if not problems:
            return results
        if self.turns <= self.repairs:
            self.messages.append({"role": "assistant", "content": raw or ""})
            self.messages.append({"role": "user", "content": repair_message(problems, self.keys)})
            return None
        hard = [p for p in problems if p.kind in HARD_KINDS]
        passed = [k for k in results if k not in {p.platform for p in hard}]
        if hard and (any(not p.platform for p in hard) or not passed):
            listed = "; ".join(f"{p.platform}: {p.message}" if p.platform else p.message for p in hard)
            raise EngineError(
                f"{self.engine}: the reply still breaks the rules after {self.repairs} repair turn(s): {listed}",
                retryable=False,
            )
        if hard:
            return self._partial(results, hard)
        # smaller leftovers (a banned word, a junk tag, an emoji in a sober post) are mended by the
        # pipeline's check (text_checks.publishable in steps.finish), which notes each change in
        # the variant's adaptations for the reviewer
        return results

    def _partial(self, results: dict[str, TextResult], hard: list[Problem]) -> dict[str, TextResult]:
        """The platforms that passed keep the provider's text; each one that still fails after
        the repairs (missing, or a lost fact) is written by the local engine from the same
        brief, with a note saying why, instead of failing the whole content."""
        import dataclasses

        from .local_words import make_texts

        failed: dict[str, list[str]] = {}
        for problem in hard:
            failed.setdefault(problem.platform, []).append(problem.message)
        local = make_texts(dataclasses.replace(self.request, platforms=tuple(failed)))
        out = {k: v for k, v in results.items() if k not in failed}
        for platform, messages in failed.items():
            note = (
                f"{self.engine}'s reply for {platform} still failed the checks after {self.repairs} "
                f"repair turn(s) ({'; '.join(messages)}): the local engine wrote this one from the brief"
            )
            text = local[platform]
            out[platform] = dataclasses.replace(text, notes=[note, *text.notes])
        self.failed = failed
        return {k: out[k] for k in self.keys if k in out}


def one_platform(texts, request: TextRequest) -> TextResult:
    """``request.platform``'s text alone, from an engine's ``texts`` (the one-post ``text``)."""
    import dataclasses

    key = normalize_platform(request.platform)
    return texts(dataclasses.replace(request, platforms=(key,)))[key]


def replay(request: TextRequest, replies: Iterable[str], *, repairs: int, engine: str) -> TextConversation:
    """The conversation as it stands after ``replies`` (each one asked for a repair): how an
    engine that answers by webhook rebuilds it before its next turn."""
    conversation = TextConversation(request, repairs=repairs, engine=engine)
    for raw in replies:
        if conversation.reply(raw) is not None:
            raise EngineError(f"{engine}: an earlier reply was already complete", retryable=False)
    return conversation


def transcript(conversation: TextConversation) -> str:
    """The conversation as one prompt, for models that take a single prompt (Replicate's):
    the first user message, then each earlier reply and its repair request."""
    parts: list[str] = []
    for message in conversation.messages:
        if message["role"] == "assistant":
            parts.append("Your previous reply:\n" + message["content"])
        else:
            parts.append(message["content"])
    return "\n\n".join(parts)


def results_as_dict(results: Mapping[str, TextResult]) -> dict[str, dict[str, Any]]:
    import dataclasses

    return {p: dataclasses.asdict(r) for p, r in results.items()}
