"""Both OpenAPI schemas, fuzzed by schemathesis against a real server on the test database.

An organization per family, each with an owner API key and one object of each kind the runs
name (a brand, a sandbox profile, a content item, media, a tag, a campaign, a schedule), is
created first (what one family's run deletes or changes never reaches the other's); then a
real uvicorn server runs and the schemathesis CLI fuzzes every operation of `/v1/schema/` and
of `/api/schema/`. Every response must be a non-5xx, with a declared status code,
content type, body schema and headers. Then the stateful phase, in a run of its own per
family, chains calls along the schemas' links: a create, then what can be done with the
object it made (apps.core.schema_links.add_links); there the object just made must be found and one
deleted must not.

The rate limits (and the limit on failed authentications per address) are lifted for the
server so that the fuzzing is not throttled (429 is still declared everywhere). Generation
requests enqueue to a filesystem broker private to this test (no worker consumes it), so
nothing is left behind in Redis for other tests.

The run is seeded (SCHEMATHESIS_SEED) with deterministic generation. What a schema cannot
foresee is given the way a real client has it: ids of the tenant's objects (dictionaries),
an allowed webhook URL and redirect URI, and hooks (tests/schemathesis_hooks.py) for fresh
Idempotency-Keys, real images in uploads and the startDate/endDate order.

Every check runs, in the stateless and the stateful runs (positive_data_acceptance and
negative_data_rejection included): the schemas say what the server accepts, and schemathesis
is given a copy of each in which the ids of other objects are an `enum` of the tenant's (see
REFERENCES); the objects those ids name are never deleted by the run (the hooks drop such
DELETEs), so that every later case that names them still means what it says.

Local runs: SCHEMATHESIS_PATH_REGEX narrows the operations, SCHEMATHESIS_FAMILIES the
families (`v1,api`), SCHEMATHESIS_CHECKS replaces the checks, SCHEMATHESIS_PHASES, _MAX_TIME,
_STATEFUL_MAX_TIME, _STATEFUL_STEPS, _MAX_EXAMPLES, _SEED and _TIMEOUT_MARGIN tune the run (a
whole run: a large _MAX_TIME, and pytest's `--timeout`), and SCHEMATHESIS_OUTPUT_DIR keeps each
family's whole output.
"""

from __future__ import annotations

import copy
import datetime
import json
import os
import re
import subprocess
import urllib.request
from pathlib import Path

import pytest
from django.utils import timezone

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from apps.content.services import campaign_create, schedule_plan, tag_create
from apps.core import ids
from apps.media.models import Kind
from apps.media.services import media_create_from_bytes
from tests.conftest import png_bytes
from tests.content.factories import make_content
from tests.factories import ProfileFactory
from tests.live import asgi_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
ST = ROOT / ".venv" / "bin" / "st"
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")
#: every check schemathesis has, in the stateless and the stateful runs: the five conformance
#: checks, positive_data_acceptance and negative_data_rejection (the schemas say exactly what
#: the server accepts), the authentication, method and header checks, and in the stateful run
#: use_after_free and ensure_resource_availability (an object just made can be read, one
#: deleted cannot). SCHEMATHESIS_CHECKS and SCHEMATHESIS_STATEFUL_CHECKS narrow a local run
#: (for example to CONFORMANCE)
CONFORMANCE = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
]
CHECKS = os.environ.get("SCHEMATHESIS_CHECKS") or "all"
STATEFUL_CHECKS = os.environ.get("SCHEMATHESIS_STATEFUL_CHECKS") or "all"
#: a fixed seed and deterministic generation: the same cases in the same order every run
#: (how far the run gets within MAX_TIME still depends on the machine's speed)
SEED = os.environ.get("SCHEMATHESIS_SEED", "20261125")
MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "25"))
#: seconds per family for the examples, coverage and fuzzing phases, which schemathesis shares
#: between them (a capped run tests part of each; a whole run, no cap, takes minutes per family:
#: docs/decisions.md); with the stateful runs, both families stay near 2.5 minutes (the suite: 20)
MAX_TIME = int(os.environ.get("SCHEMATHESIS_MAX_TIME", "45"))
#: the phases; `stateful` runs on its own after the others, for STATEFUL_MAX_TIME seconds per
#: family (in the same run it shares fuzzing's time and got 3 to 15 s, too few to follow most links)
PHASES = os.environ.get("SCHEMATHESIS_PHASES", "examples,coverage,fuzzing,stateful").split(",")
STATEFUL_MAX_TIME = int(os.environ.get("SCHEMATHESIS_STATEFUL_MAX_TIME", "30"))
#: schemathesis starts a stateful scenario from a create only if every id field of its body names
#: something another operation makes, unless no create qualifies: B's content creates
#: (socialProfileId, campaignId, referenceImageId) start none beside the other creates, so B's
#: stateful time is shared between a run over everything and one over /content alone
STATEFUL_PARTS = {"api": {"": None, " content": "^/content"}}
#: requests per stateful scenario (a create, then what its links lead to)
STATEFUL_STEPS = int(os.environ.get("SCHEMATHESIS_STATEFUL_STEPS", "4"))
#: a hard stop for a run that hangs, past its time limit (the subprocess is killed; the test then fails)
TIMEOUT_MARGIN = int(os.environ.get("SCHEMATHESIS_TIMEOUT_MARGIN", "90"))


