"""Every example in contracts/examples is valid for its published schema according to an
independent validator (jsonschema, Draft 2020-12, formats checked), round-trips through
msgspec unchanged, and every way of breaking it is rejected by both."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, ValidationError

from contracts.codec import decode_event
from contracts.inputs import InputEvent
from contracts.outputs import (
    OutputEvent,
    StateChanged,
    dead_letter_event_id,
    described,
    sealed,
    state_changed_event_id,
)
from contracts.schema import SUFFIX, WIRE_TYPE_BY_NAME, WIRE_TYPES, WireType
from tests.support.paths import EXAMPLES, SCHEMAS

INPUT_TYPES = {"chat_turn", "tool_call", "tool_result"}
UNIONS = {"input_event", "agreement_event", "output_event"}
OUTPUT_TYPES = {
    "state_changed",
    "tool_outcome",
    "clarification_requested",
    "proposal_refused",
    "claim_unverified",
    "dead_letter",
}
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.json"))


def _schema(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((SCHEMAS / f"{name}{SUFFIX}").read_text("utf-8"))
    return document


@cache
def _validator(name: str) -> Draft202012Validator:
    # Formats are annotations unless a checker is passed; with it (and rfc3339-validator
    # installed) a timestamp without an offset is rejected as msgspec rejects it.
    return Draft202012Validator(_schema(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


def _wire(path: Path) -> WireType:
    """`tool_outcome.rejected.json` is an example of `tool_outcome`."""
    return WIRE_TYPE_BY_NAME[path.name.split(".", 1)[0]]


def _decoding_type(wire: WireType) -> Any:
    """Events are decoded as the stream's union, as every consumer does: msgspec treats
    the tag of a single tagged Struct as optional, the union (and the schema) do not."""
    if wire.name in INPUT_TYPES:
        return InputEvent
    if wire.name in OUTPUT_TYPES:
        return OutputEvent
    return wire.type


def _load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return document


def test_every_published_type_has_an_example() -> None:
    """At least one example per concrete wire type, and no example of an unknown type."""
    covered = {path.name.split(".", 1)[0] for path in EXAMPLE_FILES}
    concrete = {wire.name for wire in WIRE_TYPES} - UNIONS
    assert concrete <= covered
    assert covered <= concrete


def test_both_seed_languages_have_examples() -> None:
    """The seed's scenarios appear in English and Chinese, as single events and sequences."""
    zh = [path for path in EXAMPLE_FILES if ".zh." in path.name]
    assert {_wire(path).name for path in zh} >= {"chat_turn", "tool_result", "state_changed"}
    assert (EXAMPLES / "scenarios" / "seed_en.jsonl").is_file()
    assert (EXAMPLES / "scenarios" / "seed_zh.jsonl").is_file()


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_is_valid_for_its_schema(path: Path) -> None:
    """An independent validator accepts the example against its own schema and, for
    events, against the union schema a subscriber of the stream would use."""
    document = _load(path)
    name = _wire(path).name
    _validator(name).validate(document)
    if name in INPUT_TYPES:
        _validator("input_event").validate(document)
    if name in OUTPUT_TYPES:
        _validator("output_event").validate(document)
    if name in OUTPUT_TYPES - {"dead_letter"}:
        _validator("agreement_event").validate(document)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_round_trips_through_msgspec(path: Path) -> None:
    """Decoding and re-encoding gives the same JSON document: the examples are exactly
    what accord emits (or, for inputs, what it reads)."""
    raw = path.read_bytes()
    wire = _wire(path)
    value = msgspec.json.decode(raw, type=wire.type, strict=True)
    again = msgspec.json.encode(value)
    assert json.loads(again) == json.loads(raw)
    assert msgspec.json.decode(again, type=wire.type) == value
    if wire.name in INPUT_TYPES:
        assert decode_event(raw) == value


@pytest.mark.parametrize(
    "path", [p for p in EXAMPLE_FILES if _wire(p).name in OUTPUT_TYPES], ids=lambda p: p.name
)
def test_output_example_event_id_follows_the_published_rule(path: Path) -> None:
    """State changes are `{record_id}@{revision}`, dead letters `dlq:{stream}:{entry_id}`,
    everything else `{session_id}#{seq}:{kind}`, each then `~` and the digest of its
    content: subscribers drop duplicates by id, and an id names one content (DESIGN 5)."""
    document = _load(path)
    event_id = document["event_id"]
    if document["type"] == "agreement.state_changed":
        assert described(event_id) == state_changed_event_id(
            document["record_id"], document["revision"]
        )
    elif document["type"] == "agreement.dead_letter":
        assert described(event_id) == dead_letter_event_id(document["stream"], document["entry_id"])
    else:
        assert described(event_id).startswith(f"{document['session_id']}#{document['seq']}:")
    event = msgspec.json.decode(path.read_bytes(), type=_wire(path).type)
    assert sealed(msgspec.structs.replace(event, event_id=described(event_id))) == event


def _admits(schema: dict[str, Any], defs: dict[str, Any], json_type: str) -> bool:
    """Whether a property schema admits some value of `json_type` (good enough here)."""
    if "$ref" in schema:
        return _admits(defs[schema["$ref"].removeprefix("#/$defs/")], defs, json_type)
    if "anyOf" in schema:
        return any(_admits(option, defs, json_type) for option in schema["anyOf"])
    if "enum" in schema:
        return json_type == "string" and any(isinstance(v, str) for v in schema["enum"])
    declared = schema.get("type")
    return declared is None or declared == json_type


