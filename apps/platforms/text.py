"""How platforms count text: graphemes, URLs, weighted and byte lengths, and a limit in a unit.

Pure Python (no platform data): :mod:`apps.platforms.rules` says which unit each platform
counts in. X counts weighted characters (twitter-text), TikTok and Instagram UTF-16 code units,
Bluesky graphemes plus a UTF-8 byte cap, YouTube descriptions UTF-8 bytes, Threads emoji as
their UTF-8 bytes, Mastodon every URL as 23, everyone else code points.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from itertools import accumulate

from . import tlds
from . import unicode_tables as tables
from .twemoji import TWEMOJI_UTF16

# Units in which platforms count text.
UNIT_CHARACTERS = "characters"  # Unicode code points
UNIT_WEIGHTED = "weighted"  # twitter-text weighted length
UNIT_UTF16 = "utf16_code_units"
UNIT_GRAPHEMES = "graphemes"
UNIT_UTF8_BYTES = "utf8_bytes"
UNIT_EMOJI_BYTES = "characters_emoji_utf8_bytes"  # Threads: emoji count as their UTF-8 bytes

_UNIT_LABELS = {
    UNIT_CHARACTERS: "characters",
    UNIT_WEIGHTED: "weighted characters",
    UNIT_UTF16: "UTF-16 code units",
    UNIT_GRAPHEMES: "graphemes",
    UNIT_UTF8_BYTES: "bytes (UTF-8)",
    UNIT_EMOJI_BYTES: "characters (emoji count as their UTF-8 bytes)",
}

# X and Mastodon count every URL as 23 (t.co / characters_reserved_per_url).
DEFAULT_URL_LENGTH = 23


class _Ranges:
    """Membership in sorted, inclusive code point ranges."""

    def __init__(self, ranges: tuple[tuple[int, int], ...]) -> None:
        self.ranges = ranges
        self.starts = [first for first, _ in ranges]

    def __contains__(self, cp: int) -> bool:
        i = bisect.bisect_right(self.starts, cp) - 1
        return i >= 0 and cp <= self.ranges[i][1]


_EXT_PICT = _Ranges(tables.EXTENDED_PICTOGRAPHIC)
_EXTEND = _Ranges(tables.EXTEND)
_SPACING_MARK = _Ranges(tables.SPACING_MARK)
_PREPEND = _Ranges(tables.PREPEND)
_CONTROL = _Ranges(tables.CONTROL)
_INCB_CONSONANT = _Ranges(tables.INCB_CONSONANT)
_INCB_LINKER = _Ranges(tables.INCB_LINKER)
_INCB_EXTEND = _Ranges(tables.INCB_EXTEND)


def _is_ext_pict(cp: int) -> bool:
    return cp in _EXT_PICT


def _is_regional_indicator(cp: int) -> bool:
    return 0x1F1E6 <= cp <= 0x1F1FF


def _break_class(cp: int) -> str:
    """The code point's Grapheme_Cluster_Break value (UAX #29)."""
    if cp in (0x0D, 0x0A):
        return "CR" if cp == 0x0D else "LF"
    if cp == 0x200D:
        return "ZWJ"
    for name, ranges in (
        ("Control", _CONTROL),
        ("Extend", _EXTEND),
        ("SpacingMark", _SPACING_MARK),
        ("Prepend", _PREPEND),
    ):
        if cp in ranges:
            return name
    if _is_regional_indicator(cp):
        return "RI"
    return _hangul(cp)


def _hangul(cp: int) -> str:
    if 0x1100 <= cp <= 0x115F or 0xA960 <= cp <= 0xA97C:
        return "L"
    if 0x1160 <= cp <= 0x11A7 or 0xD7B0 <= cp <= 0xD7C6:
        return "V"
    if 0x11A8 <= cp <= 0x11FF or 0xD7CB <= cp <= 0xD7FB:
        return "T"
    if 0xAC00 <= cp <= 0xD7A3:
        return "LV" if (cp - 0xAC00) % 28 == 0 else "LVT"
    return "Other"


_HANGUL_JOINS = {("L", "L"), ("L", "V"), ("L", "LV"), ("L", "LVT"), ("LV", "V"), ("LV", "T"), ("V", "V")}
_HANGUL_JOINS |= {("V", "T"), ("LVT", "T"), ("T", "T")}


