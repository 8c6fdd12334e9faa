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


# Extended_Pictographic (emoji-data.txt), approximated by ranges; sorted, inclusive.
_EXT_PICT_RANGES: tuple[tuple[int, int], ...] = (
    (0x00A9, 0x00A9),
    (0x00AE, 0x00AE),
    (0x203C, 0x203C),
    (0x2049, 0x2049),
    (0x2122, 0x2122),
    (0x2139, 0x2139),
    (0x2194, 0x2199),
    (0x21A9, 0x21AA),
    (0x231A, 0x231B),
    (0x2328, 0x2328),
    (0x2388, 0x2388),
    (0x23CF, 0x23CF),
    (0x23E9, 0x23F3),
    (0x23F8, 0x23FA),
    (0x24C2, 0x24C2),
    (0x25AA, 0x25AB),
    (0x25B6, 0x25B6),
    (0x25C0, 0x25C0),
    (0x25FB, 0x25FE),
    (0x2600, 0x2605),
    (0x2607, 0x2612),
    (0x2614, 0x2685),
    (0x2690, 0x2705),
    (0x2708, 0x2712),
    (0x2714, 0x2714),
    (0x2716, 0x2716),
    (0x271D, 0x271D),
    (0x2721, 0x2721),
    (0x2728, 0x2728),
    (0x2733, 0x2734),
    (0x2744, 0x2744),
    (0x2747, 0x2747),
    (0x274C, 0x274C),
    (0x274E, 0x274E),
    (0x2753, 0x2755),
    (0x2757, 0x2757),
    (0x2763, 0x2767),
    (0x2795, 0x2797),
    (0x27A1, 0x27A1),
    (0x27B0, 0x27B0),
    (0x27BF, 0x27BF),
    (0x2934, 0x2935),
    (0x2B05, 0x2B07),
    (0x2B1B, 0x2B1C),
    (0x2B50, 0x2B50),
    (0x2B55, 0x2B55),
    (0x3030, 0x3030),
    (0x303D, 0x303D),
    (0x3297, 0x3297),
    (0x3299, 0x3299),
    (0x1F000, 0x1F0FF),
    (0x1F10D, 0x1F10F),
    (0x1F12F, 0x1F12F),
    (0x1F16C, 0x1F171),
    (0x1F17E, 0x1F17F),
    (0x1F18E, 0x1F18E),
    (0x1F191, 0x1F19A),
    (0x1F1AD, 0x1F1E5),
    (0x1F201, 0x1F20F),
    (0x1F21A, 0x1F21A),
    (0x1F22F, 0x1F22F),
    (0x1F232, 0x1F23A),
    (0x1F23C, 0x1F23F),
    (0x1F249, 0x1F3FA),
    (0x1F400, 0x1F53D),
    (0x1F546, 0x1F64F),
    (0x1F680, 0x1F6FF),
    (0x1F774, 0x1F77F),
    (0x1F7D5, 0x1F7FF),
    (0x1F80C, 0x1F80F),
    (0x1F848, 0x1F84F),
    (0x1F85A, 0x1F85F),
    (0x1F888, 0x1F88F),
    (0x1F8AE, 0x1F8FF),
    (0x1F90C, 0x1F93A),
    (0x1F93C, 0x1F945),
    (0x1F947, 0x1FAFF),
    (0x1FC00, 0x1FFFD),
)
_EXT_PICT_STARTS = [r[0] for r in _EXT_PICT_RANGES]


def _is_ext_pict(cp: int) -> bool:
    i = bisect.bisect_right(_EXT_PICT_STARTS, cp) - 1
    return i >= 0 and cp <= _EXT_PICT_RANGES[i][1]


def _is_regional_indicator(cp: int) -> bool:
    return 0x1F1E6 <= cp <= 0x1F1FF


def _is_extend(ch: str) -> bool:
    """Grapheme_Cluster_Break Extend / SpacingMark (approximated): never break before these."""
    cp = ord(ch)
    if cp in (0x200C, 0xFF9E, 0xFF9F):  # ZWNJ, half-width katakana voiced marks
        return True
    if 0x1F3FB <= cp <= 0x1F3FF:  # emoji skin-tone modifiers
        return True
    if 0xE0020 <= cp <= 0xE007F:  # tag characters (subdivision flags)
        return True
    return unicodedata.category(ch) in ("Mn", "Me", "Mc")  # incl. variation selectors


def _is_control(ch: str) -> bool:
    if ch in "\r\n":
        return True
    cp = ord(ch)
    if cp in (0x200C, 0x200D) or 0xE0020 <= cp <= 0xE007F:
        return False
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp", "Cf")


def _hangul(cp: int) -> str:
    if 0x1100 <= cp <= 0x115F or 0xA960 <= cp <= 0xA97C:
        return "L"
    if 0x1160 <= cp <= 0x11A7 or 0xD7B0 <= cp <= 0xD7C6:
        return "V"
    if 0x11A8 <= cp <= 0x11FF or 0xD7CB <= cp <= 0xD7FB:
        return "T"
    if 0xAC00 <= cp <= 0xD7A3:
        return "LV" if (cp - 0xAC00) % 28 == 0 else "LVT"
    return ""


def _hangul_continues(before: str, after: str) -> bool:
    """Hangul jamo that stay in one syllable: L before L, V, LV or LVT; LV or V before V or T;
    LVT or T before T."""
    return (
        (before == "L" and after in ("L", "V", "LV", "LVT"))
        or (before in ("LV", "V") and after in ("V", "T"))
        or (before in ("LVT", "T") and after == "T")
    )


