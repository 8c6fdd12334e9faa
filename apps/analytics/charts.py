"""Server-side SVG charts for the admin (pygal, pinned in pyproject): no script, nothing
fetched by the browser. pygal's own tooltip script is turned off (``js=[]``, its default
loads from a CDN); each point keeps its value as an SVG ``<desc>``/``<title>``."""

from __future__ import annotations

import datetime
import math
from typing import Any

import pygal
from pygal.style import Style

STYLE = Style(
    background="transparent",
    plot_background="transparent",
    foreground="#333",
    foreground_strong="#222",
    foreground_subtle="#ccc",
    font_family="-apple-system, 'Segoe UI', system-ui, Roboto, sans-serif",
    label_font_size=11,
    major_label_font_size=11,
    legend_font_size=12,
    title_font_size=14,
    value_font_size=10,
    no_data_font_size=16,
    colors=(
        "#417690",
        "#e07a5f",
        "#81b29a",
        "#f2cc8f",
        "#3d405b",
        "#9c6644",
        "#6d597a",
        "#b56576",
        "#2a9d8f",
        "#e76f51",
    ),
)


def _label(day: datetime.date, group_by: str) -> str:
    if group_by == "month":
        return day.strftime("%b %Y")
    return day.strftime("%d %b")


def _chart(kind, *, title: str, labels: list[str], height: int = 300, empty: bool = False, **config):
    if empty:  # only the "no data" text: pygal would still draw an axis of its own (0 to 1)
        config.update(show_y_labels=False, show_y_guides=False, show_x_labels=False, height=120)
        labels = []
    chart = kind(
        style=STYLE,
        js=[],
        disable_xml_declaration=True,
        width=900,
        title=title,
        x_label_rotation=-40 if len(labels) > 12 else 0,
        show_minor_x_labels=len(labels) <= 16,
        x_labels_major_every=max(1, len(labels) // 12),
        truncate_legend=30,
        legend_at_bottom=True,
        print_values=False,
        value_formatter=lambda v: f"{v:,.0f}",
        **{"no_data_text": "No published posts in this period", "height": height, **config},
    )
    chart.x_labels = labels
    return chart


def whole_ticks(top: float) -> list[int]:
    """0 to at least `top` in at most ten whole, round steps (1, 2 or 5 times a power of 10)."""
    top = max(1, math.ceil(top))
    magnitude = 1
    while True:
        for m in (1, 2, 5):
            step = m * magnitude
            if top / step <= 10:
                last = -(-top // step) * step
                return list(range(0, last + 1, step))
        magnitude *= 10


def over_time(
    series: list[dict], buckets: list[datetime.date], *, figure: str, title: str, group_by: str
) -> str:
    """Stacked bars, one colour per platform, of ``figure`` (posts, reach or engagement) of
    the posts published in each bucket; a bucket without posts is 0 (nothing was published)."""
    platforms = sorted({row["platform"] for row in series})
    values = {(row["date"], row["platform"]): row[figure] for row in series}
    labels = [_label(b, group_by) for b in buckets]
    config: dict[str, Any] = {}
    totals: dict = {}
    for row in series:
        totals[row["date"]] = totals.get(row["date"], 0) + (row[figure] or 0)
    if platforms:  # pygal fails on y_labels without data (its "no data" text is drawn instead)
        # whole numbers on the axis: pygal's own ticks of an all-zero (or small) series are
        # fractions (0, 0.2, ... 1) that the whole-number formatter printed as "0 0 0 1 1 1"
        config["y_labels"] = whole_ticks(max(totals.values(), default=0))
    chart = _chart(pygal.StackedBar, title=title, labels=labels, empty=not platforms, **config)
    for platform in platforms:
        chart.add(platform, [values.get((b, platform), 0) for b in buckets])
    return chart.render(is_unicode=True)


def followers(series: dict, buckets: list[datetime.date], *, group_by: str) -> str:
    """One line per profile, a dot where a snapshot is (a bucket without one has no dot and
    no value: the line only joins measured points)."""
    labels = [_label(b, group_by) for b in buckets]
    # from 0, so that no dot sits on the axis (and a line's height compares with the others')
    chart = _chart(
        pygal.Line,
        title="Followers (last snapshot of each period)",
        labels=labels,
        dots_size=3,
        include_x_axis=True,
        no_data_text="No follower snapshots in this period",
        empty=not series,
    )
    for (platform, username), points in series.items():
        chart.add(f"{platform} @{username}", [points.get(b) for b in buckets])
    return chart.render(is_unicode=True)
