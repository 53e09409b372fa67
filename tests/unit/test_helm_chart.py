"""The Helm chart, linted, rendered and validated with the real binaries (``infra/tools``).

helm lints and renders the chart; kubeconform validates every rendered manifest offline
against the schemas vendored in ``helm/schemas/`` (Kubernetes and KEDA's CRDs); the chart's
``values.schema.json`` refuses a wrong value at render time, naming the key.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from workers.settings import Settings

ROOT = Path(__file__).parents[2]
CHART = ROOT / "helm" / "crag-fleet"
CI_VALUES = sorted((CHART / "ci").glob("*-values.yaml"))
K8S_SCHEMAS = ROOT / "helm" / "schemas" / "kubernetes" / "v1.35.0-standalone-strict"
CRD_SCHEMAS = ROOT / "helm" / "schemas" / "crds"
HELM = os.environ.get("CRAG_HELM", "/var/cache/crag-fleet/bin/helm")
KUBECONFORM = os.environ.get("CRAG_KUBECONFORM", "/var/cache/crag-fleet/bin/kubeconform")
# kubeconform's schema locations: the vendored files only (no default, nothing fetched).
K8S_LOCATION = f"{K8S_SCHEMAS}/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json"
CRD_LOCATION = (
    f"{CRD_SCHEMAS}/{{{{ .Group }}}}/{{{{ .ResourceKind }}}}_{{{{ .ResourceAPIVersion }}}}.json"
)
# Set by the chart from worker.* rather than taken from `config`/`secrets`.
FROM_WORKER = {"WORKER_CONCURRENCY", "SHUTDOWN_GRACE_S"}

Docs = dict[tuple[str, str], dict[str, Any]]


def _binary(path: str, name: str) -> str:
    found = shutil.which(path)
    if found is None:
        pytest.fail(f"{name} not found at {path}; run `infra/tools`", pytrace=False)
    return found


@pytest.fixture(scope="module")
def helm() -> str:
    return _binary(HELM, "helm")


@pytest.fixture(scope="module")
def kubeconform() -> str:
    return _binary(KUBECONFORM, "kubeconform")


def template(helm: str, *sets: str, values: Path | None = None) -> subprocess.CompletedProcess[str]:
    args = [helm, "template", "rel", str(CHART)]
    if values is not None:
        args += ["--values", str(values)]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True, check=False)


def render(helm: str, *sets: str, values: Path | None = None) -> Docs:
    result = template(helm, *sets, values=values)
    assert result.returncode == 0, result.stderr
    docs = [d for d in yaml.safe_load_all(result.stdout) if d]
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def pod_of(docs: Docs, kind: str, name: str) -> dict[str, Any]:
    spec: dict[str, Any] = docs[(kind, name)]["spec"]["template"]
    return spec


def test_chart_lints_strictly(helm: str) -> None:
    result = subprocess.run(
        [helm, "lint", "--strict", str(CHART)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("values", [None, *CI_VALUES], ids=lambda p: p.name if p else "defaults")
def test_each_values_file_lints_and_validates_offline(
    helm: str, kubeconform: str, values: Path | None
) -> None:
    lint = subprocess.run(
        [helm, "lint", "--strict", str(CHART), *(["--values", str(values)] if values else [])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    rendered = template(helm, values=values)
    assert rendered.returncode == 0, rendered.stderr
    manifests = [d for d in yaml.safe_load_all(rendered.stdout) if d]
    # Only the vendored schemas, no default location: nothing is fetched, and a kind without
    # a schema here is an error, not a skip.
    result = subprocess.run(
        [
            kubeconform,
            "-strict",
            "-summary",
            "-output",
            "json",
            "-schema-location",
            K8S_LOCATION,
            "-schema-location",
            CRD_LOCATION,
            "-",
        ],
        input=rendered.stdout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)["summary"]
    assert summary["valid"] == len(manifests) > 0
    assert summary["invalid"] == summary["errors"] == summary["skipped"] == 0


def test_the_values_files_cover_the_choices(helm: str) -> None:
    by_name = {p.name: render(helm, values=p) for p in CI_VALUES}
    kinds = {name: {kind for kind, _ in docs} for name, docs in by_name.items()}
    assert "ScaledObject" in kinds["keda-values.yaml"]
    assert "HorizontalPodAutoscaler" in kinds["hpa-values.yaml"]
    assert not {"ScaledObject", "HorizontalPodAutoscaler"} & kinds["static-values.yaml"]
    assert "Secret" not in kinds["external-secret-values.yaml"]
    custom = pod_of(by_name["custom-resources-values.yaml"], "Deployment", "rel-crag-fleet-worker")
    assert custom["spec"]["containers"][0]["resources"]["limits"]["cpu"] == "4"


def test_kubeconform_refuses_what_the_cluster_would(kubeconform: str, helm: str) -> None:
    """The validation is real: an unknown field in a pod spec fails it."""
    rendered = template(helm).stdout.replace(
        "terminationGracePeriodSeconds:", "terminationGraceSeconds:"
    )
    result = subprocess.run(
        [
            kubeconform,
            "-strict",
            "-schema-location",
            K8S_LOCATION,
            "-",
        ],
        input=rendered,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "terminationGraceSeconds" in result.stdout


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ("worker.replicas=abc", "/worker/replicas"),
        ("worker.replica=3", "'replica'"),
        ("keda.minReplicas=1", "'minReplicas'"),
        ("config.QUEUEE=x", "'QUEUEE'"),
        ("migrations.ttlSecondsAfterFinished=-1", "/migrations/ttlSecondsAfterFinished"),
        ("image.pullPolicy=Sometimes", "/image/pullPolicy"),
    ],
)
def test_a_wrong_value_is_refused_naming_the_key(helm: str, setting: str, named: str) -> None:
    result = template(helm, setting)
    assert result.returncode != 0
    assert "values don't meet the specifications of the schema" in result.stderr
    assert named in result.stderr, result.stderr


def test_every_value_in_the_schema_is_described() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    missing: list[str] = []

    def walk(node: dict[str, Any], path: str) -> None:
        if "$ref" in node:
            node = schema["definitions"][node["$ref"].rsplit("/", 1)[1]]
        missing.extend(f"{path}: {k}" for k in ("type", "description") if k not in node)
        for key, child in node.get("properties", {}).items():
            walk(child, f"{path}.{key}")

    walk(schema, "")
    assert not missing, missing
    # `config` and `secrets` accept exactly the real settings (less those from worker.*).
    known = {f.upper() for f in Settings.model_fields}
    for key in ("config", "secrets"):
        assert set(schema["properties"][key]["properties"]) == known - FROM_WORKER, key


def test_workers_get_their_grace_and_configuration(helm: str) -> None:
    docs = render(helm, "worker.shutdownGraceSeconds=40", "worker.concurrency=3")
    config = docs[("ConfigMap", "rel-crag-fleet-config")]["data"]
    pod = pod_of(docs, "Deployment", "rel-crag-fleet-worker")["spec"]
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


def test_workers_are_probed_by_pinging_their_own_celery_node(helm: str) -> None:
    docs = render(helm, "worker.livenessProbe.periodSeconds=45")
    [container] = pod_of(docs, "Deployment", "rel-crag-fleet-worker")["spec"]["containers"]
    # The node name the worker runs under: --hostname $(POD_NAME)@%h.
    assert container["args"][-2:] == ["--hostname", "$(POD_NAME)@%h"]
    ping = (
        "celery --app workers.celery.app inspect ping"
        ' --destination "$POD_NAME@$(hostname)" --timeout 10'
    )
    for name in ("livenessProbe", "readinessProbe"):
        probe = container[name]
        assert probe["exec"]["command"] == ["sh", "-c", ping]
        assert probe["timeoutSeconds"] > 10  # longer than the ping waits for a reply
    assert container["livenessProbe"]["periodSeconds"] == 45
    off = render(helm, "worker.readinessProbe.enabled=false")
    [container] = pod_of(off, "Deployment", "rel-crag-fleet-worker")["spec"]["containers"]
    assert "readinessProbe" not in container and "livenessProbe" in container


def test_beat_is_live_while_it_writes_its_schedule(helm: str) -> None:
    docs = render(helm, "beat.livenessProbe.maxScheduleAgeSeconds=420")
    [container] = pod_of(docs, "Deployment", "rel-crag-fleet-beat")["spec"]["containers"]
    command = container["livenessProbe"]["exec"]["command"]
    assert command[:2] == ["python", "-c"]
    assert "/tmp/crag-beat-schedule" in command[2] and "< 420" in command[2]
    assert "/tmp/crag-beat-schedule" in container["args"]


def test_pods_roll_when_their_config_or_secret_changes(helm: str) -> None:
    def checksums(docs: Docs) -> dict[str, dict[str, str]]:
        pods = {
            name: pod_of(docs, kind, name)["metadata"]["annotations"]
            for kind, name in docs
            if kind in ("Deployment", "Job")
        }
        assert len(pods) == 3  # worker, beat, migrate
        return pods

    base = checksums(render(helm))
    for notes in base.values():
        assert {"checksum/config", "checksum/secret"} <= set(notes)
    secret = checksums(render(helm, "secrets.LLM_API_KEY=rotated"))
    config = checksums(render(helm, "config.LLM_MODEL=other"))
    for name, notes in base.items():
        assert secret[name]["checksum/secret"] != notes["checksum/secret"]
        assert secret[name]["checksum/config"] == notes["checksum/config"]
        assert config[name]["checksum/config"] != notes["checksum/config"]
    # An existing Secret is not the chart's to watch.
    external = checksums(render(helm, "existingSecret=prod-crag"))
    assert not [a for a in external.values() if "checksum/secret" in a]


def test_one_beat_schedules_the_retention_sweep(helm: str) -> None:
    docs = render(helm)
    beat = docs[("Deployment", "rel-crag-fleet-beat")]
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"]["type"] == "Recreate"
    assert beat["spec"]["template"]["spec"]["containers"][0]["args"][0] == "beat"
    assert ("Deployment", "rel-crag-fleet-beat") not in render(helm, "beat.enabled=false")


def test_config_and_secret_are_release_resources_and_pods_wait_for_migrations(
    helm: str,
) -> None:
    docs = render(
        helm, "migrations.ttlSecondsAfterFinished=120", "migrations.waitTimeoutSeconds=600"
    )
    # Hooks are left behind on uninstall and recreated on upgrade: these are ordinary.
    for key in (("ConfigMap", "rel-crag-fleet-config"), ("Secret", "rel-crag-fleet-env")):
        assert "helm.sh/hook" not in (docs[key]["metadata"].get("annotations") or {})
    [job] = [d for (kind, _), d in docs.items() if kind == "Job"]
    assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["db", "upgrade"]
    assert job["spec"]["ttlSecondsAfterFinished"] == 120
    assert job["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]
    # After install/upgrade, when the ConfigMap and Secret exist; pods wait for it.
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "post-install,post-upgrade"
    for name in ("rel-crag-fleet-worker", "rel-crag-fleet-beat"):
        [init] = pod_of(docs, "Deployment", name)["spec"]["initContainers"]
        assert init["name"] == "wait-for-migrations"
        assert init["args"] == ["db", "wait", "--timeout", "600"]
        assert (
            init["envFrom"] == pod_of(docs, "Deployment", name)["spec"]["containers"][0]["envFrom"]
        )
    plain = render(helm, "migrations.useHelmHooks=false")
    [job] = [d for (kind, _), d in plain.items() if kind == "Job"]
    assert "annotations" not in job["metadata"]
    off = render(helm, "worker.waitForMigrations.enabled=false")
    assert "initContainers" not in pod_of(off, "Deployment", "rel-crag-fleet-worker")["spec"]
    assert pod_of(off, "Deployment", "rel-crag-fleet-beat")["spec"]["initContainers"]


def test_every_setting_in_values_is_a_real_setting(helm: str) -> None:
    docs = render(helm)
    names = {*docs[("ConfigMap", "rel-crag-fleet-config")]["data"]}
    names |= {*docs[("Secret", "rel-crag-fleet-env")]["stringData"]}
    known = {f"CRAG_{f.upper()}" for f in Settings.model_fields}
    assert names and names <= known, names - known


def test_workers_spread_over_nodes_and_zones_by_default(helm: str, tmp_path: Path) -> None:
    pod = pod_of(render(helm), "Deployment", "rel-crag-fleet-worker")["spec"]
    [term] = pod["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    selector = term["podAffinityTerm"]["labelSelector"]["matchLabels"]
    assert term["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    assert selector["app.kubernetes.io/component"] == "worker"
    [spread] = pod["topologySpreadConstraints"]
    assert spread["topologyKey"] == "topology.kubernetes.io/zone"
    assert spread["whenUnsatisfiable"] == "ScheduleAnyway"
    assert spread["labelSelector"]["matchLabels"] == selector
    mine = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}
    values = tmp_path / "values.yaml"
    values.write_text(yaml.safe_dump({"worker": {"affinity": mine}}))
    docs = render(helm, "worker.defaultTopologySpread=false", values=values)
    custom = pod_of(docs, "Deployment", "rel-crag-fleet-worker")["spec"]
    assert custom["affinity"] == mine
    assert "topologySpreadConstraints" not in custom and "podAntiAffinity" not in custom["affinity"]


def test_pdb_keeps_workers_available(helm: str) -> None:
    pdb = render(helm)[("PodDisruptionBudget", "rel-crag-fleet-worker")]
    assert pdb["spec"]["maxUnavailable"] == 1
    assert pdb["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"] == "worker"


def test_keda_reads_the_broker_from_the_secret(helm: str) -> None:
    docs = render(
        helm,
        "keda.enabled=true",
        "keda.pollingInterval=7",
        "keda.cooldownPeriod=90",
        "keda.minReplicaCount=0",
        "keda.maxReplicaCount=9",
        "secrets.REDIS_URL=rediss://crag:p%40ss@broker:6380/2",
    )
    deployment = docs[("Deployment", "rel-crag-fleet-worker")]
    assert "replicas" not in deployment["spec"]  # the autoscaler owns it
    scaled = docs[("ScaledObject", "rel-crag-fleet-worker")]["spec"]
    assert (scaled["pollingInterval"], scaled["cooldownPeriod"]) == (7, 90)
    assert (scaled["minReplicaCount"], scaled["maxReplicaCount"]) == (0, 9)
    [trigger] = scaled["triggers"]
    assert trigger["type"] == "redis"
    assert trigger["metadata"] == {
        "listName": "crag.questions",
        "listLength": "10",
        "databaseIndex": "2",
        "enableTLS": "true",
    }  # no address or password in the ScaledObject itself
    auth = docs[("TriggerAuthentication", trigger["authenticationRef"]["name"])]["spec"]
    refs = {r["parameter"]: r for r in auth["secretTargetRef"]}
    assert {r["name"] for r in refs.values()} == {"rel-crag-fleet-env"}
    secret = docs[("Secret", "rel-crag-fleet-env")]["stringData"]
    assert secret[refs["address"]["key"]] == "broker:6380"
    assert secret[refs["password"]["key"]] == "p@ss"  # as Redis knows it, not URL-encoded
    assert secret[refs["username"]["key"]] == "crag"


def test_an_existing_secret_replaces_the_charts_own(helm: str) -> None:
    docs = render(
        helm,
        "existingSecret=prod-crag",
        "keda.enabled=true",
        "keda.addressKey=HOSTPORT",
        "keda.passwordKey=PASSWORD",
    )
    assert not [k for k in docs if k[0] == "Secret"]
    for name in ("rel-crag-fleet-worker", "rel-crag-fleet-beat"):
        [container] = pod_of(docs, "Deployment", name)["spec"]["containers"]
        assert {"secretRef": {"name": "prod-crag"}} in container["envFrom"]
    auth = docs[("TriggerAuthentication", "rel-crag-fleet-redis")]["spec"]["secretTargetRef"]
    assert auth == [
        {"parameter": "address", "name": "prod-crag", "key": "HOSTPORT"},
        {"parameter": "password", "name": "prod-crag", "key": "PASSWORD"},
    ]
    [trigger] = docs[("ScaledObject", "rel-crag-fleet-worker")]["spec"]["triggers"]
    assert (trigger["metadata"]["databaseIndex"], trigger["metadata"]["enableTLS"]) == (
        "0",
        "false",
    )


def test_autoscaling_choices(helm: str) -> None:
    docs = render(helm, "hpa.enabled=true")
    assert "replicas" not in docs[("Deployment", "rel-crag-fleet-worker")]["spec"]
    assert ("HorizontalPodAutoscaler", "rel-crag-fleet-worker") in docs
    both = template(helm, "keda.enabled=true", "hpa.enabled=true")
    assert both.returncode != 0 and "at most one of keda.enabled and hpa.enabled" in both.stderr
    upside_down = template(
        helm, "keda.enabled=true", "keda.minReplicaCount=5", "keda.maxReplicaCount=2"
    )
    assert upside_down.returncode != 0
    assert "keda.minReplicaCount must not exceed keda.maxReplicaCount" in upside_down.stderr
