"""The websocket's AsyncAPI documents as a person reads them (issue 21): each family's page on
the real `serve`, in headless Chromium, offline (every request goes to the service itself)."""

from __future__ import annotations

import pytest
import requests

from tests.events.asyncapi_check import document_errors

from .conftest import shot

pytestmark = [pytest.mark.services, pytest.mark.browser]


@pytest.mark.parametrize(
    ("family", "ready_word", "other"), [("v1", "generated", "api"), ("api", "reviewing", "v1")]
)
def test_each_familys_event_docs_render_offline_in_chromium(browser, serve, family, ready_word, other):
    document = requests.get(f"{serve.base}/{family}/asyncapi/", timeout=30).json()
    assert document_errors(document) == []
    assert document["servers"]["postforge"]["host"] == f"127.0.0.1:{serve.port}"

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    hosts = set()
    page.on("request", lambda r: hosts.add(r.url.split("/")[2]))
    answer = page.goto(f"{serve.base}/{family}/asyncapi/docs/")
    assert answer.status == 200
    assert hosts == {f"127.0.0.1:{serve.port}"}  # nothing from a CDN
    assert page.title() == document["info"]["title"]
    assert page.locator("#content_generated h3").inner_text() == "content.generated"
    # the content events share one payload table, where `previousStatus` lists the family's words
    shared = page.locator("section.message", has=page.locator("#content_generated"))
    assert shared.locator("#content_approved").count() == 1
    assert f'"{ready_word}"' in shared.locator("tr", has_text="previousStatus").inner_text()
    named = page.locator("section.message div.name").count()
    assert named == len(document["components"]["messages"])
    shot(page, f"asyncapi-{family}", full_page=False)
    shared.screenshot(path=str(shot(page, f"asyncapi-{family}-content-events", full_page=False)))
    page.click(f"a[href='/{other}/asyncapi/docs/']")
    assert page.url.endswith(f"/{other}/asyncapi/docs/")
    context.close()
