"""CSV and XLSX bulk import (issue 32): a month of posts from a spreadsheet.

Every row is checked before anything is created (one report: row, column, problem), including
the pre-flight check of each post that is ready to go (text rows); then the whole file is
created as one batch in one transaction. A file is known by its SHA-256: uploading the same file
again answers with the batch it made, creating nothing new.

Columns (a header row, names case-insensitive, order free):
  text | prompt        the post's caption, or a prompt to generate it from (one of the two)
  platforms            x, instagram...: the brand's connected profiles on them
  profile_ids          or the profiles themselves (prf_... or UUIDs), separated by spaces/commas/;
  date, time, timezone 2026-12-01, 09:30, Europe/Paris (timezone defaults to the profile's)
  media_urls           https URLs fetched through the SSRF-checked client, separated by spaces
  media_ids            or uploaded media (med_.../ast_... or UUIDs)
  first_comment, tags  the first comment; tag names separated by commas/;
  brand_id             the brand of `platforms` (default: the organization's default brand)

Text rows become content scheduled on their profiles (or waiting for approval when the brand
requires it); prompt rows are generated through the batch pipeline, planned for their date.
"""

from __future__ import annotations

import csv
import datetime
import hashlib
import io
import re
import zoneinfo
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.brands.models import Brand
from apps.content import states
from apps.content.models import Batch, Content, ContentSchedule, Tag, Variant
from apps.core import ids
from apps.core.errors import InvalidSubject, PayloadTooLarge
from apps.events.services import event_record
from apps.media.models import MediaAsset
from apps.profiles.models import SocialProfile

from ..models import Publication
from .preflight import MediaFacts, Subject, content_preflight, media_facts

COLUMNS = (
    "text",
    "prompt",
    "platforms",
    "profile_ids",
    "date",
    "time",
    "timezone",
    "media_urls",
    "media_ids",
    "first_comment",
    "tags",
    "brand_id",
)
TEMPLATE = (
    "text,prompt,platforms,profile_ids,date,time,timezone,media_urls,media_ids,first_comment,tags\r\n"
    '"Our autumn roast is here. Come taste it!",,"instagram x",,2026-12-01,09:30,Europe/Paris,'
    ',,"Link in bio","launch,autumn"\r\n'
    ',"A cosy photo of a latte on a rainy morning",linkedin,,2026-12-02,12:00,Europe/Paris,,,,autumn\r\n'
)
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_MEDIA_BYTES = 20 * 1024 * 1024
_SPLIT = re.compile(r"[\s,;]+")


class RowProblem(TypedDict):
    row: int
    column: str
    problem: str


@dataclass
class _Row:
    number: int
    text: str = ""
    prompt: str = ""
    brand: Brand | None = None
    profiles: list[SocialProfile] = field(default_factory=list)
    when: datetime.datetime | None = None
    assets: list[MediaAsset] = field(default_factory=list)
    downloads: list[tuple[str, str, bytes]] = field(default_factory=list)  # (url, content type, bytes)
    first_comment: str = ""
    tags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ImportResult:
    batch: Batch
    replayed: bool
    contents: int
    scheduled: int
    generating: int


# --- the media fetcher: the webhooks app plugs its SSRF-checked client in (it sits above us) ---

_fetch: list[Callable[..., tuple[str, bytes]]] = []


def fetch_media_with(fetch: Callable[..., tuple[str, bytes]]) -> None:
    _fetch[:] = [fetch]


# --- reading the file ------------------------------------------------------------------------------


def _read_rows(filename: str, data: bytes) -> list[dict[str, str]]:
    """The rows as {column: text}; an unreadable file or unknown header is an InvalidSubject."""
    if data[:4] == b"PK\x03\x04" or filename.lower().endswith(".xlsx"):
        return _read_xlsx(data)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidSubject(
            "The file is not UTF-8 text (CSV) or an XLSX workbook.", "file", "Unreadable."
        ) from None
    reader = csv.reader(io.StringIO(text))
    table = [row for row in reader]
    return _as_dicts(table)


