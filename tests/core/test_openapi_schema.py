"""Both OpenAPI schemas are valid OpenAPI 3 and say what generated clients need (issue 10)."""

from __future__ import annotations

import re

import pytest
from openapi_spec_validator import validate

SCHEMAS = {"v1": "/v1/schema/", "api": "/api/schema/"}


@pytest.fixture
def schemas(client):
    return {
        f: client.get(url, HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
        for f, url in SCHEMAS.items()
    }


def test_the_schemas_validate_and_declare_what_a_generator_needs(schemas):
    for family, schema in schemas.items():
        validate(schema)
        assert schema["info"]["version"] == "1.0.0" and schema["info"]["license"]["name"]
        assert ("Family A" if family == "v1" else "Family B") in schema["info"]["title"]
        assert schema["servers"] == [{"url": f"/{family}", "description": "This server"}]
        assert not any(path.startswith(f"/{family}/") for path in schema["paths"])
        for path, item in schema["paths"].items():
            for method, op in item.items():
                assert op.get("summary") and op.get("tags"), (path, method)
                assert "500" in op["responses"], (path, method)
                # the database away: a 503 to retry after its Retry-After (in the family's error body)
                assert "Retry-After" in op["responses"]["503"]["headers"], (path, method)
                body = op.get("requestBody", {}).get("content", {})
                if body:
                    assert "415" in op["responses"], (path, method)
                    # JSON only, except uploads, which are multipart with a `file`
                    assert list(body) in (["application/json"], ["multipart/form-data"]), (
                        path,
                        method,
                        list(body),
                    )
                    if "multipart/form-data" in body:
                        assert "file" in body["multipart/form-data"]["schema"]["properties"], (path, method)
                if family == "api":
                    for param in op.get("parameters", []):
                        if param["in"] == "path" and param["name"] == "id":
                            assert param["schema"] == {"type": "string", "format": "uuid"}, (path, method)
        used = str(schema["paths"])
        assert ("ErrorA" in used) == (family == "v1") and ("ErrorB" in used) == (family == "api")
        assert "ErrorB" not in schema["components"]["schemas"] or family == "api"


def test_family_a_response_objects_require_only_their_id(schemas):
    """`fields=` may leave out any other field; a typed client must still parse the object."""
    components = schemas["v1"]["components"]["schemas"]
    assert components["ContentOutput"]["required"] == ["id"]
    assert components["BrandOutput"]["required"] == ["id"]
    assert "fields" in {p["name"] for p in schemas["v1"]["paths"]["/content/{id}"]["get"]["parameters"]}


def test_wait_declares_the_bounds_the_server_enforces(schemas, owner):
    (wait,) = [
        p for p in schemas["v1"]["paths"]["/content/generate"]["post"]["parameters"] if p["name"] == "wait"
    ]
    assert wait["schema"] == {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 60}
    for bad in ("0", "61"):
        response = owner.client().post(
            f"/v1/content/generate?wait={bad}", {"prompt": "x", "platforms": ["x"]}, format="json"
        )
        assert response.status_code == 400 and "wait" in response.json()["error"]["details"], response.content


def test_schedule_slots_declare_the_days_the_server_takes(schemas):
    for method in ("get", "put"):
        (days,) = [
            p
            for p in schemas["api"]["paths"]["/profiles/{id}/schedule-slots"][method]["parameters"]
            if p["name"] == "days"
        ]
        assert (days["in"], days["schema"]) == (
            "query",
            {"type": "integer", "minimum": 1, "maximum": 31, "default": 7},
        )


def test_request_bodies_refuse_unknown_fields_in_the_schema_and_on_the_server(schemas, owner):
    assert schemas["v1"]["components"]["schemas"]["BrandInputRequest"]["additionalProperties"] is False
    response = owner.client().post("/v1/brands", {"name": "Acme", "colour": "red"}, format="json")
    assert response.status_code == 400 and "colour" in str(response.json()["error"]["details"])


def test_a_method_a_path_does_not_allow_is_a_405_with_its_own_code(owner):
    response = owner.client().patch("/v1/profiles", {}, format="json")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


def _query_enums(schema, names):
    """(path, parameter, enum) for every GET query parameter in `names` that declares an enum."""
    for path, item in schema["paths"].items():
        op = item.get("get")
        if not op or "{" in path:
            continue
        for param in op.get("parameters", []):
            if param["in"] == "query" and param["name"] in names and "enum" in param["schema"]:
                yield path, param["name"], param["schema"]["enum"]


def test_every_declared_sort_and_platform_value_is_accepted_and_others_refused(schemas, owner, settings):
    """The enums are what the server accepts: each value answers 200, a value outside is a 400."""
    settings.RATE_LIMIT_DEFAULT = 100_000
    clients = {"v1": owner.client(), "api": owner.token_client()}
    checked = 0
    for family, schema in schemas.items():
        found = list(_query_enums(schema, ("sort", "sortBy", "platform", "metric", "groupBy", "kind")))
        names = {(path, name) for path, name, _ in found}
        assert {("/content", "platform"), ("/profiles", "platform")} <= names, family
        assert ("/brands", "sortBy" if family == "v1" else "sort") in names
        for path, name, enum in found:
            for value in enum:
                response = clients[family].get(f"/{family}{path}", {name: value})
                assert response.status_code == 200, (family, path, name, value, response.content[:300])
                checked += 1
            if path == "/media" and name == "kind":
                continue
            response = clients[family].get(f"/{family}{path}", {name: "bogus"})
            assert response.status_code in (400, 422), (family, path, name, response.content[:300])
    assert checked > 150
    (platform,) = [
        p
        for p in schemas["api"]["paths"]["/oauth/{platform}/authorize"]["post"]["parameters"]
        if p["name"] == "platform"
    ]
    assert platform["in"] == "path" and "instagram" in platform["schema"]["enum"]


def test_page_bounds_are_declared_and_enforced(schemas, owner):
    from apps.core.pagination import MAX_PAGE

    (page,) = [p for p in schemas["api"]["paths"]["/brands"]["get"]["parameters"] if p["name"] == "page"]
    assert page["schema"]["maximum"] == MAX_PAGE
    (page,) = [p for p in schemas["v1"]["paths"]["/profiles"]["get"]["parameters"] if p["name"] == "page"]
    assert (page["schema"]["minimum"], page["schema"]["maximum"]) == (1, MAX_PAGE)
    client = owner.client()
    assert client.get("/v1/profiles", {"page": MAX_PAGE}).status_code == 200
    assert client.get("/v1/profiles", {"page": MAX_PAGE + 1}).status_code == 400


def test_lists_the_service_needs_non_empty_say_min_items(schemas, owner):
    components = schemas["v1"]["components"]["schemas"]
    for name in ("PublishInputRequest", "ScheduleInputRequest"):
        assert components[name]["properties"]["profiles"]["minItems"] == 1
        assert "crossPost" in components[name]["properties"]["profiles"]["description"]
    events = components["WebhookInputRequest"]["properties"]["events"]
    names = components[events["items"]["$ref"].rsplit("/", 1)[1]]["enum"]
    assert events["minItems"] == 1 and "content.published" in names and "*" in names
    platforms = components["GenerateInputRequest"]["properties"]["platforms"]["items"]["$ref"].rsplit("/", 1)[
        1
    ]
    assert "instagram" in components[platforms]["enum"]
    client = owner.client()
    response = client.post("/v1/webhooks", {"url": "https://example.com/hook", "events": []}, format="json")
    assert response.status_code == 400 and "events" in response.json()["error"]["details"]


def test_objects_that_have_a_shape_declare_it_and_real_answers_match(owner, settings):
    """Per-platform variants, content analytics, batch operations and results, brand guidelines,
    effective settings and queue slots: declared, and real answers of both families match."""
    from apps.core import ids
    from tests.content.factories import make_content
    from tests.factories import ProfileFactory
    from tests.openapi_check import assert_conforms, declared

    settings.RATE_LIMIT_DEFAULT = 100_000
    profile = ProfileFactory(organization=owner.org, platform="instagram", connected=True)
    content = make_content(owner.org, profile=profile, platforms=("instagram", "x"))
    a, b = owner.client(), owner.token_client()
    cid = ids.render(content.pk, "content")

    shape = declared("v1", "/content/{id}", "get", 200)["components"]["schemas"]
    assert shape["ContentOutput"]["properties"]["content"]["additionalProperties"] == {
        "$ref": "#/components/schemas/PlatformContentOutput"
    }
    assert shape["ContentOutput"]["properties"]["analytics"] == {
        "$ref": "#/components/schemas/ContentAnalyticsOutput"
    }
    body = a.get(f"/v1/content/{cid}").json()
    assert set(body["content"]) == {"instagram", "x"} and "engagementRate" in body["analytics"]
    assert_conforms("v1", "/content/{id}", "get", 200, body)
    assert_conforms("api", "/content/{id}", "get", 200, b.get(f"/api/content/{content.pk}").json())

    operation = shape["BatchInputRequest"]["properties"]["operations"]["items"]["$ref"].rsplit("/", 1)[1]
    assert set(shape[operation]["properties"]) == {"method", "id", "data"}
    batch = a.post(
        "/v1/content/batch",
        {
            "operations": [
                {"method": "update", "id": cid, "data": {"content": {"x": {"caption": "Short."}}}},
                {"method": "delete", "id": "cnt_00000000000000000000000000000000"},
            ]
        },
        format="json",
    )
    assert batch.status_code == 200, batch.content
    assert [r["status"] for r in batch.json()["results"]] == ["ok", "error"]
    assert_conforms("v1", "/content/batch", "post", 200, batch.json())

    assert_conforms(
        "api", "/brands/{id}/settings", "get", 200, b.get(f"/api/brands/{profile.brand_id}/settings").json()
    )
    effective = b.get(f"/api/profiles/{profile.pk}/effective-settings").json()
    assert_conforms("api", "/profiles/{id}/effective-settings", "get", 200, effective)
    assert effective["data"]["settings"]["temperature"] == 0.7
    queue = b.get("/api/posts/queue").json()
    assert str(profile.pk) in queue["data"]["nextSlots"]
    assert_conforms("api", "/posts/queue", "get", 200, queue)


def test_family_a_fields_names_what_the_server_accepts(schemas, owner, settings):
    """`fields=` declares the resource's field names: all of them are accepted, another is a 400."""
    import re

    settings.RATE_LIMIT_DEFAULT = 100_000
    client = owner.client()
    checked = 0
    for path, item in schemas["v1"]["paths"].items():
        op = item.get("get")
        if not op or "{" in path:
            continue
        param = next((p for p in op.get("parameters", []) if p["name"] == "fields"), None)
        pattern = param and param["schema"].get("pattern")
        if not pattern:
            continue
        names = param["description"].split(": ", 1)[1].split(", ")
        everything = ",".join(names)
        assert (
            re.fullmatch(pattern, everything)
            and re.fullmatch(pattern, "")
            and not re.fullmatch(pattern, "id,bogus")
        )
        assert client.get(f"/v1{path}", {"fields": everything}).status_code == 200, path
        assert client.get(f"/v1{path}", {"fields": "id,bogus"}).status_code == 400, path
        checked += 1
    assert checked >= 4


def _resolve(schema, node, pointer: str):
    """The schema a JSON pointer of a body reaches, through `$ref`s, properties and items."""
    components = schema["components"]["schemas"]
    for token in [t for t in pointer.split("/") if t]:
        while "$ref" in node:
            node = components[node["$ref"].rsplit("/", 1)[1]]
        node = node["items"] if token.isdigit() else node["properties"][token]
    return node


def _links(schema):
    for path, item in schema["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                for name, link in response.get("links", {}).items():
                    yield path, method, status, op, response, name, link


def test_links_lead_from_a_create_to_what_can_be_done_with_its_object(schemas):
    """Each link names an operation that exists, sets exactly its path parameters, and takes
    them from a property the answer declares or from the request's own path."""
    by_id = {
        op["operationId"]: (path, op)
        for schema in schemas.values()
        for path, item in schema["paths"].items()
        for op in item.values()
    }
    for family, schema in schemas.items():
        found = set()
        for path, method, status, op, response, name, link in _links(schema):
            assert method == "post" and status.startswith("2"), (path, method, status)
            target_path, target = by_id[link["operationId"]]
            assert name == link["operationId"] and target_path in schema["paths"], name
            wanted = {p["name"] for p in target.get("parameters", []) if p["in"] == "path"}
            assert set(link["parameters"]) == wanted, (path, name)
            own = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            for expression in link["parameters"].values():
                if expression.startswith("$request.path."):
                    assert expression.removeprefix("$request.path.") in own, (path, name, expression)
                else:
                    assert expression.startswith("$response.body#/"), expression
                    answer = response["content"]["application/json"]["schema"]
                    assert _resolve(schema, answer, expression.split("#", 1)[1])["type"] == "string"
            found.add((path, link["operationId"].removeprefix(f"{family}_")))
        expected = {
            ("/brands", "brands_retrieve"),
            ("/brands", "brands_update"),
            ("/brands", "brands_destroy"),
            ("/webhooks", "webhooks_test"),
            ("/webhooks", "webhook_deliveries_list"),
            ("/oauth/redirect-origins", "oauth_redirect_origins_destroy"),
            ("/content/generate", "content_approve"),
            ("/content/generate", "content_destroy"),
        }
        if family == "v1":
            expected |= {("/brands", "brand_assets_create"), ("/content/generate", "content_schedule")}
        else:
            expected |= {
                ("/content", "content_update"),
                ("/content/multi-platform", "content_retrieve"),
                ("/tags", "tags_destroy"),
                ("/media/upload", "media_retrieve"),
                ("/brands/{id}/reference-images", "brands_refs_delete"),
                ("/batch/generate", "batch_retrieve"),
            }
        assert expected <= found, (family, expected - found)
        # an action on an object makes nothing new; nor does a write that answers another object
        assert not {p for p, _ in found} & {"/content/{id}/approve", "/brands/{id}/logo", "/posts/publish"}


def test_a_link_followed_reaches_the_object_the_create_made(schemas, owner):
    clients = {"v1": owner.client(), "api": owner.token_client()}
    for family, schema in schemas.items():
        client = clients[family]
        response = client.post(f"/{family}/brands", {"name": "Linked"}, format="json")
        assert response.status_code == 201, response.content
        links = schema["paths"]["/brands"]["post"]["responses"]["201"]["links"]
        link = links[f"{family}_brands_retrieve"]
        pointer = link["parameters"]["id"].split("#", 1)[1]
        value = response.json()
        for token in pointer.strip("/").split("/"):
            value = value[int(token)] if isinstance(value, list) else value[token]
        read = client.get(f"/{family}/brands/{value}")
        assert read.status_code == 200 and read.json() == response.json()


def test_options_answers_every_path_without_a_server_error(schemas, owner):
    """OPTIONS (which no schema declares) names the view and its media types, never a 500
    (the family bases are generic views: DRF described `actions` with a serializer many views
    do not have)."""
    clients = {"v1": owner.client(), "api": owner.token_client()}
    for family, schema in schemas.items():
        for path in schema["paths"]:
            url = f"/{family}" + re.sub(r"\{[^}]+\}", "00000000-0000-0000-0000-000000000000", path)
            response = clients[family].options(url)
            assert response.status_code in (200, 401, 403, 404, 405), (family, path, response.content[:300])
    response = clients["api"].options("/api/brands", {"sort": "createdAt", "q": ""})
    assert response.status_code == 200 and response.json()["name"] and "actions" not in response.json()


def test_time_zones_are_the_list_the_server_accepts(schemas, owner):
    """`Timezone` is an enum of exactly what the server accepts, with a constant name per zone
    that stays distinct once a generator drops the punctuation (Etc/GMT+1, Etc/GMT-1)."""
    import re

    from apps.core.timezones import timezones

    for schema in schemas.values():
        zone = schema["components"]["schemas"]["Timezone"]
        assert zone["enum"] == list(timezones()) and {"UTC", "Etc/GMT+1", "Etc/GMT-1"} <= set(zone["enum"])
        names = zone["x-enum-varnames"]
        assert len(names) == len(zone["enum"])
        assert len({re.sub(r"[^A-Z0-9]", "", n) for n in names}) == len(names)
    assert "localtime" not in timezones()
    client = owner.client()
    # a name of the right shape that the tz database lacks, and a file of the zoneinfo folder
    for bad in ("Mars/Olympus", "localtime"):
        response = client.get("/v1/analytics/content", {"timezone": bad})
        assert response.status_code == 400 and "timezone" in str(response.json()["error"]["details"]), bad
    assert client.get("/v1/analytics/content", {"timezone": "Etc/GMT-14"}).status_code == 200


def test_content_status_filters_say_which_lists_are_accepted(schemas, owner):
    """`status=` is a comma-separated list of the family's words: the pattern accepts what the
    server accepts and no more."""
    import re

    clients = {"v1": owner.client(), "api": owner.token_client()}
    cases = {
        "v1": {
            "draft": 200,
            "draft, published": 200,
            ",draft,,": 200,
            "": 200,
            " , ": 400,
            "draft,x": 400,
            "\tdraft": 400,
        },
        "api": {"draft": 200, "draft ,reviewing": 200, "draft,": 200, "": 200, ",": 400, "review": 400},
    }
    for family, values in cases.items():
        (param,) = [
            p for p in schemas[family]["paths"]["/content"]["get"]["parameters"] if p["name"] == "status"
        ]
        pattern = re.compile(param["schema"]["pattern"])
        # the description a FilterSet gives next to its schema reaches the schema too
        assert param["description"].startswith("One status or several, comma-separated: draft, "), family
        for value, status in values.items():
            response = clients[family].get(f"/{family}/content", {"status": value})
            assert response.status_code in ((200,) if status == 200 else (400, 422)), (family, value)
            assert bool(pattern.search(value)) == (status == 200), (family, value)


def test_carousel_media_is_not_offered(schemas):
    """Carousel media is not implemented: the schemas do not offer it (the service's 400 for it
    is pinned in tests/content)."""

    def enum(schema, prop):
        for part in [prop, *prop.get("allOf", [])]:
            if "$ref" in part:
                return schema["components"]["schemas"][part["$ref"].rsplit("/", 1)[-1]]["enum"]
        return prop.get("enum")

    v1 = schemas["v1"]
    assert enum(v1, v1["components"]["schemas"]["MediaInputRequest"]["properties"]["type"]) == [
        "image",
        "video",
    ]
    api = schemas["api"]
    for name in ("GenerateInputRequest", "CreateInputRequest", "MultiPlatformInputRequest"):
        prop = api["components"]["schemas"][name]["properties"]["media"]
        assert enum(api, prop) == ["image", "video"], name


def test_a_not_blank_pattern_is_what_drfs_trim_keeps(api):
    """A trimmed CharField that refuses blanks states it as a pattern: some character that
    `str.strip` keeps. ECMAScript's `\\S` kept U+001C-U+001F (Python strips them: schemathesis
    found a tag named "\\x1e" refused as blank) and refused U+FEFF (Python keeps it)."""
    from apps.core.schema import NOT_BLANK

    pattern = re.compile(NOT_BLANK)
    for n in range(0x10000):
        if 0xD800 <= n <= 0xDFFF:
            continue
        c = chr(n)
        assert bool(pattern.search(f" {c} ")) == bool(f" {c} ".strip()), hex(n)
    tag = api.post("/api/tags", {"name": "\x1e", "color": "#f2639A"}, format="json")
    assert tag.status_code == 400 and not pattern.search("\x1e")
    assert api.post("/api/tags", {"name": "\ufeff", "color": "#f2639A"}, format="json").status_code == 201
    schema = api.get("/api/schema/?format=json").json()
    assert schema["components"]["schemas"]["TagInputRequest"]["properties"]["name"]["pattern"] == NOT_BLANK
