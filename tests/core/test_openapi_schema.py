"""Both OpenAPI schemas are valid OpenAPI 3 and say what generated clients need (issue 10)."""

from __future__ import annotations

import pytest
from openapi_spec_validator import validate

SCHEMAS = {"v1": "/v1/schema/", "api": "/api/schema/"}


@pytest.fixture
def schemas(client):
    return {f: client.get(url, HTTP_ACCEPT="application/vnd.oai.openapi+json").json() for f, url in SCHEMAS.items()}


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
                body = op.get("requestBody", {}).get("content", {})
                if body:
                    assert "415" in op["responses"], (path, method)
                    # JSON only, except uploads, which are multipart with a `file`
                    assert list(body) in (["application/json"], ["multipart/form-data"]), (path, method, list(body))
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
    (wait,) = [p for p in schemas["v1"]["paths"]["/content/generate"]["post"]["parameters"] if p["name"] == "wait"]
    assert wait["schema"] == {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 60}
    for bad in ("0", "61"):
        response = owner.client().post(f"/v1/content/generate?wait={bad}", {"prompt": "x", "platforms": ["x"]}, format="json")
        assert response.status_code == 400 and "wait" in response.json()["error"]["details"], response.content


def test_request_bodies_refuse_unknown_fields_in_the_schema_and_on_the_server(schemas, owner):
    assert schemas["v1"]["components"]["schemas"]["BrandInputRequest"]["additionalProperties"] is False
    response = owner.client().post("/v1/brands", {"name": "Acme", "colour": "red"}, format="json")
    assert response.status_code == 400 and "colour" in str(response.json()["error"]["details"])


def test_a_method_a_path_does_not_allow_is_a_405_with_its_own_code(owner):
    response = owner.client().patch("/v1/profiles", {}, format="json")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