def _tenant(name: str) -> tuple[str, dict]:
    """An organization with an owner key and one object of each kind the runs bind."""
    org = organization_get_or_create(name=name)
    key = api_key_create(organization=org, role="owner", name="schemathesis").secret
    brand = Brand.objects.get(organization=org, is_default=True)
    profile = ProfileFactory(organization=org, brand=brand, sandbox=True)
    content = make_content(org, status="review", profile=profile)
    media = content.media_assets.first()
    tag = tag_create(organization=org, name="launch")
    campaign = campaign_create(organization=org, name="Spring")
    upload, reference = (
        media_create_from_bytes(
            organization=org,
            data=png_bytes((64, 48)),
            content_type="image/png",
            kind=kind,
            brand=brand,
            width=64,
            height=48,
        )
        for kind in (Kind.UPLOAD, Kind.REFERENCE)
    )
    schedule = schedule_plan(
        organization=org,
        profile=profile,
        scheduled_date=timezone.localdate() + datetime.timedelta(days=30),
        task="Autumn menu",
        generation_mode="prompt_based",
        platform=None,
        post_type="feed",
        media_type="image",
        dimensions=None,
    )
    objects = {
        "brand": brand.pk,
        "profile": profile.pk,
        "content": content.pk,
        "media": media.pk,
        "tag": tag.pk,
        "campaign": campaign.pk,
        "upload": upload.pk,
        "reference": reference.pk,
        "schedule": schedule.pk,
    }
    return key, objects


@pytest.fixture
def tenants():
    """One organization per family: what one family's run does to its objects (a batch that
    deletes content, a profile removed through a link) never reaches the other's run."""
    return {family: _tenant(f"Schemathesis {family}") for family in ("v1", "api")}


