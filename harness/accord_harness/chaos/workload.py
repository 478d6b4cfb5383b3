"""The chaos workload: scripted agreement flows, the gateway's write order, poison entries.

Sessions speak English or Chinese. Each is a run of blocks (a flow the seed describes):
agree and accept in either order, a todo binding fulfilled by a verified write, a
cancellation, a deadline that passes before the next turn, and noise that must change
nothing. Two kinds of scope:

- *solo* scopes have one session and get every block;
- *shared* scopes have several sessions and get only blocks whose outcome depends on
  the session alone, because R15 fixes the order within a session, not across the
  sessions of a scope (docs/store.md, "Known limits"): cancellations and expiries may
  touch another session's records, and the scope's record limit counts them all.

The write order interleaves sessions, shuffles within a window (so one session's events
arrive out of order across the three streams) and writes a share of them twice.
"""

# ruff: noqa: RUF001  (Chinese turns carry full-width punctuation on purpose, as users type them)
from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from accord_harness.documents import Document, Session, encode, envelope, iso
from contracts.outputs import DeadLetterReason
from contracts.partition import partition_of
from contracts.streams import CHAT_TURN, DATA_FIELD, TOOL_CALL, stream_name
from store.keys import session_key

# Event time (from documents.BASE_TS) advances a minute a document; the deadline block
# waits hours on top, so expiry is materialized by event time alone, the same in the
# oracle and the store.
STEP_S = 60
# Shared scopes stay well below the core's 50 live records per scope.
SHARED_LIVE_BUDGET = 30


@dataclass(frozen=True)
class Phrases:
    zone: str
    propose: tuple[str, ...]
    deadline: str  # a proposal whose deadline lies two hours after its turn
    todo: str
    bind: str
    confirm: str
    cancel: str
    user_noise: tuple[str, ...]
    assistant_noise: tuple[str, ...]


EN = Phrases(
    zone="America/New_York",
    propose=(
        "Let's agree: start with the conclusion, then the reasons.",
        "Let's agree: keep code reviews to three comments at most.",
        "Let's agree: answer in plain words, no jargon.",
    ),
    deadline="Let's agree: send me the draft outline within 2 hours.",
    todo="Organize reading notes",
    bind='Let\'s agree: mark todo "Organize reading notes" as completed.',
    confirm="I accept this agreement.",
    cancel="Cancel this agreement.",
    user_noise=(
        "I'll send it tomorrow.",
        "Remember that I like tea.",
        "ok",
        "sure",
        "Could you summarize the last chapter?",
    ),
    assistant_noise=("Okay, agreed.", "Done! The notes are organized."),
)

ZH = Phrases(
    zone="Asia/Shanghai",
    propose=(
        "我们约定：下次讨论方案时，先说结论，再解释原因。",
        "我们约定：代码评审最多提三条意见。",
        "我们约定：回答时用平实的话，不用术语。",
    ),
    deadline="我们约定：2小时内把草稿大纲发给我。",
    todo="整理读书笔记",
    bind="我们约定：下次把待办「整理读书笔记」标记为完成。",
    confirm="我接受这个约定。",
    cancel="取消这个约定。",
    user_noise=("我明天发给你。", "记住我喜欢喝茶。", "好的", "你能总结一下上一章吗？"),
    assistant_noise=("好的，没问题，以后就这么办。", "搞定了！读书笔记已经整理好了。"),
)


# A plain record: alike in shape to other test cases' records (e.g. the injection
# corpus's), no logic shared (CONTRIBUTING.md, "Repeated shapes").
@dataclass(frozen=True)
class Poison:
    """An entry that must end in dead letters, with the reason it must carry."""

    kind: str
    stream: str
    fields: dict[str, bytes]
    reason: DeadLetterReason
    # A key the harness sets to a string before the run, so the entry's unit cannot be
    # committed (a key of another type): it must be isolated, the rest of its batch not.
    plant_key: str | None = None


@dataclass
class Workload:
    """Every document once (the oracle's input) and what the gateway writes, in order."""

    partitions: int
    documents: list[Document]
    # Documents (duplicates included) and poison entries, in the gateway's write order.
    writes: list[Document | Poison]
    sessions: int
    scopes: int
    languages: dict[str, int] = field(default_factory=dict)


