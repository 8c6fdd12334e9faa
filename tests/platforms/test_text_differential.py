"""Text counting checked against independent implementations (issue 24).

- X's weighted length against twitter-text, X's own library (the npm package, pinned in
  tests/platforms/twitter_text/package-lock.json and installed with `npm ci` on first use), run
  by one node process that answers one JSON line per text;
- grapheme clusters against the `regex` module's ``\\X`` (UAX #29, its own Unicode tables);
- UTF-16 code units and Threads' emoji bytes by their definitions;
- the Extended_Pictographic table against the `regex` module's property.

The corpus is generated (Hypothesis) from pieces that walk every range edge of X's weight table
(U+0000-10FF, 2000-200D, 2010-201F, 2032-2037 and their neighbours), emoji ZWJ and tag sequences
(subdivision flags), flags and the regional-indicator bounds, variation selectors, combining
marks, Hangul jamo and syllables, CJK, and URLs in every position followed by punctuation.
A disagreement fails with the text shown (Hypothesis prints the shrunk input).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from apps.platforms import text as t
from apps.platforms import unicode_tables as tables

from . import unicode_tables

ORACLE_DIR = Path(__file__).resolve().parent / "twitter_text"
EXAMPLES = int(os.environ.get("PF_DIFFERENTIAL_EXAMPLES", "2500"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=False,
)


# --- the oracle -------------------------------------------------------------------------------


def _oracle_installed() -> bool:
    manifest = ORACLE_DIR / "node_modules" / "twitter-text" / "package.json"
    lock = json.loads((ORACLE_DIR / "package-lock.json").read_text())
    wanted = lock["packages"]["node_modules/twitter-text"]["version"]
    return manifest.exists() and json.loads(manifest.read_text())["version"] == wanted


class TwitterText:
    """One node process running tests/platforms/twitter_text/oracle.js."""

    def __init__(self) -> None:
        missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
        assert not missing, (
            f"Node.js and npm are needed (Debian: apt-get install nodejs npm; `make node`); missing {missing}"
        )
        # one install at a time: parallel workers start this module together, and one worker's
        # `npm ci` (which empties node_modules first) broke another's half-read package
        with open(ORACLE_DIR / ".install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not _oracle_installed():
                done = subprocess.run(
                    ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                    cwd=ORACLE_DIR,
                    check=False,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                assert done.returncode == 0, done.stdout + done.stderr
        self.proc = subprocess.Popen(
            ["node", str(ORACLE_DIR / "oracle.js")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def ask(self, text: str) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(text) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the twitter-text process ended (exit {self.proc.poll()})"
        return json.loads(line)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def twitter_text():
    oracle = TwitterText()
    yield oracle
    oracle.close()


# --- the corpus -------------------------------------------------------------------------------

# Every edge of X's weight ranges and the code points either side of it.
X_EDGES = [
    0x0000, 0x0001, 0x0020, 0x007E, 0x007F, 0x00A0, 0x00FF, 0x0100, 0x10FE, 0x10FF,
    0x1100, 0x1101, 0x1FFE, 0x1FFF, 0x2000, 0x2001, 0x200B, 0x200C, 0x200D, 0x200E,
    0x200F, 0x2010, 0x2011, 0x201E, 0x201F, 0x2020, 0x2021, 0x2030, 0x2031, 0x2032,
    0x2033, 0x2036, 0x2037, 0x2038, 0x2039, 0x2028, 0x2029, 0x3000, 0xFEFF, 0xFFFD,
    0x10000, 0x1D400,
]  # fmt: skip
RI_A, RI_Z = 0x1F1E6, 0x1F1FF
RI_NEIGHBOURS = [0x1F1E5, 0x1F200]
TAG = "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000e007f"
EMOJI = [
    "\U0001f600",  # grinning face
    "\U0001f44d",  # thumbs up
    "\U0001f44d\U0001f3fd",  # with a skin tone
    "\u2764\ufe0f",  # heart with VS16
    "\u2764",  # heart, text style
    "\u263a\ufe0e",  # smiling face, VS15
    "1\ufe0f\u20e3",  # keycap one
    "#\ufe0f\u20e3",  # keycap number sign
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",  # family
    "\U0001f469\u200d\U0001f4bb",  # woman technologist
    "\U0001f9d1\U0001f3fd\u200d\U0001f680",  # astronaut, medium skin tone
    "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag
    "\U0001f3f4\u200d\u2620\ufe0f",  # pirate flag
    "\U0001f3f4" + TAG,  # Scotland (tag sequence)
    "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # England
    "\U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f",  # Wales
    "\U0001f1eb\U0001f1f7",  # France
    "\U0001f1e6\U0001f1e8",  # Ascension Island (the first regional indicator)
    "\U0001f1ff\U0001f1fc",  # Zimbabwe (the last one)
    "\U0001f1e6",  # a lone regional indicator
    "\U0001f1ff",
    "\u00a9\ufe0f",
    "\u00a9",
    "\u203c\ufe0f",
    "\u2122",
    "\U0001f004",  # mahjong red dragon
    "\U0001f170\ufe0f",
    "\U0001faf6",  # heart hands (Unicode 15)
]
# Prepend (never a boundary after it) and Indic conjuncts (consonant, virama, consonant: one
# cluster since Unicode 15.1)
INDIC = ["\u0600", "\u06dd", "\u0d4e", "\U000110bd", "\u0915\u094d\u0937", "\u0915\u094d\u200d\u0937",
         "\u0995\u09cd\u09b7", "\u0915\u093f", "\u0915\u094d", "\u0e33", "\u0d15"]  # fmt: skip
COMBINING = [
    "\u0301",
    "\u0308",
    "\u0323",
    "\u20dd",
    "\u0903",
    "\u093f",
    "\ufe0f",
    "\ufe0e",
    "\u200d",
    "\u200c",
]
HANGUL = [
    "\u1100", "\u115f", "\u1160", "\u11a7", "\u11a8", "\u11ff", "\ua960", "\ua97c", "\ud7b0",
    "\ud7c6", "\ud7cb", "\ud7fb", "\uac00", "\uac01", "\ud7a3", "\u1161", "\u11a9", "\uac1c",
]  # fmt: skip
CJK = ["\u4e00", "\u65e5", "\u672c", "\u8a9e", "\u9fff", "\u3042", "\u30a2", "\uff21", "\uff9e", "\u3001"]
DOMAINS = ["example.com", "www.example.org", "postforge.io", "sub.domain.co", "a-b.net", "shop.example.dev"]
PATHS = ["", "/", "/path", "/a/b?q=1&r=2", "/x#frag", "/caf\u00e9", "/wiki/Foo_(bar)", "/p?x=(1)"]
AFTER_URL = [".", ")", ",", "!", "?", ":", ";", "'", '"', "]", "...", ").", " ", "\n", ""]
BEFORE_URL = ["", " ", "(", "\n", '"', "[", "\u3000", "\u65e5"]


def _cp(points: list[int]) -> st.SearchStrategy[str]:
    return st.sampled_from(points).map(chr)


def _assigned(ch: str) -> bool:
    return unicodedata.category(ch) not in ("Cn", "Cs")


urls = st.builds(
    lambda before, scheme, domain, path, after: f"{before}{scheme}{domain}{path}{after}",
    st.sampled_from(BEFORE_URL),
    st.sampled_from(["https://", "http://", "", "HTTPS://"]),
    st.sampled_from(DOMAINS),
    st.sampled_from(PATHS),
    st.sampled_from(AFTER_URL),
)
pieces = st.one_of(
    _cp(X_EDGES),
    _cp([RI_A, RI_A + 1, RI_Z - 1, RI_Z, *RI_NEIGHBOURS]),
    st.sampled_from(EMOJI),
    st.sampled_from(COMBINING),
    st.sampled_from(HANGUL),
    st.sampled_from(CJK),
    st.sampled_from(INDIC),
    st.sampled_from(["a", "Z", "9", " ", "\n", "\r\n", "\r", "\t", "#tag", "@user", "caf\u00e9", "e"]),
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cn", "Co")),
    urls,
)
texts = st.lists(pieces, max_size=12).map("".join)
# For X: a URL is only a URL when twitter-text says so; the plain pieces alone, and with URLs.
plain_texts = st.lists(pieces.filter(lambda p: "." not in p and "/" not in p), max_size=12).map("".join)


# --- X: weighted length -----------------------------------------------------------------------


def _show(text: str) -> str:
    return " ".join(f"U+{ord(c):04X}" for c in text)


def _check_weighted(oracle: TwitterText, text: str) -> None:
    expected = oracle.ask(text)
    got = t.count_weighted(text)
    assert got == expected["weighted"], (
        f"count_weighted({text!r}) = {got}, twitter-text says {expected['weighted']}"
        f" (URLs {expected['urls']}, ours {[text[a:b] for a, b in t.find_urls(unicodedata.normalize('NFC', text))]});"
        f" code points {_show(text)}"
    )


def test_every_edge_of_the_weight_table_alone_and_in_pairs(twitter_text):
    singles = [chr(cp) for cp in [*X_EDGES, RI_A, RI_Z, *RI_NEIGHBOURS]] + EMOJI + HANGUL + CJK
    for s in singles:
        _check_weighted(twitter_text, s)
        _check_weighted(twitter_text, f"a{s}b")
    for a in X_EDGES:
        for b in (0x0041, 0x0301, 0x200D, 0xFE0F, 0x1F600):
            _check_weighted(twitter_text, chr(a) + chr(b))


@SETTINGS
@given(text=plain_texts)
def test_x_weighted_length_matches_twitter_text(twitter_text, text):
    _check_weighted(twitter_text, text)


@SETTINGS
@given(text=texts)
@example(text="see https://example.com.")
@example(text="(see https://example.com)")
@example(text="https://a.com and https://b.com")
def test_x_weighted_length_with_urls_matches_twitter_text(twitter_text, text):
    _check_weighted(twitter_text, text)


# --- graphemes --------------------------------------------------------------------------------


def _regex_graphemes(text: str) -> list[str]:
    return regex.findall(r"\X", text)


@SETTINGS
@given(text=texts.filter(lambda s: all(_assigned(c) for c in s)))
@example(text="\U0001f3f4" + TAG)
@example(text="\U0001f1e6\U0001f1e8\U0001f1ff")
@example(text="\u1100\u1161\u11a8\uac00\u11a8")
def test_graphemes_match_the_regex_modules_segmenter(text):
    assert t.graphemes(text) == _regex_graphemes(text), f"{text!r}: {_show(text)}"


def test_graphemes_on_every_edge_pair():
    points = [
        *X_EDGES, RI_A, RI_Z, *RI_NEIGHBOURS, 0x0301, 0x1F3FB, 0x1F3FF, 0xE0020, 0xE007F,
        0xFE0F, 0x1F600, 0x1100, 0x1160, 0x11A8, 0xAC00, 0xAC01, 0x0D, 0x0A,
    ]  # fmt: skip
    for a in points:
        for b in points:
            s = chr(a) + chr(b)
            if all(_assigned(c) for c in s):
                assert t.graphemes(s) == _regex_graphemes(s), _show(s)


@pytest.mark.parametrize("name", sorted(unicode_tables.PROPERTIES))
def test_the_unicode_tables_are_the_regex_modules_properties(name):
    """apps/platforms/unicode_tables.py is regex's Unicode data (regenerate it when this fails)."""
    assert getattr(tables, name) == tuple(unicode_tables.ranges(unicode_tables.PROPERTIES[name]))


