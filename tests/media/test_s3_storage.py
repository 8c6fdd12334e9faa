"""Uploads through django-storages + boto3 against a local S3-compatible server (moto)."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid

import boto3
import pytest
import requests
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.conftest import png_bytes
from tests.live import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def s3_endpoint():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60  # moto imports a lot: slow on a busy machine
    while True:
        try:
            requests.get(url, timeout=5)
            break
        except requests.RequestException:  # refused while it starts, or a read timeout while it warms up
            if time.monotonic() > deadline:
                proc.kill()
                raise
            time.sleep(0.1)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def s3(settings, s3_endpoint, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    client = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    bucket = f"postforge-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=bucket)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": bucket,
                "endpoint_url": s3_endpoint,
                "region_name": "us-east-1",
                "access_key": "test",
                "secret_key": "test",
                "querystring_auth": False,
                "file_overwrite": False,
                "default_acl": "public-read",
            },
        },
    }
    client.bucket = bucket
    return client


def test_an_upload_is_stored_in_s3_with_its_thumbnail(owner, s3, s3_endpoint):
    client = owner.token_client()
    upload = SimpleUploadedFile("photo.png", png_bytes((800, 600)), content_type="image/png")
    response = client.post("/api/media/upload", {"file": upload}, format="multipart")
    assert response.status_code == 201, response.json()
    media = response.json()["data"]
    assert media["url"].startswith(f"{s3_endpoint}/{s3.bucket}/org/")
    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=s3.bucket)["Contents"])
    assert len(keys) == 2 and any("thumb-" in k for k in keys)
    stored = s3.get_object(Bucket=s3.bucket, Key=next(k for k in keys if "thumb-" not in k))["Body"].read()
    assert stored[:8] == b"\x89PNG\r\n\x1a\n"
    fetched = requests.get(media["thumbnailUrl"], timeout=10)
    assert fetched.status_code == 200 and fetched.content[:2] == b"\xff\xd8"


@pytest.mark.django_db(transaction=True)
def test_deleting_media_removes_its_objects_from_s3(owner, s3):
    client = owner.token_client()
    upload = SimpleUploadedFile("p.png", png_bytes(), content_type="image/png")
    media_id = client.post("/api/media/upload", {"file": upload}, format="multipart").json()["data"]["id"]
    assert len(s3.list_objects_v2(Bucket=s3.bucket)["Contents"]) == 2
    response = client.delete(f"/api/media/{media_id}")
    assert response.status_code == 204
    assert s3.list_objects_v2(Bucket=s3.bucket).get("Contents", []) == []