# Path parameters that name an object of the tenant come from these dictionaries part of
# the time (the rest is generated: a well-formed id that names nothing is a 404, which
# schemathesis expects). DELETE is left to generated ids: deleting the seeded objects early
# would turn every later operation on them into a 404.
BINDINGS = {
    "v1": [
        (r"^/brands/\{id\}$", "id", "brand"),
        (r"^/brands/\{brand_pk\}/", "brand_pk", "brand"),
        (r"^/content/\{id\}", "id", "content"),
        (r"^/profiles/\{id\}", "id", "profile"),
    ],
    "api": [
        (r"^/brands/\{id\}", "id", "brand"),
        (r"^/content/\{id\}", "id", "content"),
        (r"^/profiles/\{id\}", "id", "profile"),
        (r"^/media/\{id\}", "id", "media"),
        (r"^/tags/\{id\}", "id", "tag"),
    ],
}
# An id *inside* a query or a body names another object; one that names nothing is a 400
# ("brandId: Not found.", pinned by the families' own tests), which no schema can foresee
# (it cannot know which ids exist). The copy of the schema given to schemathesis says which
# values this tenant has (an `enum`, the same information a dictionary gives): schemathesis
# 4.32 draws dictionaries in its fuzzing phase only, while the coverage phase follows the
# schema, and from an enum it still generates the malformed and unknown forms (which must be
# refused). The published schema stays as it is (tests/core/test_openapi_schema.py).
REFERENCES = {
    "v1": {
        "query.cursor": "cursor",
        "body.redirectUri": "redirect_uri",
        "query.brandId": "brand",
        "query.profileId": "profile",
        "query.contentId": "content",
        "body.brandId": "brand",
        "body.settings.brandId": "brand",
        "body.profiles[*]": "profile",
        "body.assets.logo": "logo",
    },
    "api": {
        "body.redirectUri": "redirect_uri",
        "query.brandId": "brand",
        "query.profileId": "profile",
        "query.tagId": "tag",
        "query.campaignId": "campaign",
        "body.brandId": "brand",
        "body.contentId": "content",
        "body.mediaId": "upload",
        "body.referenceImageId": "reference",
        "body.scheduleIds[*]": "schedule",
        "body.profileId": "profile",
        "body.socialProfileId": "profile",
        "body.profileIds[*]": "profile",
        "body.tagIds[*]": "tag",
        "body.campaignId": "campaign",
    },
}
#: bindings of one path's bodies only
PATH_REFERENCES = {"^/webhooks": {"body.url": "webhook_url"}}


#: values a schema cannot foresee: the cursor of a first page (later ones are the server's own
#: `nextCursor`), a redirect URI on an origin this deployment allows, a webhook URL whose host
#: is allowed (the server is told to allow loopback addresses), a logo as an https URL (an
#: asset of the tenant is the other form)
REDIRECT_ORIGIN = "https://app.example.test"
VALUES = {
    "cursor": [""],
    "redirect_uri": [f"{REDIRECT_ORIGIN}/connected"],
    "webhook_url": ["https://127.0.0.1:9/hook"],
    "logo": ["https://cdn.example.test/logo.png", ""],
}


#: the id kind of each tenant object that is not a kind of its own
ID_KINDS = {"upload": "media", "reference": "media"}


def _values(family: str, objects: dict) -> dict[str, list[str]]:
    def render(kind, as_kind=None):
        as_kind = as_kind or ID_KINDS.get(kind, kind)
        return ids.render(objects[kind], as_kind) if family == "v1" else str(objects[kind])

    values = {kind: [render(kind)] for kind in objects}
    values.update({name: list(v) for name, v in VALUES.items()})
    values["logo"].append(render("media", "asset"))  # Family A names an uploaded asset `ast_…`
    return values


def _keep(family: str, objects: dict) -> str:
    """The bound objects' ids as the family writes them: the hooks never DELETE them."""
    return ",".join(v for values in _values(family, objects).values() for v in values if v)


