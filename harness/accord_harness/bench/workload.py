"""The benchmark's workload: many sessions, mostly ordinary traffic, a few agreement flows.

Each session is a run of four-entry ordinary blocks (a user turn, the assistant's
answer, a `todo_write` call and its result carrying the session's todo list), which
is about what a chat gateway sees. One session in `flow_every` also runs one full
agreement flow (R2-R5): a proposal, half of them with a deadline, the assistant's
answer, the agent's `soul_agreement_accept` and the user's confirmation, so about
4% of entries are agreement flows with the defaults.

Flow sessions get a scope of their own and ordinary ones share a scope four at a
time: a flow's outcome then depends on its session alone, so the oracle (which runs
the sessions of a scope one after another) predicts exactly what the workers must
commit, whatever order they read the streams in. Sessions are interleaved round robin,
as many chats at once, and alternate English and Chinese.
"""

# ruff: noqa: RUF001  (Chinese turns carry full-width punctuation on purpose)
from __future__ import annotations

from dataclasses import dataclass

import msgspec

from accord_harness.bench.chatter import EN_ASSISTANT, EN_USER, ZH_ASSISTANT, ZH_USER
from accord_harness.chaos.workload import EN, ZH, Phrases
from accord_harness.documents import Document, Session, stream_of

STEP_S = 30
BLOCK = 4
FLOW = 4
ASSISTANT = (
    "Sure, here is a short summary of the chapter.",
    "好的，我来整理一下要点。",
)
TODOS = (
    ("Draft the outline", "Review the budget"),
    ("整理读书笔记", "预订会议室"),
)


@dataclass(frozen=True)
class Workload:
    """The documents in the gateway's write order, and how they are made up."""

    documents: list[Document]
    partitions: int
    sessions: int
    flows: int

    @property
    def flow_entries(self) -> int:
        return self.flows * FLOW


class _Session(Session):
    """A session in one language: ordinary blocks, and at most one agreement flow."""

    def __init__(
        self, scope: tuple[str, str], session_id: str, phrases: Phrases, *, real_text: bool = False
    ) -> None:
        super().__init__(scope, session_id, step_s=STEP_S, zone=phrases.zone)
        self.phrases = phrases
        self.zh = phrases is ZH
        # Real-length everyday chat (bench/chatter.py) instead of the short noise lines.
        self.user_lines = (ZH_USER if self.zh else EN_USER) if real_text else phrases.user_noise
        self.assistant_lines = (
            (ZH_ASSISTANT if self.zh else EN_ASSISTANT) if real_text else (ASSISTANT[self.zh],)
        )

    def todo_write(self, status: str) -> None:
        """The agent's `todo_write` call and its result, both carrying the todo list."""
        todos = [{"content": c, "status": status} for c in TODOS[self.zh]]
        call_seq = self.call("todo_write", {"todos": todos})
        self.todo_result(todos, call_id=f"c-{self.session_id}-{call_seq}")

    def ordinary(self, index: int) -> None:
        self.say(self.user_lines[index % len(self.user_lines)])
        self.say(self.assistant_lines[index % len(self.assistant_lines)], "assistant")
        self.todo_write("in_progress" if index % 2 else "pending")

    def flow(self, with_deadline: bool) -> None:  # noqa: FBT001  (one flag, positional)
        terms = self.phrases.deadline if with_deadline else self.phrases.propose[0]
        seq = self.say(terms)
        self.say(self.phrases.assistant_noise[0], "assistant")
        self.accept(seq, 1)
        self.say(self.phrases.confirm)


def build(  # noqa: PLR0913  (the workload's knobs)
    *,
    sessions: int,
    blocks: int,
    partitions: int,
    flow_every: int = 5,
    prefix: str = "b",
    real_text: bool = False,
) -> Workload:
    """`sessions` sessions of `blocks` ordinary blocks (+ one flow in every `flow_every`-th),
    interleaved round robin: with many sessions a read holds about one entry of each, as a
    live gateway's does. `real_text`: real-length chat (bench/chatter.py)."""
    per_session: list[list[Document]] = []
    flows = 0
    for index in range(sessions):
        phrases = ZH if index % 2 else EN
        has_flow = index % flow_every == 0
        scope = ("agent", f"{prefix}-user-{index if has_flow else f'shared-{index // 4}'}")
        session = _Session(scope, f"{prefix}-s{index}", phrases, real_text=real_text)
        for block in range(blocks):
            if has_flow and block == blocks // 2:
                session.flow(with_deadline=flows % 2 == 1)
                flows += 1
            session.ordinary(block + index)
        per_session.append(session.documents)
    longest = max((len(d) for d in per_session), default=0)
    documents = [d[i] for i in range(longest) for d in per_session if i < len(d)]
    return Workload(documents, partitions, sessions, flows)


def entries(workload: Workload) -> list[tuple[str, bytes]]:
    """(stream, encoded JSON) per document, in write order: what the producer XADDs."""
    encoder = msgspec.json.Encoder()
    return [(stream_of(d, workload.partitions), encoder.encode(d)) for d in workload.documents]