def _continues(prev: str, ch: str, ri_run: int, has_pict: bool) -> bool:
    """Whether ``ch`` stays in the cluster that ``prev`` ends: CR LF, Hangul syllables,
    combining marks and ZWJ, emoji joined by ZWJ, and regional indicators in pairs; never
    across another control."""
    if prev == "\r" and ch == "\n":
        return True
    if _is_control(prev) or _is_control(ch):
        return False
    cp, pcp = ord(ch), ord(prev)
    return (
        ((after := _hangul(cp)) != "" and _hangul_continues(_hangul(pcp), after))
        or cp == 0x200D
        or _is_extend(ch)
        or (pcp == 0x200D and has_pict and _is_ext_pict(cp))
        or (_is_regional_indicator(cp) and _is_regional_indicator(pcp) and ri_run % 2 == 1)
    )


def graphemes(text: str) -> list[str]:
    """Split ``text`` into (approximate) extended grapheme clusters, UAX #29 style.

    Handles CR LF, controls, combining marks, variation selectors, ZWJ emoji sequences,
    skin-tone modifiers, regional-indicator pairs (flags), tag sequences and Hangul jamo.
    """
    clusters: list[str] = []
    current: list[str] = []
    prev = ""
    ri_run = 0  # regional indicators in the current cluster
    has_pict = False  # an Extended_Pictographic char started the current emoji sequence
    for ch in text:
        cp = ord(ch)
        join = bool(current) and _continues(prev, ch, ri_run, has_pict)
        if join:
            current.append(ch)
        else:
            if current:
                clusters.append("".join(current))
            current = [ch]
            ri_run = 0
            has_pict = False
        if _is_regional_indicator(cp):
            ri_run += 1
        if _is_ext_pict(cp):
            has_pict = True
        prev = ch
    if current:
        clusters.append("".join(current))
    return clusters


def _is_emoji_cluster(cluster: str) -> bool:
    for ch in cluster:
        cp = ord(ch)
        if cp in (0xFE0F, 0x20E3) or _is_regional_indicator(cp) or 0x1F3FB <= cp <= 0x1F3FF:
            return True
        if cp > 0xFF and _is_ext_pict(cp):
            return True
    return False


# URLs. twitter-text also recognises bare domains; the TLD list is the common subset.
_URL_CHARS = r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%\u00C0-\u024F]"
_TLDS = (
    "com|org|net|edu|gov|mil|int|io|co|me|ly|app|dev|ai|info|biz|tv|fm|gg|to|be|us|uk|de|fr|"
    "es|it|nl|ca|au|jp|cn|in|br|ru|ch|se|no|eu|at|pl|pt|ie|nz|mx|kr|tw|hk|sg|ar|cl|dk|fi|cz|"
    "gr|hu|ro|za|il|tr|ua|vn|id|ph|my|th|ae|sa|xyz|shop|store|blog|news|site|online|tech|"
    "link|page|social|live|media|art|design|studio|agency|cloud|digital"
)
_SCHEME_URL = rf"(?<![A-Za-z0-9@.])https?://[A-Za-z0-9]{_URL_CHARS}*"
_BARE_URL = (
    rf"(?<![A-Za-z0-9@.\-/:_])(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{{0,61}}[A-Za-z0-9])?\.)+"
    rf"(?:{_TLDS})(?![A-Za-z0-9\-])(?::\d{{1,5}})?(?:/{_URL_CHARS}*)?"
)
_URL_RE_SCHEME = re.compile(_SCHEME_URL)
_URL_RE_ANY = re.compile(rf"{_SCHEME_URL}|{_BARE_URL}", re.IGNORECASE)
_URL_TRAILING = ".,:;!?'\")]"


def find_urls(text: str, *, bare_domains: bool = True) -> list[tuple[int, int]]:
    """Spans of URLs in ``text`` (trailing punctuation excluded, as twitter-text does)."""
    pattern = _URL_RE_ANY if bare_domains else _URL_RE_SCHEME
    spans = []
    for m in pattern.finditer(text):
        start, end = m.span()
        while end > start and text[end - 1] in _URL_TRAILING:
            end -= 1
        if end > start:
            spans.append((start, end))
    return spans


def _x_light(cp: int) -> bool:
    # twitter-text v3 config: these ranges weigh 100 (=1 char); everything else 200 (=2).
    return cp <= 4351 or 8192 <= cp <= 8205 or 8208 <= cp <= 8223 or 8242 <= cp <= 8247


def _weigh_x_plain(segment: str) -> int:
    total = 0
    for cluster in graphemes(segment):
        if _is_emoji_cluster(cluster):
            total += 2
        else:
            total += sum(1 if _x_light(ord(c)) else 2 for c in cluster)
    return total


def count_weighted(text: str, url_length: int = DEFAULT_URL_LENGTH) -> int:
    """X's weighted length (twitter-text v3): NFC; code points in the Latin/general-punctuation
    ranges weigh 1, others (CJK, ...) 2; an emoji sequence weighs 2; every URL ``url_length``."""
    text = unicodedata.normalize("NFC", text)
    total = 0
    pos = 0
    for start, end in find_urls(text, bare_domains=True):
        total += _weigh_x_plain(text[pos:start]) + url_length
        pos = end
    return total + _weigh_x_plain(text[pos:])


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