# --- UTF-16 units and Threads' emoji bytes, by their definitions ------------------------------


def _utf16_by_definition(text: str) -> int:
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


def _emoji_cluster_by_definition(cluster: str) -> bool:
    """An emoji: a cluster without VS15 (text presentation) that starts with a regional
    indicator, a skin tone, a keycap sequence, or a pictograph above Latin-1 (© and ® only with
    VS16)."""
    if "\ufe0e" in cluster:
        return False
    if regex.match(r"[#*0-9]\ufe0f\u20e3$", cluster):
        return True
    first = cluster[0]
    if regex.match(r"[\p{Regional_Indicator}\p{Emoji_Modifier}]", first):
        return True
    return bool(regex.match(r"\p{Extended_Pictographic}", first)) and (
        ord(first) > 0xFF or "\ufe0f" in cluster
    )


def _emoji_bytes_by_definition(text: str) -> int:
    return sum(
        len(c.encode("utf-8")) if _emoji_cluster_by_definition(c) else len(c) for c in _regex_graphemes(text)
    )


@SETTINGS
@given(text=texts.filter(lambda s: all(_assigned(c) for c in s)))
def test_utf16_and_emoji_bytes_by_their_definitions(text):
    assert t.count_utf16(text) == _utf16_by_definition(text), _show(text)
    assert t.count_emoji_bytes(text) == _emoji_bytes_by_definition(text), _show(text)
    assert t.count_utf8_bytes(text) == len(text.encode("utf-8"))


if __name__ == "__main__":  # pragma: no cover - ask twitter-text by hand: python this.py 'text'
    o = TwitterText()
    for arg in sys.argv[1:]:
        print(arg, o.ask(arg), t.count_weighted(arg))
    o.close()