class _Binder:
    """Rewrites a schema copy in place: bound query parameters and body properties become an
    `enum` of the tenant's values (nullable where the schema allows null)."""

    def __init__(self, schema: dict, values: dict[str, list[str]]):
        self.components = schema.get("components", {}).get("schemas", {})
        self.values = values

    def deref(self, node: dict) -> dict:
        while isinstance(node, dict) and "$ref" in node:
            node = self.components[node["$ref"].rsplit("/", 1)[-1]]
        return node

    def enum(self, old: dict, allowed: list[str]) -> dict:
        new: dict = {"type": "string", "enum": list(allowed)}
        if old.get("nullable") or self.deref(old).get("nullable"):
            # OpenAPI 3.0.3: a nullable enum lists null among its values
            new.update(nullable=True, enum=[*allowed, None])
        return new

    def body(self, node: dict, steps: list[str], allowed: list[str]) -> None:
        node = self.deref(node)
        for branch in node.get("allOf", []) + node.get("anyOf", []) + node.get("oneOf", []):
            self.body(branch, steps, allowed)
        name, props = steps[0].removesuffix("[*]"), node.get("properties", {})
        if name not in props:
            return
        if len(steps) > 1:
            self.body(props[name], steps[1:], allowed)
        elif steps[0].endswith("[*]"):
            array = self.deref(props[name])
            props[name] = {**array, "items": self.enum(array.get("items", {}), allowed)}
        else:
            props[name] = self.enum(props[name], allowed)

    def operation(self, op: dict, refs: dict[str, str]) -> None:
        for key, kind in refs.items():
            where, _, rest = key.partition(".")
            allowed = self.values[kind]
            if where == "query":
                for param in op.get("parameters", []):
                    if param.get("in") == "query" and param["name"] == rest:
                        # an empty value is the parameter left out (which a required one cannot be)
                        empty = [] if "" in allowed or param.get("required") else [""]
                        param["schema"] = self.enum({}, [*allowed, *empty])
                continue
            for media in op.get("requestBody", {}).get("content", {}).values():
                if "schema" in media:
                    self.body(media["schema"], rest.split("."), allowed)


#: the coverage phase sends every value of an enum: the ~600 IANA names of `Timezone`, once
#: per operation that takes a time zone, would be most of the run; these stand for them
#: (offsets of both signs, a name with a hyphen, one of a three-part name); the server's
#: refusal of other names is pinned in tests/profiles and tests/analytics
TIMEZONES = [
    "UTC",
    "Europe/Paris",
    "Etc/GMT+1",
    "Etc/GMT-14",
    "America/Port-au-Prince",
    "America/Argentina/Salta",
]


def _bound(schema: dict, family: str, values: dict[str, list[str]]) -> dict:
    """A copy of `schema` with the tenant's values bound (REFERENCES) and a sample of the time zones."""
    schema = copy.deepcopy(schema)
    zone = schema["components"]["schemas"]["Timezone"]
    assert set(TIMEZONES) <= set(zone["enum"])
    zone["enum"] = list(TIMEZONES)
    zone.pop("x-enum-varnames", None)
    binder = _Binder(schema, values)
    for path, item in schema["paths"].items():
        refs = dict(REFERENCES[family])
        for regex, extra in PATH_REFERENCES.items():
            if re.search(regex, path):
                refs.update(extra)
        for op in item.values():
            if isinstance(op, dict):
                binder.operation(op, refs)
    return schema


