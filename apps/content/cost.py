"""What one generation costs, for ordering a batch (no database: the benchmark imports it)."""

from __future__ import annotations


def generation_cost(*, media_type: str, seconds: float = 0.0) -> float:
    """A rough relative cost of one generation on the local engine, for ordering batches
    heaviest first (so that parallel workers finish together instead of one of them encoding
    the last video alone). Measured here: a 6 s video costs about 25 images."""
    if media_type == "video":
        return 25.0 * max(1.0, seconds or 6.0) / 6.0
    return 1.0