def _read_xlsx(data: bytes) -> list[dict[str, str]]:
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:  # openpyxl raises many kinds for a damaged workbook
        raise InvalidSubject("The XLSX workbook cannot be read.", "file", "Unreadable workbook.") from None
    sheet = book.worksheets[0]
    table = [["" if c is None else _cell(c) for c in row] for row in sheet.iter_rows(values_only=True)]
    book.close()
    return _as_dicts(table)


def _cell(value: Any) -> str:
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, datetime.time):
        return value.strftime("%H:%M")
    return str(value)


def _as_dicts(table: list[list[str]]) -> list[dict[str, str]]:
    table = [row for row in table if any(str(c).strip() for c in row)]
    if not table:
        raise InvalidSubject("The file has no header row.", "file", "Empty file.")
    header = [str(c).strip().lower().replace(" ", "_") for c in table[0]]
    unknown = [h for h in header if h and h not in COLUMNS]
    if unknown:
        raise InvalidSubject(
            "The file has columns Postforge does not know.",
            "file",
            f"Unknown columns: {', '.join(unknown)}; known: {', '.join(COLUMNS)}.",
        )
    rows = [{h: str(v).strip() for h, v in zip(header, row, strict=False) if h} for row in table[1:]]
    if not rows:
        raise InvalidSubject("The file has no rows under its header.", "file", "No rows.")
    cap = int(getattr(settings, "IMPORT_MAX_ROWS", 1000))
    if len(rows) > cap:
        raise InvalidSubject(
            f"A file holds at most {cap} rows ({len(rows)} given).", "file", f"At most {cap} rows."
        )
    return rows


# --- checking every row ----------------------------------------------------------------------------


@dataclass
class _Context:
    organization: Any
    brands: dict[str, Brand]
    default_brand: Brand | None
    profiles: dict[Any, SocialProfile]
    assets: dict[Any, MediaAsset]
    problems: list[RowProblem] = field(default_factory=list)

    def add(self, row: int, column: str, problem: str) -> None:
        self.problems.append({"row": row, "column": column, "problem": problem})


def _context(organization: Any, raw_rows: list[dict[str, str]]) -> _Context:
    """Everything the rows name, read once (organization- and brand-scoped)."""
    brands = {str(b.pk): b for b in Brand.objects.for_organization(organization)}
    default = next((b for b in brands.values() if b.is_default), None) or next(iter(brands.values()), None)
    profiles = {p.pk: p for p in SocialProfile.objects.for_organization(organization).select_related("brand")}
    wanted = {
        pk
        for r in raw_rows
        for raw in _SPLIT.split(r.get("media_ids", ""))
        if raw and (pk := ids.parse(raw, ("media", "asset")))
    }
    assets = {a.pk: a for a in MediaAsset.objects.for_organization(organization).filter(pk__in=wanted)}
    return _Context(organization, brands, default, profiles, assets)


def _check_row(ctx: _Context, number: int, raw: dict[str, str]) -> _Row:
    row = _Row(number, text=raw.get("text", ""), prompt=raw.get("prompt", ""))
    if bool(row.text) == bool(row.prompt):
        ctx.add(number, "text", "Give the post's text or a prompt to generate it from (one of the two).")
    _check_targets(ctx, row, raw)
    _check_when(ctx, row, raw)
    for raw_id in [m for m in _SPLIT.split(raw.get("media_ids", "")) if m]:
        asset = ctx.assets.get(ids.parse(raw_id, ("media", "asset")))
        if asset is None:
            ctx.add(number, "media_ids", f"Unknown media {raw_id}.")
        else:
            row.assets.append(asset)
    for url in [u for u in raw.get("media_urls", "").split() if u]:
        _fetch_one(ctx, row, url)
    row.first_comment = raw.get("first_comment", "")
    row.tags = [t.strip() for t in re.split(r"[,;]", raw.get("tags", "")) if t.strip()]
    if any(len(t) > 100 for t in row.tags):
        ctx.add(number, "tags", "A tag is at most 100 characters.")
    return row


