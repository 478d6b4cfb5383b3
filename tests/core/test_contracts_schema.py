"""The published JSON Schemas: generated from the Structs, one self-contained 2020-12
document per wire type, committed under contracts/schemas and kept current."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import typer
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from contracts.common import MAX_SEQ
from contracts.schema import (
    DIALECT,
    ID_PREFIX,
    SUFFIX,
    WIRE_TYPES,
    render,
    schema_documents,
    stale_schemas,
    write_schemas,
)
from tests.support.paths import ROOT, SCHEMAS
from worker.commands import register

COMMITTED = SCHEMAS
DOCUMENTS = schema_documents()


def test_committed_schemas_are_current() -> None:
    """Regenerating gives byte-identical files and nothing extra: the schemas follow the
    Structs (regenerate with `accord schema --out contracts/schemas`)."""
    assert stale_schemas(COMMITTED) == []
    assert sorted(p.name for p in COMMITTED.iterdir()) == sorted(DOCUMENTS)


def test_one_document_per_wire_type() -> None:
    """Every input, output, view, record and tool-argument type is published, once."""
    assert sorted(DOCUMENTS) == sorted(wire.name + SUFFIX for wire in WIRE_TYPES)
    names = {wire.name for wire in WIRE_TYPES}
    assert {"chat_turn", "tool_call", "tool_result", "input_event"} <= names
    assert {"state_changed", "tool_outcome", "clarification_requested"} <= names
    assert {"proposal_refused", "dead_letter", "output_event"} <= names
    assert {"session_view", "agreement_record", "history_entry", "accept_arguments"} <= names


@pytest.mark.parametrize("file_name", sorted(DOCUMENTS))
def test_document_is_a_valid_2020_12_schema_with_dialect_and_id(file_name: str) -> None:
    """Each document validates against the 2020-12 meta-schema and names itself."""
    document = DOCUMENTS[file_name]
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == DIALECT
    assert document["$id"] == ID_PREFIX + file_name.removesuffix(SUFFIX)
    assert document["title"]
    assert document["description"]


def _refs(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


@pytest.mark.parametrize("file_name", sorted(DOCUMENTS))
def test_document_is_self_contained(file_name: str) -> None:
    """Every `$ref` points into the document's own `$defs`, and every definition is used:
    one file validates an event, no resolver or network needed."""
    document = DOCUMENTS[file_name]
    refs = set(_refs(document))
    assert all(ref.startswith("#/$defs/") for ref in refs)
    defined = set(document.get("$defs", {}))
    assert {ref.removeprefix("#/$defs/") for ref in refs} == defined


def test_ids_are_unique() -> None:
    """No two documents claim the same `$id` (a bundler would silently merge them)."""
    ids = [document["$id"] for document in DOCUMENTS.values()]
    assert len(ids) == len(set(ids))


def test_decoder_constraints_appear_in_the_schema() -> None:
    """msgspec's constraints are published: seq within 1..2**53-1, ids non-empty and
    bounded, inputs closed to unknown fields, outputs open to new ones (evolution)."""
    turn: dict[str, Any] = DOCUMENTS["chat_turn.schema.json"]
    seq = turn["properties"]["seq"]
    assert (seq["minimum"], seq["maximum"]) == (1, MAX_SEQ)
    assert turn["properties"]["agent_id"]["minLength"] == 1
    assert turn["additionalProperties"] is False
    assert "timezone" in turn["$comment"]
    changed: dict[str, Any] = DOCUMENTS["state_changed.schema.json"]
    assert "additionalProperties" not in changed
    assert changed["properties"]["type"] == {"enum": ["agreement.state_changed"]}


def _tags(document: dict[str, Any]) -> list[str]:
    """The `type` tag of each member of a union document."""
    tags = []
    for member in document["anyOf"]:
        definition = document["$defs"][member["$ref"].removeprefix("#/$defs/")]
        [tag] = definition["properties"]["type"]["enum"]
        tags.append(tag)
    return tags


def test_union_documents_dispatch_on_the_type_tag() -> None:
    """The stream-level documents list every member, each fixed to its own `type` tag, so
    exactly one member matches any event."""
    assert _tags(DOCUMENTS["input_event.schema.json"]) == ["chat_turn", "tool_call", "tool_result"]
    outputs = _tags(DOCUMENTS["output_event.schema.json"])
    assert len(outputs) == len(set(outputs)) == 6
    assert "agreement.dead_letter" in outputs
    assert set(_tags(DOCUMENTS["agreement_event.schema.json"])) == set(outputs) - {
        "agreement.dead_letter"
    }


# The 2020-12 keywords the documents may use. Strict validators (ajv's default mode)
# refuse to compile a schema with any other keyword, msgspec's OpenAPI `discriminator`
# for one: a gateway in another language must be able to load these files as they are.
KEYWORDS = {
    "$schema", "$id", "$ref", "$defs", "$comment", "title", "description", "default",
    "type", "enum", "const", "properties", "required", "additionalProperties", "items",
    "prefixItems", "anyOf", "oneOf", "minimum", "maximum", "minLength", "maxLength",
    "minItems", "maxItems", "format", "pattern",
}  # fmt: skip


def _keywords(node: object, *, names: bool = False) -> Iterator[str]:
    """Every keyword used in a schema. The keys of `properties` and `$defs` are names,
    and the values of `default`, `enum` and `const` are data, not schemas."""
    if isinstance(node, dict):
        for key, value in node.items():
            if not names:
                yield key
                if key in {"default", "enum", "const"}:
                    continue
            yield from _keywords(value, names=key in {"properties", "$defs"} and not names)
    elif isinstance(node, list):
        for value in node:
            yield from _keywords(value)


@pytest.mark.parametrize("file_name", sorted(DOCUMENTS))
def test_document_uses_only_json_schema_2020_12_keywords(file_name: str) -> None:
    """No vendor keyword: the document loads in strict validators of any language."""
    used = set(_keywords(DOCUMENTS[file_name]))
    assert used <= KEYWORDS, used - KEYWORDS
    assert "discriminator" not in used


def test_stale_schemas_reports_missing_changed_and_extra_files(tmp_path: Path) -> None:
    """The currency check notices each way a directory can drift from the Structs."""
    assert len(stale_schemas(tmp_path / "absent")) == len(DOCUMENTS)
    write_schemas(tmp_path)
    assert stale_schemas(tmp_path) == []
    changed = tmp_path / "chat_turn.schema.json"
    changed.write_text(render({**DOCUMENTS["chat_turn.schema.json"], "title": "Old"}), "utf-8")
    (tmp_path / "tool_call.schema.json").unlink()
    (tmp_path / "retired.schema.json").write_text("{}", "utf-8")
    assert stale_schemas(tmp_path) == [
        "chat_turn.schema.json",
        "tool_call.schema.json",
        "retired.schema.json",
    ]


def _app() -> typer.Typer:
    # A fresh app per test: registering twice on the shared one would duplicate commands.
    app = typer.Typer()
    register(app)
    return app


def test_schema_command_writes_the_committed_files(tmp_path: Path) -> None:
    """`accord schema --out DIR` writes exactly the committed documents."""
    out = tmp_path / "schemas"
    result = CliRunner().invoke(_app(), ["schema", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == sorted(DOCUMENTS)
    for path in out.iterdir():
        assert path.read_bytes() == (COMMITTED / path.name).read_bytes()
        json.loads(path.read_text("utf-8"))


def test_schema_command_check_fails_on_a_stale_directory(tmp_path: Path) -> None:
    """`--check` exits 0 on a current directory and 1 naming the stale file otherwise."""
    runner, app = CliRunner(), _app()
    assert runner.invoke(app, ["schema", "--out", str(tmp_path)]).exit_code == 0
    current = runner.invoke(app, ["schema", "--out", str(tmp_path), "--check"])
    assert current.exit_code == 0, current.output
    (tmp_path / "dead_letter.schema.json").write_text("{}\n", "utf-8")
    stale = runner.invoke(app, ["schema", "--out", str(tmp_path), "--check"])
    assert stale.exit_code == 1
    assert "dead_letter.schema.json" in stale.output


def _structs(info: msgspec.inspect.Type) -> Iterator[msgspec.inspect.StructType]:
    """Every Struct reachable from a type, depth first (the types are not recursive)."""
    if isinstance(info, msgspec.inspect.StructType):
        yield info
        for field in info.fields:
            yield from _structs(field.type)
    elif isinstance(info, msgspec.inspect.UnionType):
        for member in info.types:
            yield from _structs(member)
    elif isinstance(info, (msgspec.inspect.VarTupleType, msgspec.inspect.ListType)):
        yield from _structs(info.item_type)


def test_contracts_doc_names_every_type_and_field() -> None:
    """docs/contracts.md describes every Struct on the wire and each of its fields, so the
    prose cannot silently fall behind the Structs."""
    doc = (ROOT / "docs" / "contracts.md").read_text("utf-8")
    seen = set()
    for wire in WIRE_TYPES:
        for struct in _structs(msgspec.inspect.type_info(wire.type)):
            seen.add(struct.cls.__name__)
            assert f"**{struct.cls.__name__}**" in doc, struct.cls.__name__
            for field in struct.fields:
                assert f"`{field.name}`" in doc, f"{struct.cls.__name__}.{field.name}"
    # The walk reaches nested parts, not only the top-level types.
    assert {"TodoItem", "Candidate", "Provenance", "TodoBinding", "PendingProposal"} <= seen