@dataclass
class _Run:
    """What the text before a boundary says about it: regional indicators in a row, an emoji
    (pictograph, Extend*) perhaps ended by ZWJ, an Indic consonant perhaps followed by a linker."""

    ri: int = 0
    pict: int = 0  # 0 none, 1 pictograph Extend*, 2 pictograph Extend* ZWJ
    conjunct: int = 0  # 0 none, 1 consonant [Extend Linker]*, 2 with a linker among them

    def after(self, cp: int, cls: str) -> None:
        self.ri = self.ri + 1 if cls == "RI" else 0
        if cp in _EXT_PICT:
            self.pict = 1
        elif self.pict == 1 and cls in ("Extend", "ZWJ"):
            self.pict = 1 if cls == "Extend" else 2
        else:
            self.pict = 0
        if cp in _INCB_CONSONANT:
            self.conjunct = 1
        elif self.conjunct and cp in _INCB_LINKER:
            self.conjunct = 2
        elif not (self.conjunct and cp in _INCB_EXTEND):
            self.conjunct = 0


def _joins(prev: str, cls: str, cp: int, run: _Run) -> bool:
    """Whether there is no boundary between a code point of class ``prev`` and ``cp`` (UAX #29
    rules GB3 to GB13)."""
    if prev == "CR" and cls == "LF":
        return True
    if prev in ("Control", "CR", "LF") or cls in ("Control", "CR", "LF"):
        return False
    return (
        (prev, cls) in _HANGUL_JOINS
        or cls in ("Extend", "ZWJ", "SpacingMark")
        or prev == "Prepend"
        or (run.conjunct == 2 and cp in _INCB_CONSONANT)
        or (run.pict == 2 and cp in _EXT_PICT)
        or (cls == "RI" and run.ri % 2 == 1)
    )


def graphemes(text: str) -> list[str]:
    """Split ``text`` into extended grapheme clusters (UAX #29)."""
    clusters: list[str] = []
    start = 0
    prev = ""
    run = _Run()
    for i, ch in enumerate(text):
        cp = ord(ch)
        cls = _break_class(cp)
        if i and not _joins(prev, cls, cp, run):
            clusters.append(text[start:i])
            start = i
        run.after(cp, cls)
        prev = cls
    if text:
        clusters.append(text[start:])
    return clusters


def _is_emoji_cluster(cluster: str) -> bool:
    """Whether a cluster is an emoji, as twitter-text's emoji parser finds them: one that starts
    with a pictograph above Latin-1 (or with © and ® when VS16 asks for emoji presentation), a
    regional indicator, a skin tone, or a keycap (``#``, ``*``, a digit, VS16, U+20E3); never one
    with VS15 (text presentation)."""
    if "\ufe0e" in cluster:
        return False
    first = ord(cluster[0])
    if _is_regional_indicator(first) or 0x1F3FB <= first <= 0x1F3FF:
        return True
    if cluster[0] in "#*0123456789":
        return cluster[1:] == "\ufe0f\u20e3"
    return _is_ext_pict(first) and (first > 0xFF or "\ufe0f" in cluster)


# URLs, as twitter-text's extractUrl finds them (its character classes, written out here): a
# domain with a TLD twitter-text knows (apps/platforms/tlds.py), an optional port, a path that ends on a
# letter, digit, one of ``+-=_#/`` or balanced parentheses (so a '.', ')' or '!' after a URL is
# not part of it), and a query that ends on a letter, digit or one of ``-_&=#/``.


