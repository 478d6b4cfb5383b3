"""accord's wire contracts: every type that crosses a stream, as msgspec Structs.

Schema evolution follows msgspec's rules: a new field needs a default, a field's
type never changes, a tag value is never reused.
"""
