"""Issue 32: CSV and XLSX bulk import through both families.

Every row is checked before anything is created (one report: row, column, problem), then the
file is created as one batch with progress events; the same file uploaded again creates nothing.
Media by URL comes through the SSRF-checked client from a local HTTP server.
"""

from __future__ import annotations

import csv
import datetime
import http.server
import io
import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from apps.brands.models import Brand
from apps.content.models import Batch, Content, Tag
from apps.core import ids
from apps.publishing.models import Publication
from apps.publishing.services.importing import COLUMNS, _read_rows
from tests.conftest import png_bytes
from tests.factories import ProfileFactory

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = ["text", "platforms", "profile_ids", "date", "time", "timezone", "first_comment", "tags"]


@pytest.fixture
def brand(owner):
    brand = Brand.objects.get(organization=owner.org, is_default=True)
    assert not brand.require_approval  # imported text rows are scheduled at once
    return brand


def _csv(rows: list[list[str]], header: list[str] = HEADER) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def _post(client, path: str, data: bytes, name: str = "posts.csv"):
    return client.post(
        path, {"file": SimpleUploadedFile(name, data, content_type="text/csv")}, format="multipart"
    )


def test_500_rows_with_20_bad_give_one_report_then_create_500_once(owner, brand, events_sent):
    x = ProfileFactory(organization=owner.org, brand=brand, platform="x", sandbox=True)
    prf = ids.render(x.pk, "profile")
    day = (timezone.now() + datetime.timedelta(days=3)).date()
    good = [
        [f"Post number {i}", "", prf, day.isoformat(), "09:30", "Europe/Paris", "", "import"]
        for i in range(500)
    ]
    bad = [list(r) for r in good]
    for i in range(0, 10):  # in the past
        bad[i * 40][3] = "2020-01-01"
    for i in range(10, 15):  # a profile nobody has
        bad[i * 30 + 1][2] = "prf_" + "0" * 32
    for i in range(15, 20):  # longer than X takes (280, weighted)
        bad[i * 20 + 3][0] = "x" * 300
    client = owner.client()

    refused = _post(client, "/v1/content/import", _csv(bad))
    assert refused.status_code == 400, refused.content[:500]
    error = refused.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and "20 of 500 rows" in error["message"]
    rows = error["details"]["rows"]
    assert len({r["row"] for r in rows}) == 20
    assert {"row": 2, "column": "date", "problem": "This date and time is in the past."} in rows
    assert any(r["column"] == "profile_ids" and "Unknown profile" in r["problem"] for r in rows)
    assert any(r["column"] == "text" and "text_rule" in r["problem"] for r in rows)
    assert Content.objects.count() == 0 and Batch.objects.count() == 0 and not Tag.objects.exists()

    b_refused = _post(client, "/api/content/import", _csv(bad))
    assert b_refused.status_code == 400 and len({r["row"] for r in b_refused.json()["details"]["rows"]}) == 20

    fixed = _csv(good)
    created = _post(client, "/v1/content/import", fixed)
    assert created.status_code == 201, created.content[:500]
    body = created.json()
    assert body["batchId"].startswith("bat_") and body["replayed"] is False
    assert (body["contents"], body["scheduled"], body["generating"]) == (500, 500, 0)
    assert Content.objects.filter(organization=owner.org).count() == 500
    assert Publication.objects.filter(profile=x, status="scheduled").count() == 500
    first = Publication.objects.select_related("content").first()
    assert first.scheduled_for == datetime.datetime.combine(
        day, datetime.time(9, 30), tzinfo=datetime.timezone(datetime.timedelta(hours=1))
    )
    assert list(first.content.tags.values_list("name", flat=True)) == ["import"]

    # the same file again, through either family: the batch it made, nothing new
    again = _post(client, "/v1/content/import", fixed)
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert again.json()["batchId"] == body["batchId"]
    b_again = _post(client, "/api/content/import", fixed)
    assert b_again.status_code == 200 and b_again.json()["data"]["batchId"] == str(
        ids.parse(body["batchId"], "batch")
    )
    assert Content.objects.filter(organization=owner.org).count() == 500
    assert Batch.objects.count() == 1

    progress = [e for e in events_sent() if e["type"] in ("batch.progress", "batch.completed")]
    assert [e["data"]["total"] for e in progress] and progress[-1]["type"] == "batch.completed"
    assert progress[-1]["data"]["completed"] == 500