def _check_targets(ctx: _Context, row: _Row, raw: dict[str, str]) -> None:
    number = row.number
    named = [p for p in _SPLIT.split(raw.get("profile_ids", "")) if p]
    platforms = [p.lower() for p in _SPLIT.split(raw.get("platforms", "")) if p]
    if named:
        for raw_id in named:
            profile = ctx.profiles.get(ids.parse(raw_id, "profile"))
            if profile is None:
                ctx.add(number, "profile_ids", f"Unknown profile {raw_id}.")
            else:
                row.profiles.append(profile)
        brands = {p.brand_id for p in row.profiles}
        if len(brands) > 1:
            ctx.add(number, "profile_ids", "The profiles of one row must be of one brand.")
        row.brand = row.profiles[0].brand if row.profiles else None
        return
    if not platforms:
        ctx.add(number, "platforms", "Give platforms or profile_ids.")
        return
    brand_raw = raw.get("brand_id", "")
    brand = ctx.brands.get(str(ids.parse(brand_raw, "brand"))) if brand_raw else ctx.default_brand
    if brand is None:
        ctx.add(number, "brand_id", f"Unknown brand {brand_raw}." if brand_raw else "No brand to post for.")
        return
    row.brand = brand
    for platform in platforms:
        found = [
            p
            for p in ctx.profiles.values()
            if p.brand_id == brand.pk and p.platform == platform and p.connected
        ]
        if not found:
            ctx.add(number, "platforms", f"The brand {brand.name} has no connected {platform} profile.")
        row.profiles.extend(found)


def _check_when(ctx: _Context, row: _Row, raw: dict[str, str]) -> None:
    number, date, clock = row.number, raw.get("date", ""), raw.get("time", "") or "09:00"
    tz_name = raw.get("timezone", "") or (row.profiles[0].timezone_name if row.profiles else "UTC")
    try:
        zone = zoneinfo.ZoneInfo(tz_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        ctx.add(number, "timezone", f"Unknown time zone {tz_name!r} (an IANA name such as Europe/Paris).")
        return
    if not date:
        ctx.add(number, "date", "Give the date (YYYY-MM-DD).")
        return
    try:
        day = datetime.date.fromisoformat(date[:10])
        at = datetime.time.fromisoformat(clock if len(clock) > 2 else f"{clock}:00")
    except ValueError:
        ctx.add(number, "date" if not _is_date(date) else "time", "Not a date (YYYY-MM-DD) and time (HH:MM).")
        return
    row.when = datetime.datetime.combine(day, at, tzinfo=zone).astimezone(datetime.UTC)
    if row.when <= timezone.now():
        ctx.add(number, "date", "This date and time is in the past.")


def _is_date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text[:10])
    except ValueError:
        return False
    return True


def _fetch_one(ctx: _Context, row: _Row, url: str) -> None:
    from apps.media.upload_rules import sniff_type

    if not _fetch:
        ctx.add(row.number, "media_urls", "Media URLs cannot be fetched on this server.")
        return
    try:
        content_type, body = _fetch[0](url, max_bytes=MAX_MEDIA_BYTES)
    except Exception as exc:  # an unsafe address (UnsafeURL) or a failed fetch (ValueError)
        ctx.add(row.number, "media_urls", f"{url}: {getattr(exc, 'message', None) or exc}")
        return
    from apps.media.upload_rules import IMAGE_TYPES, VIDEO_TYPES

    sniffed = sniff_type(body[:64])
    if sniffed is None:
        ctx.add(
            row.number,
            "media_urls",
            f"{url}: not an image or video Postforge takes ({content_type or 'unknown'}).",
        )
        return
    kind, fmt = sniffed
    row.downloads.append((url, (IMAGE_TYPES if kind == "image" else VIDEO_TYPES)[fmt][0], body))


