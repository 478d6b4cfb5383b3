"""The store's memoised key names (store/loading.py `KeyNames`, built from a shared tail
for speed) are exactly the names store/keys.py defines, for any ids: a name built two
ways that differed would split one session's state over two keys (R15)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from store import keys
from store.loading import KeyNames

IDS = st.text(min_size=1, max_size=40)


@settings(max_examples=300, derandomize=True)
@given(st.integers(min_value=0, max_value=16383), IDS, IDS, IDS)
def test_memoised_names_are_the_names_store_keys_defines(
    partition: int, agent_id: str, user_id: str, session_id: str
) -> None:
    names = KeyNames(partition)
    scope = names.scope_names(agent_id, user_id)
    assert scope.scope == keys.scope_key(partition, agent_id, user_id)
    assert scope.view == keys.view_key(partition, agent_id, user_id)
    session = names.session(agent_id, user_id, session_id)
    assert session.key == keys.session_key(partition, agent_id, user_id, session_id)
    assert session.applied == keys.applied_field(session_id)
    assert session.parked == keys.parked_key(partition, agent_id, user_id, session_id)
    assert names.scope(agent_id, user_id) == scope.scope
    assert names.view(agent_id, user_id) == scope.view