class _Session(Session):
    """A session in one language: user turns carry its zone, todo writes its todo."""

    def __init__(self, scope: tuple[str, str], session_id: str, phrases: Phrases) -> None:
        super().__init__(scope, session_id, step_s=STEP_S, zone=phrases.zone)
        self.phrases = phrases

    def todos(self, status: str, *, ok: bool = True) -> None:
        self.todo_result([{"content": self.phrases.todo, "status": status}], ok=ok)


def _block(session: _Session, rng: random.Random, *, shared: bool, live: list[int]) -> None:
    """One scripted flow; `live` counts the scope's records that stay live (shared)."""
    p = session.phrases
    roll = rng.random()
    room = not shared or live[0] < SHARED_LIVE_BUDGET
    if roll < 0.2 and room:  # R2-R5: proposal, agent accepts, user confirms -> open
        seq = session.say(rng.choice(p.propose))
        session.say(rng.choice(p.assistant_noise), "assistant")
        session.accept(seq, 1)
        session.say(p.confirm)
        live[0] += 1
    elif roll < 0.35 and room:  # R3, R5: user first; a stale revision is refused
        seq = session.say(rng.choice(p.propose))
        session.say(p.confirm)
        session.accept(seq, 1)
        session.accept(seq, 2)
        live[0] += 1
    elif roll < 0.55:  # R11, R12: bound todo, failed write, then verified delivery
        session.todos("pending")
        seq = session.say(p.bind)
        session.accept(seq, 1)
        session.say(p.confirm)
        session.todos("completed", ok=False)
        session.say(p.assistant_noise[-1], "assistant")
        session.todos("in_progress")
        session.todos("completed")
    elif roll < 0.65 and not shared:  # R8: cancel (ambiguous when several are current)
        seq = session.say(rng.choice(p.propose))
        session.accept(seq, 1)
        session.say(p.cancel)
        session.accept(seq, 2)
    elif roll < 0.75 and not shared:  # R9: the deadline passes before the next turn
        seq = session.say(p.deadline)
        session.accept(seq, 1)
        session.wait(3 * 3600)
        session.say(p.confirm)
        session.accept(seq, 2)
    else:  # R1, R10: noise changes nothing
        session.say(rng.choice(p.user_noise))
        session.say(rng.choice(p.assistant_noise), "assistant")
        session.say(rng.choice(("ok", "好的", "sure")))
        session.todos("completed", ok=False)


def _sessions(
    rng: random.Random, sessions: int, events_per_session: int, shared_share: float
) -> Iterator[tuple[_Session, bool]]:
    """Sessions grouped in solo and shared scopes, each filled to about its length."""
    made = 0
    scope_index = 0
    while made < sessions:
        shared = rng.random() < shared_share and sessions - made >= 2
        count = rng.randint(2, 3) if shared else 1
        count = min(count, sessions - made)
        scope = (f"agent-{scope_index % 3}", f"user-{scope_index}")
        live = [0]
        for k in range(count):
            phrases = EN if (scope_index + k) % 2 == 0 else ZH
            session = _Session(scope, f"s{scope_index}-{k}-{phrases.zone[:2].lower()}", phrases)
            while session.seq < events_per_session:
                _block(session, rng, shared=count > 1, live=live)
            made += 1
            yield session, count > 1
        scope_index += 1


