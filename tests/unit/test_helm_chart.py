"""The Helm chart, linted and rendered with the real helm binary (``infra/tools`` builds it)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from workers.settings import Settings

CHART = Path(__file__).parents[2] / "helm" / "crag-fleet"
HELM = os.environ.get("CRAG_HELM", "/var/cache/crag-fleet/bin/helm")


@pytest.fixture(scope="module")
def helm() -> str:
    path = shutil.which(HELM)
    if path is None:
        pytest.fail(f"helm not found at {HELM}; run `infra/tools`", pytrace=False)
    return path


def render(helm: str, *sets: str) -> dict[tuple[str, str], dict[str, Any]]:
    args = [helm, "template", "rel", str(CHART)]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    docs = [d for d in yaml.safe_load_all(out) if d]
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def test_chart_lints_strictly(helm: str) -> None:
    result = subprocess.run(
        [helm, "lint", "--strict", str(CHART)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_workers_get_their_grace_and_configuration(helm: str) -> None:
    docs = render(helm, "worker.shutdownGraceSeconds=40", "worker.concurrency=3")
    deployment = docs[("Deployment", "rel-crag-fleet-worker")]
    config = docs[("ConfigMap", "rel-crag-fleet-config")]["data"]
    pod = deployment["spec"]["template"]["spec"]
    # Kubernetes must not SIGKILL before the soft shutdown hands running jobs back.
    assert config["CRAG_SHUTDOWN_GRACE_S"] == "40"
    assert pod["terminationGracePeriodSeconds"] > 40
    assert config["CRAG_WORKER_CONCURRENCY"] == "3"
    [container] = pod["containers"]
    assert container["args"][:3] == ["worker", "--concurrency", "3"]
    sources = {next(iter(s.values()))["name"] for s in container["envFrom"]}
    assert sources == {"rel-crag-fleet-config", "rel-crag-fleet-env"}
    assert ("Secret", "rel-crag-fleet-env") in docs
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True


def test_one_beat_schedules_the_retention_sweep(helm: str) -> None:
    docs = render(helm)
    beat = docs[("Deployment", "rel-crag-fleet-beat")]
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"]["type"] == "Recreate"
    assert beat["spec"]["template"]["spec"]["containers"][0]["args"][0] == "beat"
    assert ("Deployment", "rel-crag-fleet-beat") not in render(helm, "beat.enabled=false")


def test_schema_migrates_before_workers_start(helm: str) -> None:
    docs = render(helm)
    [job] = [d for (kind, _), d in docs.items() if kind == "Job"]
    assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["db", "upgrade"]

    def hook(doc: dict[str, Any]) -> tuple[str, int]:
        notes = doc["metadata"]["annotations"]
        return notes["helm.sh/hook"], int(notes["helm.sh/hook-weight"])

    assert hook(job) == ("pre-install,pre-upgrade", 0)
    for kind, name in (("ConfigMap", "rel-crag-fleet-config"), ("Secret", "rel-crag-fleet-env")):
        assert hook(docs[(kind, name)])[1] < 0  # exists before the Job that reads it


def test_every_setting_in_values_is_a_real_setting(helm: str) -> None:
    docs = render(helm)
    names = {*docs[("ConfigMap", "rel-crag-fleet-config")]["data"]}
    names |= {*docs[("Secret", "rel-crag-fleet-env")]["stringData"]}
    known = {f"CRAG_{f.upper()}" for f in Settings.model_fields}
    assert names and names <= known, names - known


def test_existing_secret_and_autoscaling_choices(helm: str) -> None:
    docs = render(helm, "existingSecret=prod-crag", "hpa.enabled=true")
    assert not [k for k in docs if k[0] == "Secret"]
    deployment = docs[("Deployment", "rel-crag-fleet-worker")]
    assert "replicas" not in deployment["spec"]  # the autoscaler owns it
    assert ("HorizontalPodAutoscaler", "rel-crag-fleet-worker") in docs
    keda = render(helm, "keda.enabled=true", "keda.redisAddress=redis:6379")
    [scaled] = [d for (kind, _), d in keda.items() if kind == "ScaledObject"]
    assert scaled["spec"]["triggers"][0]["metadata"]["listName"] == "crag.questions"
    both = subprocess.run(
        [
            helm,
            "template",
            "rel",
            str(CHART),
            "--set",
            "keda.enabled=true",
            "--set",
            "hpa.enabled=true",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert both.returncode != 0 and "at most one of keda.enabled and hpa.enabled" in both.stderr
