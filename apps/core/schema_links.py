"""OpenAPI links from each create to what can be done with the object it made, derived from the
routes (a step of `apps.core.schema.postprocess`; schemathesis's stateful phase follows them)."""

from __future__ import annotations

from typing import Any, TypeAlias

#: an OpenAPI object as drf-spectacular builds it (as in apps.core.schema)
Schema: TypeAlias = dict[str, Any]

_OPERATIONS = ("get", "put", "patch", "delete", "post")


def _segments(path: str) -> list[str]:
    """A path's segments with every parameter as `{}` (so `{id}` and `{brand_pk}` match)."""
    return ["{}" if s.startswith("{") else s for s in path.strip("/").split("/")]


def _answer_resource(op: Schema, components: Schema) -> tuple[str, str] | None:
    """The component a 2xx JSON answer carries, and the JSON pointer to it (`` for the body
    itself, `/data` in B's envelope, `/data/0` for the first of a list)."""
    for status, response in op.get("responses", {}).items():
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        pointer = ""
        while status.startswith("2") and isinstance(schema, dict):
            ref = schema.get("$ref", "")
            if ref.startswith("#/components/schemas/"):
                return ref.rsplit("/", 1)[1], pointer
            if schema.get("type") == "array":
                schema, pointer = schema.get("items"), pointer + "/0"
            elif "data" in schema.get("properties", {}):
                schema, pointer = schema["properties"]["data"], pointer + "/data"
            else:
                break
    return None


def _item_paths(paths: Schema, components: Schema) -> dict[str, list[str]]:
    """Each resource component's item paths (`<collection>/{param}`): the ones whose GET answers
    it, or, without a GET, whose collection lists it."""
    items: dict[str, list[str]] = {}
    for path, item in paths.items():
        if not path.rstrip("/").endswith("}"):
            continue
        collection = path.rsplit("/", 1)[0]
        source = item.get("get") or paths.get(collection, {}).get("get")
        found = _answer_resource(source, components) if source else None
        if found:
            items.setdefault(found[0], []).append(path)
    return items


def _id_field(component: Schema, collection: str) -> str | None:
    """The property holding the object's id: `id`, or `<collection>Id` (`batchId`)."""
    properties = component.get("properties", {})
    for name in ("id", f"{collection.rstrip('s')}Id", f"{collection}Id"):
        if name in properties:
            return name
    return None


def add_links(result: Schema) -> None:
    """OpenAPI links from each create to what can be done with the object it made, derived from
    the routes: a POST on a collection (`/brands`) or on one of its actions (`/content/generate`)
    whose 2xx answer is the collection's resource links to every operation under its item path
    (`/brands/{id}`, `/brands/{brand_pk}/assets`), the item's id taken from the answer
    (`$response.body#/id`, `#/data/id` in B) and any parent's id from the request's own path.
    An operation that answers an object it did not make (an action, a settings write) gets none."""
    paths = result.get("paths", {})
    components = result["components"]["schemas"]
    items = _item_paths(paths, components)
    for path, item in paths.items():
        op = item.get("post")
        found = _answer_resource(op, components) if op else None
        if not found:
            continue
        links = _create_links(path, found, items, paths, components)
        if not links:
            continue
        for status, response in op["responses"].items():
            if (
                status.startswith("2")
                and _answer_resource({"responses": {status: response}}, components) == found
            ):
                response["links"] = {
                    name: {**link, "parameters": dict(link["parameters"])} for name, link in links.items()
                }


def _create_links(
    path: str, found: tuple[str, str], items: dict[str, list[str]], paths: Schema, components: Schema
) -> dict[str, Schema]:
    """The links of the POST on ``path`` that answers ``found`` (its resource and where the
    answer holds it), by operation id."""
    resource, pointer = found
    producer = _segments(path)
    own = path.strip("/").split("/")
    links: dict[str, Schema] = {}
    for item_path in items.get(resource, ()):
        collection = _segments(item_path)[:-1]
        depth = len(collection)
        on_collection = producer == collection or (
            len(producer) == depth + 1 and producer[:depth] == collection and producer[-1] != "{}"
        )
        if not on_collection:
            continue  # not a create on this collection (nor one of its actions)
        id_field = _id_field(components[resource], collection[-1])
        if id_field is None:
            continue
        for target, target_item in paths.items():
            if _segments(target)[: depth + 1] != [*collection, "{}"]:
                continue
            segments = target.strip("/").split("/")
            parameters = _link_parameters(segments, depth, own, f"$response.body#{pointer}/{id_field}")
            if parameters:
                links.update(_links_to(target, target_item, segments, depth, parameters, components))
    return links


def _link_parameters(segments: list[str], depth: int, own: list[str], made_id: str) -> dict[str, str]:
    """The path parameters of a target: the made object's id at ``depth``, a parent's id from the
    request's own path; none when the target needs another object's id (nothing here names it)."""
    parameters: dict[str, str] = {}
    for i, segment in enumerate(segments):
        if not segment.startswith("{"):
            continue
        if i == depth:
            parameters[segment[1:-1]] = made_id
        elif i < depth and own[i].startswith("{"):  # a parent's id, in the request's path
            parameters[segment[1:-1]] = f"$request.path.{own[i][1:-1]}"
        else:
            return {}
    return parameters


def _links_to(
    target: str,
    target_item: Schema,
    segments: list[str],
    depth: int,
    parameters: dict[str, str],
    components: Schema,
) -> dict[str, Schema]:
    """The links to each operation on ``target``. A sub-resource its own POST makes (a brand's
    logo) exists only after that POST: a new object has none yet, so only the POST is linked
    (and a list, which is there, empty)."""
    made_by_post = len(segments) > depth + 1 and "201" in target_item.get("post", {}).get("responses", {})
    listed = "/0" in (_answer_resource(target_item.get("get", {}), components) or ("", ""))[1]
    links: dict[str, Schema] = {}
    for method in _OPERATIONS:
        target_op = target_item.get(method)
        if target_op is None or "operationId" not in target_op:
            continue
        if made_by_post and method != "post" and not (method == "get" and listed):
            continue
        links[target_op["operationId"]] = {
            "operationId": target_op["operationId"],
            "parameters": dict(parameters),
            "description": f"{method.upper()} {target} on the object this call made",
        }
    return links