def _alternation(words: tuple[str, ...]) -> str:
    """A pattern matching any of ``words``, factored on their common prefixes: re tries a flat
    alternation branch by branch, and this one has 1,500 branches."""
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word.lower():
            node = node.setdefault(ch, {})
        node[""] = {}

    def pattern(node: dict) -> str:
        branches = [re.escape(ch) + pattern(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{body})?" if "" in node else body

    return pattern(trie)


_TLDS = _alternation(tlds.GENERIC + tlds.COUNTRY)
_LATIN = (
    "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u0100-\u024f\u0253\u0254\u0256\u0257\u0259\u025b"
    "\u0263\u0268\u026f\u0272\u0289\u028b\u02bb\u0300-\u036f\u1e00-\u1eff"
)
_CYRILLIC = "\u0400-\u04ff"
_PUNCT = r"!'#%&()*+,\\\-./:;<=>?@\[\]^_{|}~$"
_SPACES = "\t-\r \u0085\u00a0\u1680\u180e\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_INVALID = "\ufffe\ufeff\uffff"
_DIRECTIONAL = "\u202a-\u202e\u061c\u200e\u200f\u2066-\u2069"
_DOMAIN_CHAR = f"[^{_PUNCT}{_SPACES}{_INVALID}{_DIRECTIONAL}]"
_TLD = rf"(?:(?:{_TLDS})(?=[^0-9a-zA-Z@+\-]|$)|xn--[\-0-9a-z]+)"
_PATH_CHAR = rf"[a-z{_CYRILLIC}0-9!*';:=+,.$/%#\[\]\-\u2013_~@|&{_LATIN}]"
_PARENS = rf"\((?:{_PATH_CHAR}+|{_PATH_CHAR}*\({_PATH_CHAR}+\){_PATH_CHAR}*)\)"
# twitter-text's path: its ending-character pattern is spliced in without a group, so balanced
# parentheses are a path segment of their own rather than an ending ("/x(a)" keeps "(a)",
# "/x!(a)" ends at "x"); kept as it is, since it is what X counts.
_PATH = rf"(?:{_PATH_CHAR}*(?:{_PARENS}{_PATH_CHAR}*)*[+\-a-z{_CYRILLIC}0-9=_#/{_LATIN}]|{_PARENS}|@{_PATH_CHAR}+/)"
_QUERY = r"\?[a-z0-9!?*'@();:&=+$/%#\[\]\-_.,~|]*[a-z0-9\-_&=#/]"
# A label starts and ends with a domain character (possessive: the '.' after it cannot be one).
# At most 63 characters a label (DNS's limit: twitter-text refuses a longer label after matching
# it) and 16 labels: unbounded, hostile text ('a.' or '日' ten thousand times) took seconds.
_DOMAIN = (
    rf"(?:{_DOMAIN_CHAR}(?:[_\-]*+{_DOMAIN_CHAR}){{0,62}}+\.){{0,15}}"
    rf"{_DOMAIN_CHAR}(?:-*+{_DOMAIN_CHAR}){{0,62}}+\.{_TLD}"
)
# re.ASCII: case folds ASCII letters only, as a JavaScript regular expression without the u flag
_FLAGS = re.IGNORECASE | re.ASCII
_URL_RE = re.compile(
    rf"(?:[^A-Za-z0-9@＠$#＃{_INVALID}]|^)"  # the character before (taken)
    rf"((https?://)?({_DOMAIN})(?::[0-9]+)?(/{_PATH}*)?(?:{_QUERY})?)",
    _FLAGS,
)
_ASCII_DOMAIN = re.compile(rf"(?:[\-a-z0-9{_LATIN}]+\.)+{_TLD}", _FLAGS)


def _valid_domain(domain: str, url: str, scheme: str) -> bool:
    """twitter-text's check of a URL's domain: every label 1 to 63 characters once
    punycode-encoded, and the URL so encoded at most 4096 UTF-16 units with its scheme."""
    if domain[:4] == "xn--" and not _ASCII_DOMAIN.search(domain):
        return False
    encoded = 0
    for label in domain.split("."):
        ascii_label = label if label.isascii() else "xn--" + label.encode("punycode").decode("ascii")
        if not 1 <= len(ascii_label) <= 63:
            return False
        encoded += len(ascii_label) + 1
    return len(scheme) + count_utf16(url) + encoded - 1 - count_utf16(domain) <= 4096


def find_urls(text: str, *, bare_domains: bool = True) -> list[tuple[int, int]]:
    """Spans of URLs in ``text`` as twitter-text's extractUrlsWithIndices finds them: with a
    scheme, or (``bare_domains``) also a domain without one, unless it follows '-', '_', '.' or
    '/'; of a domain with other characters, its ASCII parts."""
    spans: list[tuple[int, int]] = []
    for m in _URL_RE.finditer(text):
        start, end = m.span(1)
        if not _valid_domain(m.group(3), m.group(1), m.group(2) or "https://"):
            continue
        if m.group(2):
            spans.append((start, end))
            continue
        if not bare_domains or (start > 0 and text[start - 1] in "-_./"):
            continue
        # (a bare domain keeps its path, and with it its query; without a path, the domain alone)
        parts = [(start + d.start(), start + d.end()) for d in _ASCII_DOMAIN.finditer(m.group(3))]
        if parts and m.group(4):
            parts[-1] = (parts[-1][0], end)
        spans.extend(parts)
    return spans


def _x_light(cp: int) -> bool:
    # twitter-text v3 config: these ranges weigh 100 (=1 char); everything else 200 (=2).
    return cp <= 4351 or 8192 <= cp <= 8205 or 8208 <= cp <= 8223 or 8242 <= cp <= 8247


def _utf16_units(text: str) -> str:
    """``text`` as UTF-16 code units, one str character each (a pair of surrogates for a
    character beyond the BMP): the units twitter-text indexes and its emoji regex reads."""
    return "".join(ch if ord(ch) < 0x10000 else _surrogates(ord(ch)) for ch in text)


def _surrogates(cp: int) -> str:
    cp -= 0x10000
    return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))


