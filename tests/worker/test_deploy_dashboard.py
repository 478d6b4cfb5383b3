"""Dashboards and scraping: the Grafana dashboard, the PodMonitor, the managed-Redis
NetworkPolicy example and the image's OCI labels agree with what the worker really is."""

from __future__ import annotations

import asyncio
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from redis.asyncio import Redis

from store.embedded import free_port
from tests.support.paths import DEPLOY, ROOT
from tests.support.promql_kit import metric_names
from tests.support.worker_kit import running_worker, worker_settings
from worker.gateway import Gateway

DASHBOARD = DEPLOY / "grafana" / "accord-dashboard.json"
# What Grafana substitutes before it sends a query: the same here, so the query parses.
GRAFANA_VARIABLES = {"$__rate_interval": "5m", "$__range": "1h", "$job": ".*"}


def queries() -> list[tuple[str, str]]:
    """(panel title, PromQL with Grafana's variables substituted) of every panel target."""
    dashboard = json.loads(DASHBOARD.read_text())
    out = []
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = target["expr"]
            for name, value in GRAFANA_VARIABLES.items():
                expr = expr.replace(name, value)
            out.append((panel["title"], expr))
    return out


def exported_series(text: str) -> set[str]:
    """Series names a /metrics page offers, from its `# TYPE` lines (samples or not)."""
    suffixes = {"histogram": ("_bucket", "_sum", "_count")}
    names: set[str] = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.MULTILINE):
        if kind == "counter":
            # The classic text format names a counter with or without `_total`
            # (prometheus_client >= 0.22 writes it); its samples always have it.
            names.add(name if name.endswith("_total") else name + "_total")
        else:
            names |= {name + suffix for suffix in suffixes.get(kind, ("",))}
    return names


async def _metrics_page(url: str) -> str:
    port = free_port()
    async with running_worker(worker_settings(url, metrics_port=port)):
        client = Redis.from_url(url)
        try:
            gateway = Gateway(client, 1, timeout_s=60)
            line = {
                "type": "chat_turn", "agent_id": "dash", "user_id": "u", "session_id": "s",
                "seq": 1, "ts": "2026-03-02T09:00:00Z", "role": "user", "message_id": "m1",
                "text": "Let's agree: every dashboard panel names a real metric.",
            }  # fmt: skip
            await gateway.replay([line])
            await gateway.wait_processed()
        finally:
            await client.aclose()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await writer.drain()
        raw = await reader.read()
        writer.close()
    return raw.decode().partition("\r\n\r\n")[2]


@pytest.mark.redis
def test_every_dashboard_query_parses_and_names_only_metrics_the_worker_exports(
    redis_url: str,
) -> None:
    """Checked against a running worker's own /metrics: a panel on a misspelt or
    removed metric would show nothing, silently."""
    page = asyncio.run(_metrics_page(redis_url))
    exported = exported_series(page)
    assert "accord_entry_latency_seconds_bucket" in exported
    used: dict[str, set[str]] = {}
    for title, expr in queries():
        names = metric_names(expr)
        assert names, title
        assert names <= exported, (title, names - exported)
        used[title] = names
    # Transitions by cause: the label the panel groups by is one the worker sets.
    assert re.search(r'^accord_transitions_total\{cause="proposed",', page, re.MULTILINE)
    every = set().union(*used.values())
    for wanted in (
        "accord_input_entries_total",  # throughput
        "accord_entry_latency_seconds_bucket",  # latency histogram
        "accord_consumer_lag",  # lag per partition
        "accord_dead_letters_total",  # dead letters by reason
        "accord_transitions_total",  # transitions by cause
        "accord_gap_skips_total",
        "accord_reclaimed_entries_total",
    ):
        assert wanted in every, wanted
    groupings = " ".join(expr for _, expr in queries())
    for grouping in ("by (partition)", "by (reason)", "by (cause)", "by (le)"):
        assert grouping in groupings


def _deployment() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DEPLOY / "k8s" / "deployment.yaml").read_text())
    return loaded


def test_pod_monitor_scrapes_the_worker_pods_metrics_port() -> None:
    """The PodMonitor selects the Deployment's pods and names its container's port."""
    monitor = yaml.safe_load((DEPLOY / "prometheus" / "podmonitor.yaml").read_text())
    assert (monitor["apiVersion"], monitor["kind"]) == ("monitoring.coreos.com/v1", "PodMonitor")
    deployment = _deployment()
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    wanted = monitor["spec"]["selector"]["matchLabels"]
    assert wanted.items() <= pod_labels.items()
    assert monitor["spec"]["namespaceSelector"]["matchNames"] == [
        deployment["metadata"]["namespace"]
    ]
    ports = {
        port["name"]
        for container in deployment["spec"]["template"]["spec"]["containers"]
        for port in container.get("ports", [])
    }
    for endpoint in monitor["spec"]["podMetricsEndpoints"]:
        assert endpoint["port"] in ports
        assert endpoint["path"] == "/metrics"


def test_managed_redis_network_policy_reaches_redis_by_ip_block() -> None:
    """The example for a Redis outside the cluster: the same pods, egress by ipBlock."""
    example = yaml.safe_load(
        (DEPLOY / "k8s" / "examples" / "networkpolicy-managed-redis.yaml").read_text()
    )
    shipped = yaml.safe_load((DEPLOY / "k8s" / "networkpolicy.yaml").read_text())
    assert example["spec"]["podSelector"] == shipped["spec"]["podSelector"]
    assert example["spec"]["ingress"] == shipped["spec"]["ingress"]
    blocks = [peer["ipBlock"] for rule in example["spec"]["egress"] for peer in rule["to"]
              if "ipBlock" in peer]  # fmt: skip
    assert blocks
    assert all(re.fullmatch(r"[\d.]+/\d+", block["cidr"]) for block in blocks)


def test_image_carries_oci_labels_with_the_project_version() -> None:
    """The runtime image says what it is: OCI title, description, version, licence."""
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    runtime = dockerfile.split("AS runtime", 1)[1]
    labels = dict(re.findall(r"(org\.opencontainers\.image\.[a-z]+)=\"([^\"]*)\"", runtime))
    for key in ("title", "description", "version", "revision", "licenses"):
        assert f"org.opencontainers.image.{key}" in labels, key
    project = tomllib.loads(Path(ROOT / "pyproject.toml").read_text())["project"]
    assert re.search(rf"^ARG VERSION={re.escape(project['version'])}$", runtime, re.MULTILINE)
    assert labels["org.opencontainers.image.licenses"] == project["license"]["text"]
