"""Cross-checks between the deploy/ files and the code they run.

Schemas (scripts/check-deploy) prove each file is well-formed on its own; these tests
prove the files agree with each other and with the worker: every setting they pass is
one the worker reads, the probes hit endpoints the worker serves, KEDA watches every
input stream of every partition, selectors select the pods, and the image runs as the
user the pod security context demands.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry

from contracts.streams import family_of, input_streams
from tests.support.paths import DEPLOY, ROOT
from tests.support.promql_kit import metric_names
from worker.health import Health, http_handler
from worker.observability import Metrics
from worker.settings import Settings

K8S = DEPLOY / "k8s"


def documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def manifest(kind: str, name: str) -> dict[str, Any]:
    for path in sorted([*K8S.glob("*.yaml"), *K8S.glob("examples/*.yaml")]):
        for doc in documents(path):
            if doc["kind"] == kind and doc["metadata"]["name"] == name:
                return doc
    raise AssertionError(f"no {kind}/{name} under deploy/k8s")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return data


@pytest.fixture(scope="module")
def configmap() -> dict[str, str]:
    data: dict[str, str] = manifest("ConfigMap", "accord-settings")["data"]
    return data


@pytest.fixture(scope="module")
def deployment() -> dict[str, Any]:
    return manifest("Deployment", "accord-worker")


def container(deployment: dict[str, Any]) -> dict[str, Any]:
    containers: list[dict[str, Any]] = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


# Variables deploy/ sets for something other than the worker's Settings: KEDA's address
# lookups (addressFromEnv / addressesFromEnv) and the replay service's shell loop.
NOT_FOR_SETTINGS = {"ACCORD_REDIS_ADDRESS", "ACCORD_REDIS_CLUSTER_ADDRESSES", "ACCORD_TRANSCRIPTS"}


def settings_variables() -> set[str]:
    """Every environment variable the worker's settings read (worker/variables.py holds
    the table, worker/settings.py the rest)."""
    source = "".join(
        (ROOT / "worker" / name).read_text() for name in ("settings.py", "variables.py")
    )
    return set(re.findall(r'"((?:ACCORD_|REDIS_)[A-Z_]+)"', source))


def test_every_variable_deploy_sets_is_one_the_worker_reads(
    compose: dict[str, Any], configmap: dict[str, str]
) -> None:
    """A misspelt setting is silently ignored by the worker, so none may exist: each
    ACCORD_* / REDIS_* name in the ConfigMap, the Secret and compose is read by Settings."""
    known = settings_variables() | NOT_FOR_SETTINGS
    secret = manifest("Secret", "accord-redis")["stringData"]
    named = set(configmap) | set(secret)
    for service in compose["services"].values():
        named |= set(service.get("environment", {}))
    accord_names = {n for n in named if n.startswith(("ACCORD_", "REDIS_"))}
    assert accord_names - known == set()


def test_configmap_and_compose_settings_parse_as_the_worker_would(
    compose: dict[str, Any], configmap: dict[str, str]
) -> None:
    """Settings.from_env accepts every value (numbers are numbers), and the ConfigMap and
    compose agree with each other on the partition count and group."""
    secret = manifest("Secret", "accord-redis")["stringData"]
    k8s = Settings.from_env({**configmap, **secret})
    local = Settings.from_env(dict(compose["services"]["worker"]["environment"]))
    assert k8s.partitions == local.partitions >= 1
    assert k8s.group == local.group
    assert k8s.redis_url is not None
    assert local.redis_url is not None


def statuses(paths: set[str]) -> dict[str, int]:
    """GET each path from the worker's real health handler (live and ready) on a free port."""

    async def fetch(port: int, path: str) -> int:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: probe\r\n\r\n".encode())
        await writer.drain()
        status = await reader.readline()
        writer.close()
        await writer.wait_closed()
        return int(status.split()[1])

    async def run() -> dict[str, int]:
        handler = http_handler(Health(ready=True), CollectorRegistry())
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        port: int = server.sockets[0].getsockname()[1]
        try:
            return {path: await fetch(port, path) for path in sorted(paths)}
        finally:
            server.close()
            await server.wait_closed()

    return asyncio.run(run())


def test_probes_and_scrape_target_endpoints_the_worker_serves(
    deployment: dict[str, Any], compose: dict[str, Any], configmap: dict[str, str]
) -> None:
    """Every probe path (startup, liveness, readiness, compose healthcheck) and the
    Prometheus scrape path answer 200 from the worker's own handler, on the port the
    worker is configured to listen on."""
    spec = container(deployment)
    ports = {p["name"]: p["containerPort"] for p in spec["ports"]}
    assert ports["metrics"] == int(configmap["ACCORD_METRICS_PORT"])
    paths = {
        spec[probe]["httpGet"]["path"]
        for probe in ("startupProbe", "livenessProbe", "readinessProbe")
    }
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert int(annotations["prometheus.io/port"]) == ports["metrics"]
    paths.add(annotations["prometheus.io/path"])
    probe_cmd = " ".join(compose["services"]["worker"]["healthcheck"]["test"])
    compose_url = re.search(r"http://127\.0\.0\.1:(\d+)(/\w+)", probe_cmd)
    assert compose_url is not None
    assert (
        compose_url.group(1) == compose["services"]["worker"]["environment"]["ACCORD_METRICS_PORT"]
    )
    paths.add(compose_url.group(2))
    assert paths >= {"/healthz", "/readyz", "/metrics"}
    answers = statuses({*paths, "/nope"})
    assert answers.pop("/nope") == 404  # the handler does tell paths apart
    assert answers == dict.fromkeys(paths, 200)


