"""The AsyncAPI documents of /ws/events/ (apps/events/asyncapi.py) and the family rendering they
describe (apps/events/catalog.py), without servers: the structure of both documents against the
AsyncAPI 3.0.0 JSON Schema, what they serve, and one internal event in each family."""

from __future__ import annotations

import copy
import re
import uuid

import pytest
from django.test import Client

from apps.core import ids
from apps.events import asyncapi, catalog
from apps.events.services import event_record
from tests.events.asyncapi_check import document_errors, internal_event_errors, message_errors

CONTENT = uuid.UUID("0f8fad5b-d9cb-469f-a165-70867728950e")
BATCH, PROFILE, EVENT = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()


@pytest.mark.parametrize("family", catalog.FAMILIES)
def test_each_document_is_a_valid_asyncapi_3_document(family):
    doc = asyncapi.document(family, host="example.test:8443", secure=True)
    assert document_errors(doc) == []
    assert doc["asyncapi"] == "3.0.0" and doc["channels"]["events"]["address"] == "/ws/events/"
    assert doc["servers"]["postforge"] == {
        **doc["servers"]["postforge"],
        "host": "example.test:8443",
        "protocol": "wss",
    }
    # every type the code defines is a message of the channel, sent or received by an operation
    names = {m["name"] for m in doc["components"]["messages"].values()}
    assert names == {t.name for t in catalog.types()}
    operated = doc["operations"]["sendEvents"]["messages"] + doc["operations"]["receiveActions"]["messages"]
    assert len(operated) == len(names)
    assert {"content.generated", "content.generation.progress", "batch.completed", "subscribe"} <= names


def test_the_structure_check_refuses_a_broken_document():
    doc = asyncapi.document("v1")
    broken = copy.deepcopy(doc)
    broken["asyncapi"] = "2.6.0"
    del broken["info"]["title"]
    broken["operations"]["sendEvents"]["action"] = "publish"  # AsyncAPI 2's word, not 3.0's
    errors = document_errors(broken)
    assert len(errors) >= 3, errors


def test_an_internal_event_reads_as_each_family_rest_api_answers():
    internal = {
        "type": "content.generated",
        "data": {
            "id": str(EVENT),
            "contentId": str(CONTENT),
            "status": "review",
            "previousStatus": "generating",
            "platforms": ["instagram"],
            "batchId": str(BATCH),
            "sequence": 3,
            "occurredAt": "2025-12-31T23:59:59.5Z",
        },
        "sentAt": "2026-01-01T00:00:00Z",
    }
    a = catalog.render(internal, "v1")
    b = catalog.render(internal, "api")
    assert a["data"] == {
        "id": ids.render(EVENT, "event"),
        "contentId": "cnt_0f8fad5bd9cb469fa16570867728950e",
        "status": "generated",  # GET /v1/content's word
        "previousStatus": "generating",
        "platforms": ["instagram"],
        "batchId": ids.render(BATCH, "batch"),
        "sequence": 3,
        "occurredAt": "2025-12-31T23:59:59.5Z",
    }
    assert b["data"] == {**internal["data"], "status": "reviewing"}  # GET /api/content's word
    assert internal["data"]["status"] == "review"  # the internal event is not changed
    assert message_errors(a, "v1") == [] and message_errors(b, "api") == []
    # a family's frame is not the other's
    assert message_errors(a, "api") and message_errors(b, "v1")


def test_nested_ids_and_statuses_and_ids_already_prefixed_are_rendered_too():
    batch = {
        "type": "batch.completed",
        "data": {
            "id": str(EVENT),
            "sequence": 1,
            "occurredAt": "2026-01-01T00:00:00Z",
            "batchId": str(BATCH),
            "status": "completed",
            "total": 1,
            "completed": 1,
            "failed": 0,
            "progress": 100,
            "items": [{"contentId": str(CONTENT), "status": "review", "progress": 100}],
        },
        "sentAt": "2026-01-01T00:00:00Z",
    }
    assert catalog.render(batch, "v1")["data"]["items"] == [
        {"contentId": ids.render(CONTENT, "content"), "status": "generated", "progress": 100}
    ]
    assert catalog.render(batch, "api")["data"]["items"] == [
        {"contentId": str(CONTENT), "status": "reviewing", "progress": 100}
    ]
    scheduled = {
        "type": "content.scheduled",
        "data": {
            "id": str(EVENT),
            "sequence": 1,
            "occurredAt": "2026-01-01T00:00:00Z",
            "contentId": str(CONTENT),
            "status": "scheduled",
            "platforms": ["x"],
            "scheduledFor": "2026-01-02T09:00:00+00:00",
            "profileIds": [str(PROFILE)],
        },
        "sentAt": "2026-01-01T00:00:00Z",
    }
    assert catalog.render(scheduled, "v1")["data"]["profileIds"] == [ids.render(PROFILE, "profile")]
    disabled = {  # recorded with a prefixed id: Family B still reads a UUID
        "type": "webhook.disabled",
        "data": {
            "id": str(EVENT),
            "sequence": 1,
            "occurredAt": "2026-01-01T00:00:00Z",
            "webhookId": ids.render(PROFILE, "webhook"),
            "url": "https://h.test",
            "reason": "x",
        },
        "sentAt": "2026-01-01T00:00:00Z",
    }
    assert catalog.render(disabled, "api")["data"]["webhookId"] == str(PROFILE)
    for event in (batch, scheduled, disabled):
        assert internal_event_errors(event) == []


def test_the_check_names_a_field_the_definitions_do_not_declare():
    stray = {
        "type": "content.updated",
        "data": {
            "id": str(EVENT),
            "sequence": 1,
            "occurredAt": "2026-01-01T00:00:00Z",
            "contentId": str(CONTENT),
            "status": "review",
            "platforms": [],
            "colour": "red",
        },
        "sentAt": "2026-01-01T00:00:00Z",
    }
    errors = internal_event_errors(stray)
    assert any("'colour' was unexpected" in e for e in errors), errors


@pytest.mark.django_db
def test_a_service_cannot_record_an_event_the_documents_do_not_define():
    from apps.accounts.services import organization_get_or_create

    org = organization_get_or_create(name="Undefined Events Org")
    with pytest.raises(LookupError, match=r"content\.teleported"):
        event_record(organization=org, type="content.teleported", data={})


@pytest.mark.parametrize("family", catalog.FAMILIES)
def test_the_documents_are_served_next_to_the_openapi_schemas(family):
    client = Client()
    answer = client.get(f"/{family}/asyncapi/")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("application/json")
    assert answer.json() == asyncapi.document(family, host="testserver")
    openapi = client.get(f"/{family}/schema/?format=json")  # its neighbour links to it
    assert f"](/{family}/asyncapi/docs/)" in openapi.json()["info"]["description"]
    page = client.get(f"/{family}/asyncapi/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    for event_type in catalog.types():
        assert f'id="{event_type.name.replace(".", "_")}"' in html
    # nothing loads from elsewhere: no script at all, no external stylesheet, image or font
    assert "<script" not in html
    assert not re.search(r"""(src|href)=["']https?://""", html), re.findall(
        r"""(?:src|href)=["'][^"']+""", html
    )
    example = (
        "cnt_0f8fad5bd9cb469fa16570867728950e" if family == "v1" else "0f8fad5b-d9cb-469f-a165-70867728950e"
    )
    assert example in html
    assert ("&quot;generated&quot;" in html) == (family == "v1")
    assert ("&quot;reviewing&quot;" in html) == (family == "api")
    assert client.post(f"/{family}/asyncapi/").status_code == 405
