"""Clients generated from the live schemas run a first session (issue 10).

openapi-python-client generates a package from `/v1/schema/` and one from `/api/schema/` of
a real uvicorn server; the README's first session then runs through those packages alone (no
raw HTTP), with a real Celery worker doing the generation on Redis.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from pathlib import Path

import pytest

from apps.accounts.services import api_key_create, organization_get_or_create
from apps.brands.models import Brand
from tests.factories import ProfileFactory
from tests.live import asgi_server, celery_worker
from tests.publishing.test_oauth import REDIRECT, profile_from, sandbox_consent

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / ".venv" / "bin" / "openapi-python-client"


@pytest.fixture
def broker():
    """Send tasks to the Redis broker: the worker process runs the generation."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield app
    app.conf.task_always_eager = previous


def _generate(base: str, family: str, out: Path):
    """Generate the family's client from the live schema and import it."""
    package = f"pf_client_{family}"
    env = {"PATH": f"{ROOT / '.venv' / 'bin'}:/usr/bin:/bin"}
    done = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--url",
            f"{base}/{family}/schema/",
            "--meta",
            "none",
            "--output-path",
            str(out / package),
            "--overwrite",
        ],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,  # the test reads the failure
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout, done.stdout  # every schema construct was understood
    if str(out) not in sys.path:
        sys.path.insert(0, str(out))
    return importlib.import_module(package)


def _mod(package, dotted: str):
    return importlib.import_module(f"{package.__name__}.{dotted}")


def test_generated_clients_run_a_first_session_in_each_family(broker, tmp_path):
    org = organization_get_or_create(name="Generated Client Org")
    key = api_key_create(organization=org, role="owner", name="sdk").secret
    default_brand = Brand.objects.get(organization=org, is_default=True)
    ProfileFactory(organization=org, brand=default_brand, sandbox=True, platform="instagram")

    with asgi_server() as base, celery_worker():
        # --- Family A -------------------------------------------------------------------
        a = _generate(base, "v1", tmp_path)
        models = _mod(a, "models")
        client = a.AuthenticatedClient(base_url=f"{base}/v1", token=key, raise_on_unexpected_status=True)

        brand = _mod(a, "api.brands.v1_brands_create").sync(
            client=client,
            body=models.BrandInputRequest.from_dict(
                {
                    "name": "Sunrise Coffee",
                    "description": "Small-batch roasters",
                    "guidelines": {
                        "voice": "warm, witty",
                        "tone": ["friendly"],
                        "colors": {"primary": "#AA3300"},
                        "hashtags": ["coffee"],
                    },
                }
            ),
        )
        assert isinstance(brand, models.BrandOutput), brand
        assert brand.name == "Sunrise Coffee" and brand.guidelines.voice == "warm, witty"

        profiles = _mod(a, "api.profiles.v1_profiles_list").sync(client=client)
        assert [p.id for p in profiles.data] and profiles.data[0].platform == "instagram"

        generate = _mod(a, "api.content.v1_content_generate")
        content = generate.sync(
            client=client,
            wait=30,
            body=models.GenerateInputRequest.from_dict(
                {
                    "prompt": "Our new Ethiopian single origin, bright and floral",
                    "platforms": ["instagram", "x"],
                    "settings": {"tone": "friendly", "includeHashtags": True, "hashtagCount": 3},
                }
            ),
        )
        assert isinstance(content, models.ContentOutput), content
        assert content.status == "generated", content.to_dict()

        read = _mod(a, "api.content.v1_content_retrieve").sync(content.id, client=client)
        assert read.id == content.id and set(read.content.to_dict()) == {"instagram", "x"}

        updated = _mod(a, "api.content.v1_content_update").sync(
            content.id,
            client=client,
            body=models.UpdateInputRequest.from_dict(
                {"content": {"instagram": {"caption": "Bright, floral, ours."}}}
            ),
        )
        assert updated.content.to_dict()["instagram"]["caption"] == "Bright, floral, ours."

        approved = _mod(a, "api.content.v1_content_approve").sync(content.id, client=client)
        assert approved.status == "approved"

        listed = _mod(a, "api.content.v1_content_list").sync(
            client=client,
            status="approved",
            platform=models.V1ContentListPlatform("instagram"),
            fields="id,status",
            sort_by=models.V1ContentListSortBy("createdAt"),
        )  # the schema's enums are typed in the client
        assert [(c.id, c.status) for c in listed.data] == [(content.id, "approved")]
        assert listed.data[0].to_dict() == {"id": content.id, "status": "approved"}  # a partial object parses

        deleted = _mod(a, "api.content.v1_content_destroy").sync_detailed(content.id, client=client)
        assert deleted.status_code == 204
        missing = _mod(a, "api.content.v1_content_retrieve").sync_detailed(
            content.id, client=a.AuthenticatedClient(base_url=f"{base}/v1", token=key)
        )
        assert missing.status_code == 404 and missing.parsed.error.code == "NOT_FOUND"

        # --- Family B -------------------------------------------------------------------
        b = _generate(base, "api", tmp_path)
        bm = _mod(b, "models")
        bclient = b.AuthenticatedClient(base_url=f"{base}/api", token=key, raise_on_unexpected_status=True)
        created = _mod(b, "api.brands.api_brands_create").sync(
            client=bclient,
            body=bm.BrandInputRequest.from_dict(
                {
                    "name": "Harbour Bakery",
                    "settings": {"require_approval": False},
                }
            ),
        )
        bbrand = created.data
        assert bbrand.name == "Harbour Bakery"
        put = _mod(b, "api.brands.api_brands_settings_put").sync(
            bbrand.id,
            client=bclient,
            body=bm.GenerationSettingsInputRequest.from_dict(
                {
                    "brand_voice": "cosy",
                    "hashtags": ["bread"],
                    "guidelines": {"do": ["say good morning"]},
                }
            ),
        )
        assert isinstance(put, bm.ApiBrandsSettingsPutResponse200), put.to_dict()
        assert put.data.to_dict()["brand_voice"] == "cosy"

        authorize = _mod(b, "api.oauth.api_oauth_authorize").sync(
            "instagram",
            client=bclient,
            body=bm.AuthorizeInputRequest.from_dict({"redirectUri": REDIRECT, "brandId": str(bbrand.id)}),
        )
        landed = sandbox_consent(authorize.data.auth_url, username="harbour_bakery")  # the browser step
        connected = profile_from(landed)
        bprofile = _mod(b, "api.profiles.api_profiles_retrieve").sync(str(connected.pk), client=bclient).data
        assert bprofile.username == "harbour_bakery"

        created = _mod(b, "api.content.api_content_create").sync(
            client=bclient,
            body=bm.CreateInputRequest.from_dict(
                {
                    "socialProfileId": str(bprofile.id),
                    "prompt": "Sourdough fresh at 7",
                }
            ),
        )
        retrieve = _mod(b, "api.content.api_content_retrieve")
        deadline = time.monotonic() + 60
        item = created.data
        while item.status != "reviewing" and time.monotonic() < deadline:  # bounded poll, as a client does
            time.sleep(0.2)
            item = retrieve.sync(str(created.data.id), client=bclient).data
        assert item.status == "reviewing", item.to_dict()

        listed_b = _mod(b, "api.content.api_content_list").sync(
            client=bclient, sort=bm.ApiContentListSort("createdAt:desc")
        )
        assert str(item.id) in [str(c.id) for c in listed_b.data]
        assert listed_b.pagination.total >= 1