def test_keda_watches_lag_and_pending_of_every_input_stream_of_every_partition(
    configmap: dict[str, str],
) -> None:
    """A backlog on any partition's chat-turn, tool-call or tool-result stream scales
    the workers: both ScaledObjects carry exactly one lag and one pending trigger per
    input stream of partitions 0..P-1, for the worker's group, and never scale to zero
    (the deadline sweeper runs without input, R9)."""
    partitions = int(configmap["ACCORD_PARTITIONS"])
    expected = {
        (kind, stream)
        for p in range(partitions)
        for stream in input_streams(p)
        for kind in ("lag", "pending")
    }
    for path, trigger_type in (
        (DEPLOY / "keda" / "scaledobject.yaml", "redis-streams"),
        (DEPLOY / "keda" / "cluster" / "scaledobject.yaml", "redis-cluster-streams"),
    ):
        (scaled,) = documents(path)
        spec = scaled["spec"]
        assert spec["scaleTargetRef"]["name"] == "accord-worker"
        assert spec["minReplicaCount"] >= 1
        seen = set()
        for trigger in spec["triggers"]:
            meta = trigger["metadata"]
            assert trigger["type"] == trigger_type
            assert meta["consumerGroup"] == configmap["ACCORD_GROUP"]
            kind = "lag" if "lagCount" in meta else "pending"
            assert ("pendingEntriesCount" in meta) == (kind == "pending")
            if kind == "pending":
                # A busy worker holds two reads pending (the batch and the read ahead):
                # a lower threshold would scale out a deployment that keeps up.
                batch = int(configmap["ACCORD_BATCH_SIZE"])
                assert int(meta["pendingEntriesCount"]) == 2 * batch
            partition = re.fullmatch(r".+:\{(\d+)\}", meta["stream"])
            assert partition is not None
            assert trigger["name"] == f"{kind}-{family_of(meta['stream'])}-{partition.group(1)}"
            env = meta.get("addressFromEnv") or meta.get("addressesFromEnv")
            assert env in configmap, "KEDA reads the address from the pod's ConfigMap env"
            seen.add((kind, meta["stream"]))
        assert seen == expected
        assert len(spec["triggers"]) == len(expected)


def test_keda_authenticates_with_the_secret_that_exists() -> None:
    """The TriggerAuthentication points at a Secret and keys that the manifests define."""
    (auth,) = documents(DEPLOY / "keda" / "triggerauthentication.yaml")
    secret = manifest("Secret", "accord-keda-redis")
    refs = {(r["parameter"], r["name"], r["key"]) for r in auth["spec"]["secretTargetRef"]}
    assert refs == {
        ("username", "accord-keda-redis", "username"),
        ("password", "accord-keda-redis", "password"),
    }
    assert set(secret["stringData"]) == {"username", "password"}
    (scaled,) = documents(DEPLOY / "keda" / "scaledobject.yaml")
    names = {t["authenticationRef"]["name"] for t in scaled["spec"]["triggers"]}
    assert names == {auth["metadata"]["name"]}


def test_selectors_select_the_worker_pods(deployment: dict[str, Any]) -> None:
    """The PodDisruptionBudget and NetworkPolicy apply to exactly the Deployment's pods,
    and the NetworkPolicy admits scrapes on the metrics port."""
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    pdb = manifest("PodDisruptionBudget", "accord-worker")
    assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()
    policy = manifest("NetworkPolicy", "accord-worker")
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= labels.items()
    ingress_ports = {p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]}
    assert ingress_ports == {container(deployment)["ports"][0]["containerPort"]}
    egress_ports = {p["port"] for rule in policy["spec"]["egress"] for p in rule["ports"]}
    assert 6379 in egress_ports
    assert 53 in egress_ports


def test_every_object_lives_in_the_accord_namespace() -> None:
    """kubectl apply -f deploy/k8s/ puts nothing in the wrong namespace."""
    for path in [*K8S.glob("**/*.yaml"), *DEPLOY.glob("keda/**/*.yaml")]:
        for doc in documents(path):
            if doc["kind"] != "Namespace":
                assert doc["metadata"]["namespace"] == "accord", path


def dockerfile() -> str:
    return (DEPLOY / "Dockerfile").read_text()