def _preflight(ctx: _Context, row: _Row) -> None:
    """A text row is ready to go: the pre-flight check of its post on its profiles."""
    if not (row.text and row.profiles and row.when):
        return
    facts = [media_facts(a) for a in row.assets] + [
        MediaFacts(ctype.split("/")[0], ctype, len(body), None, None, None, None, None)
        for _, ctype, body in row.downloads
    ]
    platforms = sorted({p.platform for p in row.profiles})
    media_type = "video" if any(f.media_type == "video" for f in facts) else "image"
    subject = Subject(
        platforms=platforms,
        post_type="feed",
        media_type=media_type,
        variants={p: {"caption": row.text, "firstComment": row.first_comment} for p in platforms},
        media=facts,
    )
    for report in content_preflight(subject=subject, profiles=row.profiles, scheduled_for=row.when):
        for problem in report["problems"]:
            column = {
                "text_rule": "text" if problem["subject"] != "firstComment" else "first_comment",
                "feature_not_granted": "first_comment",
                "token_expires_before_schedule": "date",
            }.get(problem["code"], "media" if problem["code"].startswith("media") else "profile_ids")
            if column == "media":
                column = "media_ids" if row.assets else "media_urls"
            ctx.add(row.number, column, f"{report['platform']}: {problem['rule']} ({problem['code']})")


# --- the import ------------------------------------------------------------------------------------


def content_import(*, organization: Any, filename: str, data: bytes, actor: Any = None) -> ImportResult:
    """Check every row of the file, then create it as one batch (or answer with the batch the
    same file made before)."""
    if len(data) > MAX_FILE_BYTES:
        raise PayloadTooLarge(f"An import file is at most {MAX_FILE_BYTES // (1024 * 1024)} MB.")
    key = hashlib.sha256(data).hexdigest()
    earlier = Batch.objects.filter(organization=organization, import_key=key).first()
    if earlier is not None:
        return _result(earlier, replayed=True)
    raw_rows = _read_rows(filename, data)
    ctx = _context(organization, raw_rows)
    rows = [_check_row(ctx, i, raw) for i, raw in enumerate(raw_rows, start=2)]  # row 1 is the header
    malformed = {p["row"] for p in ctx.problems}
    for row in rows:  # a well-formed row: would its post be accepted?
        if row.number not in malformed:
            _preflight(ctx, row)
    if ctx.problems:
        raise InvalidSubject(
            f"{len({p['row'] for p in ctx.problems})} of {len(rows)} rows cannot be imported; nothing was created.",
            "rows",
            sorted(ctx.problems, key=lambda p: (p["row"], p["column"])),
        )
    from apps.content.services.batches import generations_within_plan

    prompts = sum(1 for row in rows if row.prompt)
    if prompts:
        generations_within_plan(organization, prompts)
    try:
        batch = _create(organization, key, rows, actor)
    except IntegrityError:  # the same file, imported meanwhile by another request
        return _result(Batch.objects.get(organization=organization, import_key=key), replayed=True)
    return _result(batch, replayed=False)


def _result(batch: Batch, *, replayed: bool) -> ImportResult:
    contents = list(batch.contents.values_list("status", flat=True))
    return ImportResult(
        batch=batch,
        replayed=replayed,
        contents=len(contents),
        scheduled=sum(1 for s in contents if s == states.SCHEDULED),
        generating=sum(1 for s in contents if s in (states.PENDING, states.GENERATING)),
    )


