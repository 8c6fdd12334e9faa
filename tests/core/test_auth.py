from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts import auth
from apps.accounts.models import ApiKey, Organization
from apps.accounts.services import api_key_create

pytestmark = pytest.mark.django_db


def test_a_request_without_credentials_is_a_401_in_each_family(db):
    client = APIClient()
    a = client.get("/v1/brands")
    assert a.status_code == 401
    assert a.json() == {
        "error": {"code": "AUTHENTICATION_ERROR", "message": a.json()["error"]["message"], "details": {}},
        "requestId": a["X-Request-ID"],
    }
    b = client.get("/api/brands")
    assert b.status_code == 401
    assert b.json()["details"] == {"code": "AUTHENTICATION_ERROR"}
    assert isinstance(b.json()["error"], str)


@pytest.mark.parametrize("header", ["Bearer pf_live_wrong", "Bearer ", "Basic abc", "Bearer not.a.jwt"])
def test_an_invalid_credential_is_a_401(db, header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    assert client.get("/v1/brands").status_code == 401
    assert client.get("/api/brands").status_code == 401


def test_a_revoked_key_stops_working_and_use_is_recorded(owner):
    client = owner.client()
    assert client.get("/v1/brands").status_code == 200
    key = ApiKey.objects.get(organization=owner.org, role="owner")
    assert key.last_used_at is not None
    key.revoke()
    assert client.get("/v1/brands").status_code == 401


def test_keys_are_stored_hashed_only(owner):
    key = ApiKey.objects.get(organization=owner.org, role="owner")
    assert owner.key.startswith("pf_live_") and len(owner.key) == len("pf_live_") + 40
    assert key.hashed == ApiKey.hash_secret(owner.key)
    assert owner.key not in json.dumps([key.hashed, key.lookup, key.name])


def test_a_viewer_may_read_but_not_write(viewer):
    client = viewer.client()
    assert client.get("/v1/brands").status_code == 200
    response = client.post("/v1/brands", {"name": "x"}, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "AUTHORIZATION_ERROR"
    assert response.json()["error"]["details"] == {"requiredRole": "editor", "role": "viewer"}


def test_a_key_without_the_scope_is_refused(owner):
    issued = api_key_create(organization=owner.org, role="admin", scopes=["content:read"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.secret}")
    response = client.get("/v1/brands")
    assert response.status_code == 403
    assert response.json()["error"]["details"] == {"requiredScope": "brands"}


def test_a_development_token_authenticates_family_b_and_syncs_the_user(owner):
    response = owner.token_client(subject="alice").get("/api/brands")
    assert response.status_code == 200
    assert response.json()["data"][0]["name"] == "Acme"
    from apps.accounts.models import Membership

    assert Membership.objects.get(organization=owner.org, user__username="idp:alice").role == "owner"


def test_family_a_does_not_take_identity_provider_tokens(owner):
    client = owner.token_client()
    assert client.get("/v1/brands").status_code == 401


def test_an_expired_token_is_refused(owner):
    token = auth.dev_token_issue(organization=owner.org, role="admin", subject="bob", ttl=-10)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    response = client.get("/api/brands")
    assert response.status_code == 401
    assert "expired" in response.json()["error"].lower()


class _JWKS:
    """A local identity provider's JWKS endpoint, with key rotation."""

    def __init__(self):
        self.keys: dict[str, object] = {}
        self.fetches = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                outer.fetches += 1
                jwks = {"keys": [outer._jwk(kid, key) for kid, key in outer.keys.items()]}
                body = json.dumps(jwks).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/.well-known/jwks.json"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def _jwk(kid, key):
        algo = (
            jwt.algorithms.RSAAlgorithm if isinstance(key, rsa.RSAPrivateKey) else jwt.algorithms.ECAlgorithm
        )
        data = json.loads(algo.to_jwk(key.public_key()))
        data.update(
            {"kid": kid, "use": "sig", "alg": "RS256" if algo is jwt.algorithms.RSAAlgorithm else "ES256"}
        )
        return data

    def token(self, kid, *, org="org_ext_1", role="org:admin", sub="user_9", aud="postforge", exp=300):
        key = self.keys[kid]
        alg = "RS256" if isinstance(key, rsa.RSAPrivateKey) else "ES256"
        claims = {
            "iss": "https://idp.test",
            "aud": aud,
            "sub": sub,
            "exp": int(time.time()) + exp,
            "iat": int(time.time()),
            "org_id": org,
            "org_role": role,
            "org_name": "Initech",
        }
        return jwt.encode(claims, key, algorithm=alg, headers={"kid": kid})


@pytest.fixture
def idp(settings):
    provider = _JWKS()
    provider.keys["rsa-1"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    provider.keys["ec-1"] = ec.generate_private_key(ec.SECP256R1())
    settings.OIDC_ISSUER = "https://idp.test"
    settings.OIDC_JWKS_URL = provider.url
    settings.OIDC_JWKS_REFRESH_COOLDOWN = 0.0
    auth._jwks_client.cache_clear()
    yield provider
    provider.server.shutdown()
    auth._jwks_client.cache_clear()


def _get(token, path="/api/brands"):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client.get(path)


def test_an_oidc_token_signed_rs256_or_es256_maps_to_its_organization_and_role(idp):
    response = _get(idp.token("rsa-1"))
    assert response.status_code == 200, response.json()
    org = Organization.objects.get(external_id="org_ext_1")
    assert org.name == "Initech"
    assert response.json()["data"][0]["name"] == "Initech"  # its default brand
    assert _get(idp.token("ec-1", role="org:viewer")).status_code == 200
    viewer_write = APIClient()
    viewer_write.credentials(HTTP_AUTHORIZATION=f"Bearer {idp.token('ec-1', role='org:viewer')}")
    assert viewer_write.post("/api/brands", {"name": "n"}, format="json").status_code == 403


def test_an_oidc_token_for_another_audience_or_forged_is_refused(idp):
    assert _get(idp.token("rsa-1", aud="someone-else")).status_code == 401
    forged = jwt.encode(
        {
            "iss": "https://idp.test",
            "aud": "postforge",
            "sub": "x",
            "exp": int(time.time()) + 60,
            "org_id": "o",
        },
        rsa.generate_private_key(public_exponent=65537, key_size=2048),
        algorithm="RS256",
        headers={"kid": "rsa-1"},
    )
    assert _get(forged).status_code == 401


def test_the_key_set_is_cached_and_a_rotated_key_is_fetched(idp):
    assert _get(idp.token("rsa-1")).status_code == 200
    assert _get(idp.token("rsa-1")).status_code == 200
    assert idp.fetches == 1
    idp.keys["rsa-2"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    rotated = _get(idp.token("rsa-2"))
    assert rotated.status_code == 200, rotated.json()
    assert idp.fetches == 2


def test_last_used_is_written_at_most_once_a_minute(owner):
    client = owner.client()
    client.get("/v1/brands")
    key = ApiKey.objects.get(organization=owner.org, role="owner")
    first = key.last_used_at
    client.get("/v1/brands")
    key.refresh_from_db()
    assert key.last_used_at == first
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now() - timezone.timedelta(minutes=5))
    client.get("/v1/brands")
    key.refresh_from_db()
    assert key.last_used_at > first


def test_a_token_issued_for_longer_than_the_maximum_age_is_refused(idp, settings):
    settings.OIDC_MAX_TOKEN_AGE = 24 * 3600
    too_long = _get(idp.token("rsa-1", exp=25 * 3600))
    assert too_long.status_code == 401
    assert "lifetime" in too_long.json()["error"].lower()
    assert _get(idp.token("rsa-1", exp=23 * 3600)).status_code == 200


def test_a_development_token_longer_than_the_maximum_age_is_refused(owner, settings):
    settings.OIDC_MAX_TOKEN_AGE = 3600
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=f"Bearer {auth.dev_token_issue(organization=owner.org, role='admin', subject='x', ttl=7200)}"
    )
    assert client.get("/api/brands").status_code == 401
    client.credentials(
        HTTP_AUTHORIZATION=f"Bearer {auth.dev_token_issue(organization=owner.org, role='admin', subject='x', ttl=1800)}"
    )
    assert client.get("/api/brands").status_code == 200
