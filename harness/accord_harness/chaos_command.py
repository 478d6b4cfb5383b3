"""`accord chaos`: the reliability harness (harness/accord_harness/chaos, docs/reliability.md)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from worker.commands._shared import console, err_console


def register(app: typer.Typer) -> None:
    @app.command()
    def chaos(  # noqa: PLR0913, PLR0917  (typer: one parameter per option)
        size: Annotated[
            str,
            typer.Option(
                help="small (CI, about a minute; tuned settings), full, kills (20 SIGKILLs and "
                "a Redis restart), outage (40 s without workers, then three catch up), "
                "failover or failover-small (a primary, two lagging replicas and three "
                "Sentinels; three failovers; the loss counted in the report's `failover`), "
                "cluster-failover or cluster-failover-small (the same on a Redis Cluster of "
                "three primaries with a lagging replica each)."
            ),
        ] = "small",
        fsync: Annotated[str, typer.Option(help="Redis appendfsync: always or everysec.")] = (
            "always"
        ),
        seed: Annotated[int | None, typer.Option(help="Seed of workload and faults.")] = None,
        plant: Annotated[
            str | None,
            typer.Option(
                help="Plant a bug the checks must catch: ack_before_commit, trusted_ack_only, "
                "advance_ahead, wait_skipped (the failover sizes with --wait-replicas)."
            ),
        ] = None,
        cache_size: Annotated[
            int | None, typer.Option(help="The store's state cache size (0: off).")
        ] = None,
        gateway_wait: Annotated[
            int | None,
            typer.Option(
                min=0,
                help="Replicated sizes: the gateway WAITs for this many replicas after its "
                "XADDs (default 0: no WAIT).",
            ),
        ] = None,
        wait_replicas: Annotated[
            int | None,
            typer.Option(
                min=0,
                help="Replicated sizes: ACCORD_WAIT_REPLICAS for the workers, the durability "
                "setting (default 0: off).",
            ),
        ] = None,
        sentinel_url: Annotated[  # noqa: FBT002  (a CLI flag)
            bool,
            typer.Option(
                help="Replicated sizes: the workers get a redis+sentinel:// REDIS_URL and "
                "find the primary themselves, instead of a restart on it."
            ),
        ] = False,
        shipped: Annotated[  # noqa: FBT002  (a CLI flag)
            bool,
            typer.Option(
                help="Replicated sizes: the workers run with the settings as shipped (reclaim,"
                " leases, sweep, delivery limit and gap timeout), not the tuned ones."
            ),
        ] = False,
        resend_lost: Annotated[  # noqa: FBT002  (a CLI flag)
            bool,
            typer.Option(
                help="Replicated sizes: the gateway writes again the acknowledged appends a "
                "failover lost (an outbox)."
            ),
        ] = False,
        workdir: Annotated[
            Path | None, typer.Option(help="Keep Redis files and worker logs here.")
        ] = None,
        report: Annotated[Path | None, typer.Option(help="Write the JSON report here.")] = None,
    ) -> None:
        """Real workers on a real Redis under faults; exit 1 on any difference from the oracle.

        Starts its own redis-server (appendonly yes) and worker processes; needs no REDIS_URL.
        The failover sizes start redis-server from PATH, as primary, replicas and Sentinels.
        """
        from accord_harness.chaos.run import PLANS, run_chaos  # noqa: PLC0415  (heavy; on use)

        if refusal := _refusal(size, fsync, plant, sentinel_url=sentinel_url):
            err_console.print(f"[red]{refusal}[/]", markup=True)
            raise typer.Exit(2)
        plan = dataclasses.replace(
            PLANS[size], fsync=fsync, plant=plant, cache_size=cache_size,
            resend_lost=resend_lost, sentinel_url=sentinel_url,
        )  # fmt: skip
        if gateway_wait is not None:
            plan = dataclasses.replace(plan, gateway_wait=gateway_wait)
        if wait_replicas is not None:
            plan = dataclasses.replace(plan, wait_replicas=wait_replicas)
        if shipped:
            plan = dataclasses.replace(plan, tuned=False, gap_timeout_ms=None)
        if seed is not None:
            plan = dataclasses.replace(plan, seed=seed)
        result = asyncio.run(run_chaos(plan, workdir, say=console.print))
        text = result.to_json()
        if report is not None:
            report.write_text(text + "\n")
        console.print(text, markup=False, highlight=False)
        for line in result.differences[:50]:
            err_console.print(line, markup=False, highlight=False)
        raise typer.Exit(0 if result.ok else 1)


def _refusal(size: str, fsync: str, plant: str | None, *, sentinel_url: bool) -> str | None:
    """Why these options make no run (one line), or None."""
    from accord_harness.chaos.node import PLANTS  # noqa: PLC0415  (heavy; on use)
    from accord_harness.chaos.run import PLANS  # noqa: PLC0415  (heavy; on use)

    if plant is not None and plant not in PLANTS:
        return f"--plant must be one of {', '.join(PLANTS)}"
    if size not in PLANS or fsync not in {"always", "everysec"}:
        return f"--size {'|'.join(PLANS)}, --fsync always|everysec"
    if sentinel_url and PLANS[size].cluster:
        return "--sentinel-url: a cluster size has no Sentinel"
    return None