def test_image_runs_as_the_non_root_user_the_pod_requires(deployment: dict[str, Any]) -> None:
    """The image's USER is the numeric uid/gid the pod security context enforces, and its
    entry point is exec form (PID 1 gets SIGTERM and drains)."""
    user = re.findall(r"^USER (\d+):(\d+)$", dockerfile(), re.MULTILINE)
    pod = deployment["spec"]["template"]["spec"]["securityContext"]
    assert user == [(str(pod["runAsUser"]), str(pod["runAsGroup"]))]
    assert pod["runAsNonRoot"] is True
    assert re.search(r'^ENTRYPOINT \["accord"\]$', dockerfile(), re.MULTILINE)
    assert re.search(r'^CMD \["worker"\]$', dockerfile(), re.MULTILINE)
    assert container(deployment)["args"] == ["worker"]


def test_build_context_holds_every_file_the_dockerfile_copies() -> None:
    """The .dockerignore allow-list admits each COPY source, and each exists: a path
    missing from either fails the build only when an image is built, so check it here."""
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    allowed = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    assert "*" in ignore
    copies = re.findall(r"^COPY (?!--from)(.+) \S+$", dockerfile(), re.MULTILINE)
    sources = {src for line in copies for src in line.split() if not src.startswith("--")}
    assert sources
    for source in sources:
        admitted = any(source == path or source.startswith(f"{path}/") for path in allowed)
        assert admitted, f"{source} is excluded by .dockerignore"
        assert (ROOT / source).exists(), source
    assert list((ROOT / "worker" / "transcripts").glob("*.jsonl")), "the replay service needs them"


def test_compose_references_only_files_and_services_that_exist(compose: dict[str, Any]) -> None:
    """Bind mounts, the build's Dockerfile and depends_on targets all resolve; Redis runs
    the production redis.conf and users.acl as rendered by `accord acl render` (a file
    the repository does not hold, never created empty by compose); two workers; the
    replay is a one-shot."""
    services = compose["services"]
    for name, service in services.items():
        for volume in service.get("volumes", []):
            if isinstance(volume, dict):  # long syntax: the rendered ACL
                assert volume["source"] == "./redis/users.rendered.acl", name
                assert volume["bind"]["create_host_path"] is False, name
                assert volume["read_only"] is True, name
                continue
            source = volume.split(":", 1)[0]
            if source.startswith("."):
                assert (DEPLOY / source).is_file(), f"{name}: {source}"
        for target in service.get("depends_on", {}):
            assert target in services, f"{name} depends on unknown {target}"
        build = service.get("build")
        if build:
            context = (DEPLOY / build["context"]).resolve()
            assert (context / build["dockerfile"]).is_file()
    mounts = {
        v["source"] if isinstance(v, dict) else v.split(":")[0]
        for v in services["redis"]["volumes"]
    }
    assert {"./redis/redis.conf", "./redis/users.rendered.acl"} <= mounts
    assert services["worker"]["deploy"]["replicas"] == 2
    assert services["replay-demo"]["restart"] == "no"
    assert services["replay-demo"]["depends_on"]["worker"]["condition"] == "service_healthy"
    for name in ("redis", "worker"):
        assert "healthcheck" in services[name], name


def worker_series() -> set[str]:
    """Every series name the worker exports (counters as _total, histograms' parts)."""
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count")}
    return {
        family.name + suffix
        for family in Metrics().registry.collect()
        for suffix in suffixes.get(family.type, ("",))
    }


def test_alert_rules_parse_and_name_only_metrics_the_worker_exports() -> None:
    """Every alert expression is valid PromQL, and every accord_* series it reads is one
    the worker's registry exports: an alert on a misspelt metric never fires. Series
    from outside (up, KEDA's operator, redis_exporter) are the documented few."""
    rules = [
        rule
        for group in yaml.safe_load((DEPLOY / "prometheus" / "alerts.yaml").read_text())["groups"]
        for rule in group["rules"]
    ]
    exported = worker_series()
    external = {
        "up",
        "keda_scaler_metrics_value",
        "redis_memory_used_bytes",
        "redis_memory_max_bytes",
    }
    used: set[str] = set()
    for rule in rules:
        names = metric_names(rule["expr"])
        assert names, rule["alert"]
        used |= names
        assert names <= exported | external, (rule["alert"], names - exported - external)
        assert rule["annotations"]["runbook"].startswith("docs/operations.md#")
    # The runbook anchors exist: each heading in docs/operations.md gives one.
    headings = re.findall(r"^#+ (.+)$", (ROOT / "docs" / "operations.md").read_text(), re.MULTILINE)
    anchors = {re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-") for h in headings}
    for rule in rules:
        assert rule["annotations"]["runbook"].split("#", 1)[1] in anchors, rule["alert"]
    # The alerts the issue asks for are all there.
    assert {
        "accord_dead_letters_total",
        "accord_gap_skips_total",
        "accord_reclaimed_entries_total",
        "accord_entry_latency_seconds_bucket",
    } <= used