def poison_entries(rng: random.Random, partitions: int, copies: int) -> list[Poison]:
    """`copies` of every kind of bad entry a gateway (or an attacker) can write."""
    out: list[Poison] = []
    for n in range(copies):
        scope = ("agent-poison", f"user-poison-{n}")
        p = partition_of(*scope, partitions)
        chat = stream_name(CHAT_TURN, p)
        good = envelope("chat_turn", scope, f"poison-{n}", 1, iso(0))
        good.update(role="user", text="hello", message_id=f"m-poison-{n}")
        undecodable = DeadLetterReason.UNDECODABLE
        violation = DeadLetterReason.CONTRACT_VIOLATION
        oversize = DeadLetterReason.OVERSIZE

        call = {**good, "type": "tool_call", "call_id": "c", "name": "x", "arguments": {"a": 0}}
        for key in ("role", "text", "message_id"):
            call.pop(key)
        # Free-form arguments nested past the interpreter's recursion limit.
        nested = encode(call).replace(b'{"a": 0}', b'{"a": ' + b"[" * 50_000 + b"]" * 50_000 + b"}")

        def data(document: Document) -> dict[str, bytes]:
            return {DATA_FIELD: encode(document)}

        kinds: list[tuple[str, str, dict[str, bytes], DeadLetterReason]] = [
            ("not_json", chat, {DATA_FIELD: b"\xff\xfe{not json"}, undecodable),
            ("no_data_field", chat, {"payload": encode(good)}, undecodable),
            ("deeply_nested", stream_name(TOOL_CALL, p), {DATA_FIELD: nested}, undecodable),
            ("truncated_json", chat, {DATA_FIELD: encode(good)[:-7]}, undecodable),
            ("missing_field", chat, data({k: v for k, v in good.items() if k != "seq"}), violation),
            ("wrong_type", chat, data({**good, "seq": "one"}), violation),
            ("unknown_role", chat, data({**good, "role": "narrator"}), violation),
            ("unknown_field", chat, data({**good, "mood": "happy"}), violation),
            ("unknown_zone", chat, data({**good, "timezone": "Mars/Olympus"}), violation),
            ("bad_ts", chat, data({**good, "ts": "yesterday"}), violation),
            ("wrong_stream", stream_name(TOOL_CALL, p), data(good), violation),
            ("oversize_text", chat, data({**good, "text": "x" * (65 * 1024)}), oversize),
            ("oversize_entry", chat, {DATA_FIELD: b" " * (257 * 1024) + encode(good)}, oversize),
        ]
        if partitions > 1:
            kinds.append(("wrong_partition", stream_name(CHAT_TURN, (p + 1) % partitions),
                          data(good), DeadLetterReason.WRONG_PARTITION))  # fmt: skip
        out.extend(Poison(kind, stream, fields, reason) for kind, stream, fields, reason in kinds)
        # A valid turn whose session key holds another type: its unit is uncommittable.
        stuck = {**good, "user_id": f"user-stuck-{n}", "session_id": f"stuck-{n}"}
        stuck_p = partition_of(stuck["agent_id"], stuck["user_id"], partitions)
        out.append(Poison(
            "uncommittable_unit", stream_name(CHAT_TURN, stuck_p), data(stuck),
            DeadLetterReason.UNCOMMITTABLE,
            session_key(stuck_p, stuck["agent_id"], stuck["user_id"], stuck["session_id"]),
        ))  # fmt: skip
    rng.shuffle(out)
    return out


def build(  # noqa: PLR0913  (the workload's knobs, keyword-only)
    *,
    seed: int,
    sessions: int,
    events_per_session: int,
    partitions: int,
    duplicate_rate: float = 0.05,
    window: int = 64,
    shared_share: float = 0.4,
    poison_copies: int = 2,
) -> Workload:
    rng = random.Random(seed)  # noqa: S311  (a reproducible workload, not cryptography)
    per_session: list[list[Document]] = []
    scopes: set[tuple[str, str]] = set()
    languages: dict[str, int] = {}
    for session, _shared in _sessions(rng, sessions, events_per_session, shared_share):
        per_session.append(session.documents)
        scopes.add(session.scope)
        language = "zh" if session.phrases is ZH else "en"
        languages[language] = languages.get(language, 0) + 1
    # Interleave: the next document of a random live session, as many chats at once.
    documents: list[Document] = []
    cursors = [0] * len(per_session)
    alive = list(range(len(per_session)))
    while alive:
        pick = rng.randrange(len(alive))
        index = alive[pick]
        documents.append(per_session[index][cursors[index]])
        cursors[index] += 1
        if cursors[index] == len(per_session[index]):
            alive[pick] = alive[-1]
            alive.pop()
    # Reorder within a window and write a share twice (a gateway retrying).
    keyed: list[tuple[float, int, Document | Poison]] = []
    for position, document in enumerate(documents):
        keyed.append((position + rng.uniform(0, window), len(keyed), document))
        if rng.random() < duplicate_rate:
            keyed.append((position + rng.uniform(0, 3 * window), len(keyed), document))
    for bad in poison_entries(rng, partitions, poison_copies):
        keyed.append((rng.uniform(0, len(documents)), len(keyed), bad))
    keyed.sort(key=lambda item: (item[0], item[1]))
    return Workload(
        partitions=partitions,
        documents=documents,
        writes=[item for _, _, item in keyed],
        sessions=len(per_session),
        scopes=len(scopes),
        languages=languages,
    )
