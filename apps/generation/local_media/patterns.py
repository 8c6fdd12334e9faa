"""The facts a brief names, as patterns: codes, percentages, dates and times in the languages the
engine writes. Below both the brief's reading (``brief``) and the message (``message``), which
each use them, so neither imports the other for them."""

from __future__ import annotations

import re

_CODE = re.compile(
    r"\b(?:code|coupon|c[oó]digo|gutschein)\s*[:\-]?\s*[\"“'«]?([A-Za-z0-9][A-Za-z0-9_-]{2,19})", re.I
)
_CAPS = re.compile(r"\b([A-Z][A-Z0-9]{3,19}\d+|[A-Z]{2,}\d{1,4})\b")
_PERCENT = re.compile(r"\b(\d{1,3}\s?%(?:\s?off)?)", re.I)
_MONTHS = {
    m: i + 1
    for names in (
        "january february march april may june july august september october november december",
        "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
        "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
        "januar februar märz april mai juni juli august september oktober november dezember",
        "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
    )
    for i, m in enumerate(names.split())
}
_MONTH_RE = "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True))
_SHORT_MONTH_RE = r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
_DATE = re.compile(
    rf"(?:\b(?P<wd>[A-Za-zÀ-ÿ]{{3,}}day|lunes|martes|miércoles|jueves|viernes|sábado|domingo|lundi|mardi|mercredi"
    rf"|jeudi|vendredi|samedi|dimanche|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag),?\s+)?"
    rf"(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th|er|\.)?\s+(?:of\s+|de\s+)?(?P<m1>{_MONTH_RE}|{_SHORT_MONTH_RE})\b"
    rf"|(?P<m2>{_MONTH_RE}|{_SHORT_MONTH_RE})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\b)",
    re.IGNORECASE,
)
#: a time of day, with its zone when one follows ('4pm CET', '16:00 UTC'): a webinar's hour
#: without its zone is wrong for most of its audience
_TIME = re.compile(
    r"\b((?:\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}[:h]\d{2})"
    r"(?:\s(?-i:UTC|GMT|[A-Z]{1,2}[SD]?T|CEST|CET|EEST|EET|WEST|WET|BST|IST)\b)?)",
    re.IGNORECASE,
)


def find_code(text: str) -> str:
    m = _CODE.search(text or "")
    if m and (any(c.isdigit() for c in m.group(1)) or m.group(1).isupper()):
        return m.group(1).upper()
    m = _CAPS.search(text or "")
    return m.group(1) if m else ""