def _config(family: str, objects: dict, path: Path) -> Path:
    def render(kind):
        return ids.render(objects[kind], ID_KINDS.get(kind, kind)) if family == "v1" else str(objects[kind])

    lines = []
    if family == "api":
        # Family B answers a rule or a state that refuses a well-formed request with 422 (a
        # transition, an Idempotency-Key reused, a brand without themes): Family A's 409
        # for the same cases is already expected by positive_data_acceptance.
        lines += [
            "[checks.positive_data_acceptance]",
            'expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]',
            "",
        ]
    # the stateful phase follows the schemas' own links (a create to what can be done with the
    # object it made; apps.core.schema_links.add_links) and nothing inferred, a few steps per scenario
    lines += [
        "[phases.stateful]",
        f"max-steps = {STATEFUL_STEPS}",
        "inference.algorithms = []",
        "",
    ]
    for kind in objects:
        lines += [f"[dictionaries.{kind}]", f'values = ["{render(kind)}"]', ""]
    for regex, name, kind in BINDINGS[family]:
        lines += [
            "[[operations]]",
            f"include-path-regex = '{regex}'",
            'exclude-method = "DELETE"',
            f'parameters = {{ "path.{name}" = {{ dictionary = "{kind}", probability = 0.9 }} }}',
            "",
        ]
    # the import takes a CSV or XLSX file: the fuzzer's files are pictures (a schema says `format:
    # binary`, not "a CSV with these columns"), which the import refuses with its own 400;
    # tests/publishing/test_import.py imports real files through both families. The draft
    # pre-flight names media by id: generated ids name no upload, a 400 (UnknownReference); a
    # content's pre-flight without profiles, of a content that names none, is a 400 on
    # `profiles` (which profiles?, pinned in tests/publishing/test_preflight.py). A brand's linkTracking templates have rules OpenAPI 3.0 cannot state (parameter names,
    # placeholders, the platforms it knows): the service's 400 names the field it refuses. An
    # upload of kind `font` takes a font file (read with fontTools): the fuzzer's file is always a
    # PNG, refused with a 400 naming `file`; tests/media/test_brand_fonts.py uploads real fonts
    # through both families. A content's regenerate with `scope: image` (a new design) redraws a
    # picture the local designer drew: the run's content has none, a rule (400 in A) naming
    # `media`; a `design` without `scope: image` is a 400 naming `design` (a rule between two
    # fields); both pinned in tests/generation/test_designs.py
    lines += [
        "[[operations]]",
        "include-path-regex = '^/(content/(import|([^/]+/)?preflight|[^/]+/regenerate)|brands(/[^/]+)?|brands/[^/]+/assets|media/upload)$'",
        'checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "422", "429"]',
        "",
    ]
    if family == "v1":
        # nothing consumes the broker, so `wait=` always runs to its end: a short fixed wait (0.1 s) keeps
        # a generated 50 s wait from outliving the request timeout (its bounds are tested elsewhere)
        lines += [
            "[[operations]]",
            "include-path-regex = '^/content/generate$'",
            'parameters = { "query.wait" = 0.1 }',
            "",
        ]
    path.write_text("\n".join(lines))
    return path


