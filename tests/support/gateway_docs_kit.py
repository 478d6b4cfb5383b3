"""docs/gateway.md's Python examples and what their output must show, for the tests that
run them: in the dev environment (tests/e2e/test_gateway_docs.py) and in a virtualenv
holding only the client's wheel (tests/e2e/test_client_packaging.py)."""

from __future__ import annotations

import re

from tests.support.paths import ROOT

DOC = ROOT / "docs" / "gateway.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text("utf-8"), flags=re.DOTALL)


def assert_turn_ran(out: str) -> None:
    """The turn example proposed, accepted through the tool, and after the user's
    confirmation listed the agreement as current memory (R3, R5, R6)."""
    first, _, rest = out.partition("tool result: ")
    assert "(record_id=" in first, "the proposal is pending in the first context"
    assert rest.startswith("Accepted: ")
    final = rest.split("\n", 1)[1]
    assert "Current agreements:\n- next time we discuss a plan, start with the conclusion" in final
    assert "soul_agreement_accept" in out


def assert_subscriber_ran(out: str) -> None:
    """The subscriber example followed the events up to an agreement's opening revision
    (its id: `{record_id}@3~{digest}`, docs/contracts.md)."""
    event_id, kind = out.strip().splitlines()[-1].split()
    assert kind == "StateChanged"
    assert re.fullmatch(r"agr-[0-9a-f]+@3~[0-9a-f]{12}", event_id), event_id
