"""GET /metrics (issue 33): Prometheus's text format, the same from every gunicorn process
(prometheus_client's multiprocess mode for the request counters, Redis and the database read at
scrape time for the state), behind METRICS_TOKEN outside development."""

from __future__ import annotations

import datetime
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
import requests
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from tests.live import ROOT, free_port, process_env

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _samples(text: str) -> dict[tuple[str, tuple], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


@pytest.mark.django_db
def test_metrics_report_requests_queues_the_oldest_due_post_and_outbox_lag(owner, settings):
    from apps.brands.models import Brand
    from apps.content.models import Content
    from apps.events.models import Event
    from apps.profiles.models import SocialProfile
    from apps.publishing.models import Publication

    settings.METRICS_TOKEN = ""
    settings.DEVELOPMENT = True
    brand = Brand.objects.create(organization=owner.org, name="M", slug="m")
    profile = SocialProfile.objects.create(
        organization=owner.org, brand=brand, platform="x", external_id="m", username="m"
    )
    content = Content.objects.create(
        organization=owner.org, brand=brand, platforms=["x"], prompt="p", status="scheduled"
    )
    due = timezone.now() - datetime.timedelta(seconds=120)
    Publication.objects.create(
        organization=owner.org,
        content=content,
        profile=profile,
        platform="x",
        status="scheduled",
        scheduled_for=due,
        due_at=due,
    )
    Event.objects.filter(dispatched_at__isnull=True).update(
        created_at=timezone.now() - datetime.timedelta(seconds=50)
    )
    client = Client()
    client.get("/v1/brands")
    answer = client.get("/metrics")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/plain")
    samples = _samples(answer.content.decode())
    assert samples[("postforge_oldest_due_publication_age_seconds", ())] >= 119
    assert samples[("postforge_outbox_lag_seconds", ())] >= 49 or not Event.objects.filter(
        dispatched_at__isnull=True
    )
    assert ("postforge_queue_depth", (("queue", "generation"),)) in samples
    assert ("postforge_webhook_backlog", (("endpoint_state", "healthy"),)) in samples
    assert ("postforge_generation_duration_seconds", (("quantile", "0.5"),)) in samples
    v1 = [
        v
        for (name, labels), v in samples.items()
        if name == "postforge_http_requests_total" and ("family", "v1") in labels
    ]
    assert sum(v1) >= 1


@pytest.mark.django_db
def test_metrics_need_the_token_outside_development_and_skip_host_validation(settings):
    settings.DEVELOPMENT = False
    settings.METRICS_TOKEN = ""
    settings.ALLOWED_HOSTS = ["postforge.example.com"]
    pod = Client(HTTP_HOST="10.42.0.9:8000")  # Prometheus scrapes the pod's address
    assert pod.get("/metrics").status_code == 403
    settings.METRICS_TOKEN = "scrape-me"
    assert pod.get("/metrics").status_code == 403
    assert pod.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    good = pod.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-me")
    assert good.status_code == 200 and b"postforge_queue_depth" in good.content


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_every_gunicorn_process_reports_the_same_queue_depth_and_the_summed_request_counts(tmp_path):
    from tests.core.test_serve_restart import _redis_server

    port = free_port()
    broker = _redis_server(port)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis(port=port)
    client.lpush("generation", *[f"m{i}" for i in range(7)])
    client.lpush("webhooks", *[f"m{i}" for i in range(3)])
    web_port = free_port()
    env = process_env(
        REDIS_URL=url, CELERY_BROKER_URL=url, POSTFORGE_VAR_DIR=str(tmp_path), METRICS_TOKEN="t0k"
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "-c",
            "config/gunicorn.py",
            "-b",
            f"127.0.0.1:{web_port}",
            "-w",
            "3",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    base = f"http://127.0.0.1:{web_port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(f"{base}/livez", timeout=5)
                break
            except requests.RequestException:  # not listening yet, or a loaded machine
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        for _ in range(30):
            requests.get(
                f"{base}/v1/brands", headers={"Connection": "close"}, timeout=10
            )  # 401: counted all the same
        scrapes = []
        for _ in range(12):
            text = requests.get(
                f"{base}/metrics", headers={"Authorization": "Bearer t0k", "Connection": "close"}, timeout=30
            ).text
            samples = _samples(text)
            depth = {
                dict(labels)["queue"]: v
                for (name, labels), v in samples.items()
                if name == "postforge_queue_depth"
            }
            v1 = sum(
                v
                for (name, labels), v in samples.items()
                if name == "postforge_http_requests_total" and ("family", "v1") in labels
            )
            scrapes.append((depth["generation"], depth["webhooks"], v1))
        # several processes answered (each keeps its own counter file) and all agree
        pids = {
            m.group(1)
            for f in (tmp_path / "prometheus").iterdir()
            if (m := re.search(r"_(\d+)\.db$", f.name))
        }
        assert len(pids) >= 2, pids
        assert set(scrapes) == {(7.0, 3.0, 30.0)}, scrapes
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        broker.terminate()
        broker.wait(timeout=10)


def test_the_grafana_dashboard_and_alert_rules_use_metrics_that_exist():
    import json

    import yaml

    names = set(re.findall(r"\"(postforge_[a-z_]+)\"", (ROOT / "apps/core/metrics.py").read_text()))
    names |= set(re.findall(r"\"(postforge_[a-z_]+)\"", (ROOT / "apps/analytics/metrics.py").read_text()))
    names |= {f"{n}_bucket" for n in names} | {f"{n}_count" for n in names} | {f"{n}_sum" for n in names}
    dashboard = json.loads((DEPLOY / "grafana" / "postforge.json").read_text())
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel.get("targets", [])]
    rules = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yaml").read_text())
    exprs += [r["expr"] for group in rules["groups"] for r in group["rules"]]
    assert len(exprs) >= 8
    for expr in exprs:
        used = set(re.findall(r"postforge_[a-z_]+", expr))
        assert used and used <= names, (expr, used - names)
