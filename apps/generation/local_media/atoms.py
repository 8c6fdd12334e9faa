"""The unbreakable facts of a brief (``Atom``): links, phone numbers, prices, percentages, dates
and date ranges, times with their zone, places and weekdays, found in the brief's own words so
that a picture sets each whole (never split across lines) and never invents one. Read by the
picture's message (``message``), which re-exports ``atoms`` and ``Atom``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .patterns import _DATE, _TIME, find_code

_URL = re.compile(
    r"\bhttps?://[^\s<>\"]+|\bwww\.[^\s<>\"]+|\b(?:[a-z0-9-]+\.)+(?:com|co\.uk|org|net|io|de|app|shop|co|uk|eu|jp|fr|es|"
    r"dev|berlin|studio|store|online|site|tech|ai|me|us|ca|au|nl|it|ch|at|be|dk|se|no|pl|pt|cafe|"
    r"coffee|kitchen|yoga|health|dental|clinic|london|info|biz)\b(?:/[^\s<>\"]*)?",
    re.IGNORECASE,
)
_PHONE = re.compile(r"(?<![\w/])\+?\(?\d[\d ()/.-]{6,}\d(?!\w)")
_PRICE = re.compile(
    r"(?:[$€£¥]\s?\d[\d,.]*(?:k|K)?(?:\s?[-–]\s?[$€£¥]?\d[\d,.]*(?:k|K)?)?|\d[\d,.]*(?:k|K)?\s?(?:€|EUR|USD|GBP|円))"
    r"(?:\s?(?:a|per|/|pro|im)\s?(?:month|mo|year|yr|hour|person|night|Monat|Jahr|Stunde))?"
)
_PERCENT = re.compile(r"\d{1,3}\s?%(?:\s?(?:off|Rabatt))?|\d{1,3}\s?％(?:オフ|OFF)?|\d{1,2}割引?", re.I)
_JA_DATE = re.compile(
    r"\d{1,2}月\d{1,2}日(?:[（(][^）)]{1,3}[）)])?(?:\s?(?:[～〜~ー-]|から)\s?(?:\d{1,2}月)?\d{1,2}日(?:[（(][^）)]{1,3}[）)])?(?:まで)?)?"
)
_JA_TIME = re.compile(r"\d{1,2}[:：]\d{2}(?:\s?[～〜~-]\s?\d{1,2}[:：]\d{2})?|\d{1,2}時(?:\d{1,2}分)?")
_RANGE_SEP = r"\s?(?:[-–—]|to|bis|until|au|al)\s?"
_TIME_RANGE = re.compile(rf"(?:{_TIME.pattern})(?:{_RANGE_SEP}(?:{_TIME.pattern}))?", re.IGNORECASE)
_PLAIN_DATE = re.sub(r"\(\?P<\w+>", "(?:", _DATE.pattern)
_DATE_RANGE = re.compile(
    rf"(?:{_PLAIN_DATE})(?:\s?(?:[-–—]|to|bis|until|au|al)\s?(?:(?:{_PLAIN_DATE})|\d{{1,2}}\.?(?=\s?[A-Za-z])))?",
    re.IGNORECASE,
)
#: a range whose first day borrows the second's month: "24-26 Dec", "3-9 Feb", "del 3 al 9 de
#: febrero", "vom 4. bis 17. August", "3 to 9 February"
_DAY_RANGE = re.compile(
    rf"(?<![\d/.:,])\d{{1,2}}\.?\s?(?:[-–—]|to|bis|al|au|a|até|until)\s?(?:{_PLAIN_DATE})",
    re.IGNORECASE,
)
_PLACE = re.compile(
    r"\b(?:at|in|@|im|in der|am)\s+((?:[A-Z][\w'’&-]*|\d+[a-z]?)(?:,?\s+(?:[A-Z][\w'’&-]*|\d+[a-z]?|de|la|the|of|upon|am|an))*)"
)
_WEEKDAYS = re.compile(
    r"^(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?$|^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
    re.I,
)


def _real_date(text: str, m: re.Match[str]) -> bool:
    """Not a number's tail nor the verb "may" ("batch 2231 may contain" is no date)."""
    return not (m.start() and text[m.start() - 1].isdigit()) and not re.search(r"\bmay\b", m.group(0))


@dataclass(frozen=True)
class Atom:
    kind: str  # url, phone, price, percent, code, date, time, place
    text: str
    start: int


def _is_phone(value: str) -> bool:
    return sum(c.isdigit() for c in value) >= 7 and not re.fullmatch(r"[\d ]{1,4}[-–] ?[\d ]+", value)


def _is_place(place: str) -> bool:
    return not _WEEKDAYS.match(place.split(maxsplit=1)[0]) and not re.fullmatch(r"\d+[a-z]?", place)


#: the atoms found by pattern alone, in the order they claim their text (a URL's digits are no
#: phone number, a price's figure no percent): before the code and dates, then the times
_ATOM_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("url", _URL),
    ("phone", _PHONE),
    ("price", _PRICE),
    ("percent", _PERCENT),
    ("time", _TIME_RANGE),
    ("time", _JA_TIME),
)


def atoms(text: str) -> list[Atom]:
    """The brief's unbreakable facts, in order: each is drawn whole, on one line."""
    text = text or ""
    out: list[Atom] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, start: int, end: int) -> None:
        value = text[start:end].rstrip(".,;:!?)").strip()
        if not value or any(a < end and start < b for a, b in taken):
            return
        taken.append((start, end))
        out.append(Atom(kind, value, start))

    code = find_code(text)
    code_at = text.find(code) if code else -1
    spans: list[tuple[str, int, int]] = [
        (kind, *m.span())
        for kind, rx in _ATOM_PATTERNS[:4]
        for m in rx.finditer(text)
        if kind != "phone" or _is_phone(m.group(0))
    ]
    if code_at >= 0:
        spans.append(("code", code_at, code_at + len(code)))
    spans += [("date", *m.span()) for m in _JA_DATE.finditer(text)]
    spans += [("date", *m.span()) for m in _DAY_RANGE.finditer(text) if _real_date(text, m)]
    spans += [("date", *m.span()) for m in _DATE_RANGE.finditer(text) if _real_date(text, m)]
    spans += [(kind, *m.span()) for kind, rx in _ATOM_PATTERNS[4:] for m in rx.finditer(text)]
    spans += [("place", *m.span(1)) for m in _PLACE.finditer(text) if _is_place(m.group(1))]
    for kind, start, end in spans:
        add(kind, start, end)
    return sorted(out, key=lambda a: a.start)


def host_of(url: str) -> str:
    host = re.sub(r"^https?://", "", url, flags=re.I)
    host = re.sub(r"^www\.", "", host, flags=re.I)
    return host.split("?")[0].rstrip("/")
