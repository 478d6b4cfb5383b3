"""accord's wire contracts: every type that crosses a stream, as msgspec Structs.

Schema evolution follows msgspec's rules: a new field needs a default, a field's
type never changes, a tag value is never reused.
"""

# The version of the wire contracts, and so of the client libraries built on them (the
# Python client in clients/python and the TypeScript client in clients/typescript carry
# it; scripts/sync_client.py --check keeps them equal). A new optional field raises the
# minor number, a change a reader of the previous version cannot read raises the major.
CONTRACTS_VERSION = "0.3.0"
