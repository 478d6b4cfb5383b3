"""The decoder's size limits hold whatever the entry's JSON spelling (R15 dead letters).

`contracts.codec` skips measuring a string when the whole entry is within that
string's limit; these tests pin the limits at the string's exact UTF-8 size, with
entries both smaller and larger than the limit, so a wrong shortcut would fail.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.codec import ContractError, Limits, decode_event
from contracts.common import Role, TodoStatus
from contracts.inputs import ChatTurn, InputEvent, TodoItem, ToolResult
from contracts.outputs import DeadLetterReason

_TS = datetime(2026, 1, 1, tzinfo=UTC)
# Characters JSON spells as escapes (longer than their UTF-8) or as their UTF-8 bytes.
_TEXT = st.text(
    alphabet=st.sampled_from(["a", "\n", '"', "\\", "\x01", "é", "约", "😀", "\u2028"]),
    max_size=40,
)


def _turn(text: str) -> bytes:
    turn = ChatTurn(
        agent_id="a", user_id="u", session_id="s", seq=1, ts=_TS, role=Role.USER,
        message_id="m", text=text,
    )  # fmt: skip
    return msgspec.json.encode(turn)


def _text_of(event: InputEvent) -> str:
    assert isinstance(event, ChatTurn)
    return event.text


@given(text=_TEXT)
def test_text_limit_is_the_decoded_utf8_size_for_any_spelling(text: str) -> None:
    """A text of exactly the limit passes and one byte over is oversize, for small and
    for escaped (longer) entries alike."""
    size = len(text.encode())
    raw = _turn(text)
    for limit in (size, size + len(raw)):
        assert _text_of(decode_event(raw, Limits(max_text_bytes=limit))) == text
    if size:
        with pytest.raises(ContractError) as caught:
            decode_event(raw, Limits(max_text_bytes=size - 1))
        assert caught.value.reason == DeadLetterReason.OVERSIZE
        assert caught.value.field == "$.text"


def test_text_limit_holds_when_escapes_make_the_entry_longer_than_the_limit() -> None:
    """`\\u00e9` escapes: the entry is far over the limit, the text (2 bytes each) is not."""
    text = "é" * 10
    raw = _turn(text).replace("é".encode(), b"\\u00e9")
    assert len(raw) > 60
    assert _text_of(decode_event(raw, Limits(max_text_bytes=20))) == text
    with pytest.raises(ContractError) as caught:
        decode_event(raw, Limits(max_text_bytes=19))
    assert caught.value.reason == DeadLetterReason.OVERSIZE


@given(content=_TEXT.filter(bool))
def test_todo_content_limit_is_the_decoded_utf8_size(content: str) -> None:
    """A todo item's content of exactly the limit passes, one byte less is oversize."""
    result = ToolResult(
        agent_id="a", user_id="u", session_id="s", seq=2, ts=_TS, call_id="c",
        name="todo_write", ok=True,
        todos=[TodoItem(content="x", status=TodoStatus.PENDING),
               TodoItem(content=content, status=TodoStatus.COMPLETED)],
    )  # fmt: skip
    raw = msgspec.json.encode(result)
    size = len(content.encode())
    for limit in (max(size, 1), size + len(raw)):
        decoded = decode_event(raw, Limits(max_todo_content_bytes=limit))
        assert isinstance(decoded, ToolResult)
    with pytest.raises(ContractError) as caught:
        decode_event(raw, Limits(max_todo_content_bytes=size - 1 if size > 1 else 0))
    assert caught.value.field in {"$.todos[1].content", "$.todos[0].content"}
    assert caught.value.reason == DeadLetterReason.OVERSIZE