class _Images(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path == "/photo.png":
            body = png_bytes((640, 640))
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_response(404)
            self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def image_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Images)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_xlsx_with_media_urls_and_a_prompt_row_through_family_b(owner, brand, settings, image_server):
    import openpyxl

    settings.WEBHOOK_ALLOWED_CIDRS = ["127.0.0.0/8"]  # the local server stands in for a CDN
    settings.WEBHOOK_ALLOW_HTTP = True
    ProfileFactory(organization=owner.org, brand=brand, platform="linkedin", sandbox=True)
    day = (timezone.now() + datetime.timedelta(days=5)).date()
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Text", "Prompt", "Platforms", "Date", "Time", "Media URLs", "Tags"])
    sheet.append(["Our new roast", None, "linkedin", day, "10:00", f"{image_server}/photo.png", "launch"])
    sheet.append([None, "A latte on a rainy morning", "linkedin", day, "12:00", None, None])
    sheet.append(["Missing picture", None, "linkedin", day, "11:00", f"{image_server}/nope.png", None])
    out = io.BytesIO()
    book.save(out)
    data = out.getvalue()

    client = owner.client()
    refused = client.post(
        "/api/content/import", {"file": SimpleUploadedFile("plan.xlsx", data)}, format="multipart"
    )
    assert refused.status_code == 400, refused.content
    problems = refused.json()["details"]["rows"]
    assert len(problems) == 1, problems
    [problem] = problems
    assert problem["row"] == 4 and problem["column"] == "media_urls" and "404" in problem["problem"]

    sheet.delete_rows(4)
    out = io.BytesIO()
    book.save(out)
    created = client.post(
        "/api/content/import", {"file": SimpleUploadedFile("plan.xlsx", out.getvalue())}, format="multipart"
    )
    assert created.status_code == 201, created.content
    data_b = created.json()["data"]
    assert data_b["contents"] == 2 and data_b["scheduled"] == 1
    batch = Batch.objects.get(pk=data_b["batchId"])
    posted = batch.contents.get(generation_mode="manual_upload")
    [asset] = posted.media_assets.all()
    assert (asset.content_type, asset.width) == ("image/png", 640)
    generated = batch.contents.get(generation_mode="prompt_based")
    generated.refresh_from_db()
    assert generated.status == "review"  # generated through the batch pipeline (eager in tests)
    assert generated.planned_schedule.scheduled_date == day


def test_an_unsafe_media_url_and_a_bad_file_are_clear_4xx(owner, brand, settings):
    settings.WEBHOOK_ALLOWED_CIDRS = []
    settings.WEBHOOK_ALLOW_HTTP = True  # the refusal is the address's, not the scheme's
    ProfileFactory(organization=owner.org, brand=brand, platform="x", sandbox=True)
    day = (timezone.now() + datetime.timedelta(days=2)).date().isoformat()
    data = _csv([["Hello", "x", "", day, "09:00", "UTC", "", ""]], HEADER)
    data = data.replace(b"first_comment,tags", b"first_comment,media_urls").replace(
        b"UTC,,\r\n", b"UTC,,http://127.0.0.1:9/x.png\r\n"
    )
    refused = _post(owner.client(), "/v1/content/import", data)
    assert refused.status_code == 400
    [problem] = refused.json()["error"]["details"]["rows"]
    assert problem["column"] == "media_urls" and "127.0.0.1" in problem["problem"]

    unknown = _post(owner.client(), "/api/content/import", b"caption,when\r\nhi,now\r\n")
    assert unknown.status_code == 400 and "Unknown columns" in str(unknown.json()["details"])
    missing = owner.client().post("/v1/content/import", {}, format="multipart")
    assert missing.status_code == 400 and missing.json()["error"]["details"]["file"]


def test_the_template_is_downloadable_and_reads_back(client):
    response = client.get("/content-import-template.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = _read_rows("template.csv", response.content)
    assert set(rows[0]) <= set(COLUMNS) and len(rows) == 2
    assert rows[0]["text"] and rows[1]["prompt"]