def count_weighted(text: str, url_length: int = DEFAULT_URL_LENGTH) -> int:
    """X's weighted length, as twitter-text v3's parseTweet counts it: NFC; every URL
    ``url_length``; every emoji its emoji parser finds (twemoji) 2; every other character 1 in
    the Latin and general-punctuation ranges and 2 elsewhere (CJK, a character beyond the BMP)."""
    text = unicodedata.normalize("NFC", text)
    units = _utf16_units(text)
    urls = {}
    if spans := find_urls(text, bare_domains=True):
        at = list(accumulate((2 if ord(ch) > 0xFFFF else 1 for ch in text), initial=0))
        urls = {at[start]: at[end] for start, end in spans}
    emoji = {m.start(): m.end() for m in TWEMOJI_UTF16.finditer(units) if m.end() > m.start()}
    total = 0
    i, n = 0, len(units)
    while i < n:
        if i in urls:
            total += url_length
            i = urls[i]
        elif i in emoji:
            total += 2
            i = emoji[i]
        else:
            cp = ord(units[i])
            total += 1 if _x_light(cp) else 2
            i += 2 if 0xD800 <= cp <= 0xDBFF and i + 1 < n and 0xDC00 <= ord(units[i + 1]) <= 0xDFFF else 1
    return total


def count_utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def count_utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def count_graphemes(text: str) -> int:
    return len(graphemes(text))


def count_emoji_bytes(text: str) -> int:
    """Threads: characters, except that an emoji counts as its number of UTF-8 bytes."""
    return sum(len(c.encode("utf-8")) if _is_emoji_cluster(c) else len(c) for c in graphemes(text))


def count_characters(text: str, url_length: int | None = None) -> int:
    """Code points; with ``url_length`` every http(s) URL counts as that many (Mastodon)."""
    if url_length is None:
        return len(text)
    total = 0
    pos = 0
    for start, end in find_urls(text, bare_domains=False):
        total += (start - pos) + url_length
        pos = end
    return total + len(text) - pos


def count_in_unit(text: str, unit: str, *, url_length: int | None = None) -> int:
    if unit == UNIT_WEIGHTED:
        return count_weighted(text, url_length or DEFAULT_URL_LENGTH)
    if unit == UNIT_UTF16:
        return count_utf16(text)
    if unit == UNIT_GRAPHEMES:
        return count_graphemes(text)
    if unit == UNIT_UTF8_BYTES:
        return count_utf8_bytes(text)
    if unit == UNIT_EMOJI_BYTES:
        return count_emoji_bytes(text)
    if unit == UNIT_CHARACTERS:
        return count_characters(text, url_length)
    raise ValueError(f"unknown text unit {unit!r}")


@dataclass(frozen=True)
class TextLimit:
    """A length limit in a platform's unit (plus an optional UTF-8 byte cap, Bluesky)."""

    max: int
    unit: str = UNIT_CHARACTERS
    max_bytes: int | None = None
    url_length: int | None = None

    @property
    def unit_label(self) -> str:
        label = _UNIT_LABELS[self.unit]
        if self.url_length and self.unit == UNIT_CHARACTERS:
            label += f" (each URL counts as {self.url_length})"
        return label

    def count(self, text: str) -> int:
        return count_in_unit(text, self.unit, url_length=self.url_length)

    def fits(self, text: str) -> bool:
        if self.max_bytes is not None and count_utf8_bytes(text) > self.max_bytes:
            return False
        return self.count(text) <= self.max

    def describe(self) -> str:
        out = f"{self.max} {self.unit_label}"
        if self.max_bytes is not None:
            out += f" and {self.max_bytes} bytes (UTF-8)"
        return out

    def problem(self, text: str, where: str = "") -> str | None:
        """Why ``text`` does not fit (naming the limit and unit), or None.

        ``where`` is inserted after "the limit", e.g. " on X".
        """
        n = self.count(text)
        if n > self.max:
            return f"is {n} {self.unit_label}; the limit{where} is {self.max} {self.unit_label}"
        if self.max_bytes is not None:
            b = count_utf8_bytes(text)
            if b > self.max_bytes:
                return f"is {b} bytes (UTF-8); the limit{where} is {self.max_bytes} bytes (UTF-8)"
        return None
