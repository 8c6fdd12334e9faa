"""Safe zones of full-screen vertical posts: the parts of a 9:16 frame the app's own interface
covers (a story's progress bar and reply bar, a reel's caption, sound and buttons), which the
previews draw over the picture or video so a reviewer sees what will be hidden.

Figures are fractions of the frame in percent (top and bottom of its height, left and right of its
width) from the platforms' own creative guides: Meta's ads guide for Stories (keep ~14% / 250 px
of 1920 at the top and bottom free of text and logos) and for Reels (14% top, 35% bottom, 6% on
each side); TikTok's ads safe zone for 1080x1920 (about 150 px top, 484 px bottom, 64 px left,
140 px right); YouTube Shorts' template (about 10% top, 26% bottom, 13% right for the buttons).
The apps move their interface now and then: the figures are guides, not measurements.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SafeZone:
    kind: str  # story, reel, tiktok, short
    top: float
    bottom: float
    left: float
    right: float
    #: what covers each edge, as the app draws it
    top_label: str
    bottom_label: str
    right_label: str = ""

    @property
    def interface(self) -> str:
        """The interface as a label says it after the platform's name: "story interface",
        "Shorts interface"; a TikTok post is just "interface" (not "TikTok tiktok interface")."""
        return {"tiktok": "interface", "short": "Shorts interface"}.get(self.kind, f"{self.kind} interface")


STORY = SafeZone("story", 14, 14, 0, 0, "progress bar · profile", "Send message · reply bar")
REEL = SafeZone("reel", 14, 35, 6, 6, "Reels · camera", "@profile · caption · audio", "♡ 💬 ➤ ⋯")
TIKTOK = SafeZone(
    "tiktok", 7.8, 25.2, 5.9, 13, "Following · For You", "@profile · caption · sound", "♡ 💬 ↗ ♫"
)
SHORT = SafeZone(
    "short", 10, 26, 4, 13, "Shorts · search", "@channel · title · sound · Subscribe", "👍 👎 💬 ↗"
)

#: (platform, post type) -> its zone; "*" any post type of the platform (TikTok is full screen)
ZONES: dict[tuple[str, str], SafeZone] = {
    ("instagram", "story"): STORY,
    ("facebook", "story"): STORY,
    ("instagram", "reel"): REEL,
    ("facebook", "reel"): REEL,
    ("tiktok", "*"): TIKTOK,
    ("youtube", "short"): SHORT,
}


def safe_zone(platform: str, post_type: str) -> SafeZone | None:
    """The zone a full-screen vertical post of this platform and post type has, else None."""
    return ZONES.get((platform, post_type)) or ZONES.get((platform, "*"))