def _root(schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        definition: dict[str, Any] = schema["$defs"][schema["$ref"].removeprefix("#/$defs/")]
        return definition
    return schema


def _broken_variants(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every required field dropped, every field given a value of a wrong JSON type,
    the tag set to an unknown kind, and, for strict types, an unknown field added."""
    name = _wire(path).name
    schema = _schema(name)
    root = _root(schema)
    defs = schema.get("$defs", {})
    document = _load(path)
    for field in root.get("required", []):
        broken = dict(document)
        del broken[field]
        yield f"without {field}", broken
    for field, field_schema in root["properties"].items():
        wrong: object = "not a boolean" if _admits(field_schema, defs, "boolean") else True
        yield f"{field} of a wrong type", {**document, field: wrong}
    if "type" in document:
        yield "unknown type tag", {**document, "type": "agreement.unknown_kind"}
    if root.get("additionalProperties") is False:
        yield "an unknown field", {**document, "surprise": 1}


BROKEN = [
    pytest.param(path, label, broken, id=f"{path.name}: {label}")
    for path in EXAMPLE_FILES
    for label, broken in _broken_variants(path)
]


@pytest.mark.parametrize(("path", "label", "broken"), BROKEN)
def test_broken_example_is_rejected_by_schema_and_msgspec(
    path: Path, label: str, broken: dict[str, Any]
) -> None:
    """The schema and the Structs agree on what is broken: both refuse it."""
    wire = _wire(path)
    assert not _validator(wire.name).is_valid(broken), label
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(json.dumps(broken), type=_decoding_type(wire), strict=True)


def _error_paths(errors: Iterable[ValidationError]) -> Iterator[str]:
    """Where each error points, looking inside `anyOf` (an optional field's errors sit
    in the context of the alternative that failed)."""
    for error in errors:
        yield error.json_path
        yield from _error_paths(error.context or ())


# Breaks deeper than the generic variants, each with the field both must blame.
NESTED: list[tuple[str, str, Any, str]] = [
    ("chat_turn.proposal.json", "ts", "2026-11-30T09:00:00", "$.ts"),
    ("chat_turn.proposal.json", "seq", 0, "$.seq"),
    ("chat_turn.proposal.json", "role", "moderator", "$.role"),
    ("chat_turn.proposal.json", "agent_id", "", "$.agent_id"),
    (
        "tool_result.todo_write.json",
        "todos",
        [{"content": "x", "status": "done"}],
        "$.todos[0].status",
    ),
    (
        "tool_result.todo_write.json",
        "todos",
        [{"content": "", "status": "pending"}],
        "$.todos[0].content",
    ),
    ("tool_outcome.rejected.json", "reason", "because", "$.reason"),
    ("state_changed.fulfilled.json", "binding", {"kind": "file", "path": "x"}, "$.binding.kind"),
    ("state_changed.proposed.json", "revision", 0, "$.revision"),
    (
        "session_view.pending.json",
        "pending_proposals",
        [{"record_id": "r"}],
        "$.pending_proposals[0]",
    ),
    ("accept_arguments.json", "expected_revision", "1", "$.expected_revision"),
    ("dead_letter.json", "reason", "bored", "$.reason"),
]


@pytest.mark.parametrize(("file_name", "field", "value", "where"), NESTED)
def test_nested_break_is_rejected_by_both_at_the_same_field(
    file_name: str, field: str, value: Any, where: str
) -> None:
    """A naive timestamp, seq 0, unknown enum values, a wrong binding kind: the validator's
    error path and msgspec's message point at the same place."""
    path = EXAMPLES / file_name
    wire = _wire(path)
    broken = {**_load(path), field: value}
    paths = list(_error_paths(_validator(wire.name).iter_errors(broken)))
    assert paths
    assert any(path.startswith(where) for path in paths), paths
    with pytest.raises(msgspec.ValidationError, match=re.escape(f"at `{where}")):
        msgspec.json.decode(json.dumps(broken), type=_decoding_type(wire), strict=True)


def test_state_changed_example_carries_the_binding_from_the_snapshot() -> None:
    """R11/R14: the fulfilled example's binding names the session and origin_seq of the
    todo snapshot in the same scenario, and its terms carry no receipt."""
    change = msgspec.json.decode(
        (EXAMPLES / "state_changed.fulfilled.json").read_bytes(), type=StateChanged
    )
    snapshot = _load(EXAMPLES / "tool_result.todo_write.json")
    assert change.binding is not None
    assert change.binding.origin_seq == snapshot["seq"]
    assert change.binding.session_id == snapshot["session_id"]
    assert change.binding.content in {item["content"] for item in snapshot["todos"]}
    assert change.to_state == "fulfilled"
    assert "todo_write" not in change.terms


# Only what JSON can carry: no NaN or infinities, no lone surrogates.
TEXT = st.text(st.characters(exclude_categories=["Cs"]))
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
    | st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_msgspec_accepts_the_schema_accepts(data: st.DataObject) -> None:
    """Property: replace any field of any example with any JSON value (or drop it); if
    accord's decoder accepts the document, the published schema accepts it too. A gateway
    that validates with the schema never refuses what accord would apply."""
    path = data.draw(st.sampled_from(EXAMPLE_FILES), label="example")
    wire = _wire(path)
    document = _load(path)
    field = data.draw(st.sampled_from(sorted(document)), label="field")
    if data.draw(st.booleans(), label="drop"):
        del document[field]
    else:
        document[field] = data.draw(JSON_VALUES, label="value")
    try:
        msgspec.json.decode(json.dumps(document), type=_decoding_type(wire), strict=True)
    except msgspec.ValidationError:
        return
    assert _validator(wire.name).is_valid(document), (path.name, field, document.get(field))