def _schema(base: str, family: str, objects: dict, path: Path) -> Path:
    """The live schema, with the tenant's values bound (see REFERENCES), in a file."""
    request = urllib.request.Request(
        f"{base}/{family}/schema/", headers={"Accept": "application/vnd.oai.openapi+json"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        schema = json.load(answer)
    path.write_text(json.dumps(_bound(schema, family, _values(family, objects))))
    return path


def _schemathesis(
    base: str,
    family: str,
    tenant: tuple[str, dict],
    config: Path,
    report_dir: Path,
    *,
    phases: list[str],
    max_time: int,
    path_regex: str | None = None,
) -> subprocess.CompletedProcess:
    key, objects = tenant
    name = "".join(f"-{word}" for word in [*phases, path_regex or ""] if phases == ["stateful"] and word)
    name = re.sub(r"[^\w-]", "", name)  # schemathesis-api-stateful-content.txt
    cmd = [
        str(ST),
        "--config-file",
        str(config),
        "run",
        str(config.with_name(f"schema-{family}.json")),  # written by _schema
        "--url",
        f"{base}/{family}",
        "-H",
        f"Authorization: Bearer {key}",
        "--checks",
        STATEFUL_CHECKS if phases == ["stateful"] else CHECKS,
        "--phases",
        ",".join(phases),
        "--max-examples",
        str(MAX_EXAMPLES),
        "--max-time",
        str(max_time),
        "--seed",
        SEED,
        "--generation-deterministic",
        # PostgreSQL text cannot hold NUL: every input refuses it with a 400 (decisions.md)
        "--generation-allow-x00",
        "false",
        "--workers",
        "1",  # 2 threads hit a CPython 3.11 ast race in hypothesis (SystemError)
        "--request-timeout",
        "30",
        "--no-color",
        "--report",
        "junit",
        "--report-dir",
        str(report_dir),
    ]
    path_regex = os.environ.get("SCHEMATHESIS_PATH_REGEX") or path_regex  # a local run narrows it
    if path_regex:
        cmd += ["--include-path-regex", path_regex]
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": str(HOOKS),
        "SCHEMATHESIS_KEEP_IDS": _keep(family, objects),
        # the profile a positive `crossPost` without profile ids is given (tests/schemathesis_hooks.py)
        "SCHEMATHESIS_PROFILE_ID": ids.render(objects["profile"], "profile")
        if family == "v1"
        else str(objects["profile"]),
    }
    # the output goes to a file as it comes, so that a run that times out still shows where it was
    out_dir = Path(os.environ.get("SCHEMATHESIS_OUTPUT_DIR") or report_dir.parent)
    out = out_dir / f"schemathesis-{family}{name}.txt"
    with out.open("w") as sink:
        try:
            code = subprocess.run(
                cmd,
                cwd=ROOT,
                stdout=sink,
                stderr=subprocess.STDOUT,
                timeout=max_time + TIMEOUT_MARGIN,
                env=env,
                check=False,  # the run's code and output are the result
            ).returncode
        except subprocess.TimeoutExpired:
            code = -1
    return subprocess.CompletedProcess(
        cmd, code, out.read_text() + ("\n(timed out)" if code == -1 else ""), ""
    )


def test_both_schemas_hold_against_a_live_server(tenants, tmp_path):
    var = tmp_path / "var"
    var.mkdir()
    server_env = {
        "RATE_LIMIT_DEFAULT": 1_000_000,
        "RATE_LIMIT_GENERATION": 1_000_000,
        "RATE_LIMIT_BATCH": 1_000_000,
        # schemathesis also calls without credentials: past 30 such 401s the address would be
        # answered 429 for everything, leaving most operations untested
        "AUTH_FAILURE_LIMIT": 0,
        "OAUTH_ALLOWED_REDIRECT_ORIGINS": REDIRECT_ORIGIN,
        "WEBHOOK_ALLOWED_CIDRS": "127.0.0.0/8",
        # tasks go to a broker folder of this test only: no worker, nothing left in Redis
        "POSTFORGE_VAR_DIR": var,
        "CELERY_BROKER_URL": "filesystem://",
    }
    results = {}
    families = os.environ.get("SCHEMATHESIS_FAMILIES", "v1,api").split(",")
    with asgi_server(**server_env) as base:
        configs = {}
        for family in families:
            objects = tenants[family][1]
            configs[family] = _config(family, objects, tmp_path / f"schemathesis-{family}.toml")
            _schema(base, family, objects, tmp_path / f"schema-{family}.json")
        # every family's stateless run first: a stateful run's creates and deletes change the
        # tenant's objects, which the stateless runs take as given (the ids bound in REFERENCES)
        if stateless := [phase for phase in PHASES if phase != "stateful"]:
            for family in families:
                results[family] = _schemathesis(
                    base,
                    family,
                    tenants[family],
                    configs[family],
                    tmp_path / f"report-{family}",
                    phases=stateless,
                    max_time=MAX_TIME,
                )
        if "stateful" in PHASES:
            for family in families:
                parts = STATEFUL_PARTS.get(family, {"": None})
                for part, regex in parts.items():
                    results[f"{family} stateful{part}"] = _schemathesis(
                        base,
                        family,
                        tenants[family],
                        configs[family],
                        tmp_path / f"report-{family}",
                        phases=["stateful"],
                        max_time=STATEFUL_MAX_TIME // len(parts),
                        path_regex=regex,
                    )
    failed = {family: r for family, r in results.items() if r.returncode != 0}
    for family, r in results.items():
        start = max(r.stdout.rfind("WARNINGS"), r.stdout.rfind("SUMMARY"))
        summary = (
            r.stdout[r.stdout.rfind("WARNINGS") if "WARNINGS" in r.stdout else start :]
            if start >= 0
            else r.stdout[-3000:]
        )
        print(f"\n===== schemathesis {family} (exit {r.returncode}) =====\n{summary}")
    assert not failed, "\n\n".join(
        f"===== {family} exit {r.returncode} =====\n{r.stdout[-20000:]}\n{r.stderr[-3000:]}"
        for family, r in failed.items()
    )