@transaction.atomic
def _create(organization: Any, key: str, rows: Sequence[_Row], actor: Any) -> Batch:
    from apps.content.services import GenerationInput, content_request_generation
    from apps.content.services.batches import batch_progress
    from apps.content.services.creation import _enqueue_generation

    batch = Batch.objects.create(organization=organization, total=len(rows), import_key=key)
    tags = {t.name.casefold(): t for t in Tag.objects.for_organization(organization)}
    generated: list[Content] = []
    for i, row in enumerate(rows):
        assert row.brand is not None and row.when is not None  # checked
        platforms = sorted({p.platform for p in row.profiles})
        row_tags = []
        for name in row.tags:
            if name.casefold() not in tags:
                tags[name.casefold()] = Tag.objects.create(organization=organization, name=name)
            row_tags.append(tags[name.casefold()])
        if row.prompt:
            content = content_request_generation(
                organization=organization,
                actor=actor,
                batch=batch,
                enqueue=False,
                inp=GenerationInput(
                    prompt=row.prompt,
                    platforms=platforms,
                    brand=row.brand,
                    profile=row.profiles[0],
                    tags=row_tags,
                ),
            )
            ContentSchedule.objects.create(
                organization=organization,
                profile=row.profiles[0],
                scheduled_date=row.when.date(),
                task=row.prompt,
                platform=row.profiles[0].platform,
                dimensions=content.dimensions,
                status=ContentSchedule.GENERATING,
                content=content,
            )
            generated.append(content)
        else:
            _create_post(organization, batch, row, platforms, row_tags)
        if (i + 1) % 100 == 0 or i + 1 == len(rows):  # progress over the websocket as rows are made
            event_record(organization=organization, type="batch.progress", data=batch_progress(batch))
    if not generated:
        batch.status, batch.finished_at = Batch.COMPLETED, timezone.now()
        batch.save(update_fields=["status", "finished_at", "updated_at"])
        event_record(organization=organization, type="batch.completed", data=batch_progress(batch))
    for content in generated:
        _enqueue_generation(content)
    return batch


def _create_post(
    organization: Any,
    batch: Batch,
    row: _Row,
    platforms: list[str],
    row_tags: list[Tag],
) -> Content:
    """A text row: its content with a variant per platform and its media, scheduled on its
    profiles, or waiting in review when the brand requires approval."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.content.machine import event_data
    from apps.media.services import media_upload

    assert row.brand is not None and row.when is not None
    needs_approval = row.brand.require_approval
    content = Content.objects.create(
        organization=organization,
        brand=row.brand,
        profile=row.profiles[0],
        platforms=platforms,
        prompt=row.text[:5000],
        generation_mode="manual_upload",
        status=states.REVIEW if needs_approval else states.SCHEDULED,
        progress=100,
        generated_at=timezone.now(),
        scheduled_for=None if needs_approval else row.when,
        settings={"importedFor": row.when.isoformat(), "importedProfiles": [str(p.pk) for p in row.profiles]},
        batch=batch,
    )
    if row_tags:
        content.tags.set(row_tags)
    Variant.objects.bulk_create(
        [
            Variant(content=content, platform=p, caption=row.text, first_comment=row.first_comment)
            for p in platforms
        ]
    )
    position = 0
    for asset in row.assets:
        MediaAsset.objects.filter(pk=asset.pk).update(content=content, position=position)
        position += 1
    for url, _ctype, body in row.downloads:  # stored as an upload is: type from the bytes, EXIF stripped
        name = url.split("?", 1)[0].rsplit("/", 1)[-1][:100] or "media"
        asset = media_upload(
            organization=organization, uploaded=SimpleUploadedFile(name, body), kind="upload", brand=row.brand
        )
        MediaAsset.objects.filter(pk=asset.pk).update(content=content, position=position)
        position += 1
    event_record(organization=organization, type="content.created", data=event_data(content))
    if not needs_approval:
        Publication.objects.bulk_create(
            [
                Publication(
                    organization_id=content.organization_id,
                    content=content,
                    profile=p,
                    scheduled_for=row.when,
                    due_at=row.when,
                    options={},
                )
                for p in row.profiles
            ]
        )
        event_record(
            organization=organization,
            type="content.scheduled",
            data=event_data(
                content, scheduledFor=row.when.isoformat(), profileIds=[str(p.pk) for p in row.profiles]
            ),
        )
    return content
