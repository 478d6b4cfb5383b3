"""What the fuzz tests share: how many examples to run, and hostile-input strategies.

`ACCORD_FUZZ_EXAMPLES` sets the examples per fuzz test (CI runs the default; the full
run in docs/reliability.md sets it so the fuzz tests together pass 100,000 inputs).
"""

# ruff: noqa: RUF001  (full-width and look-alike characters are the point of these fragments)
from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

DEFAULT_EXAMPLES = 1_000


def fuzz_settings(share: float = 1.0) -> settings:
    """Examples per test from the environment; no deadline (2 loaded cores)."""
    examples = int(os.environ.get("ACCORD_FUZZ_EXAMPLES") or DEFAULT_EXAMPLES)
    return settings(
        max_examples=max(1, int(examples * share)),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# Text that reaches the recognizer's and the deadline grammar's interesting corners:
# trigger phrases and their look-alikes, quotes and code fences, numerals, CJK, NFKC
# traps (full-width forms, ligatures, combining marks), controls and surrogate-free noise.
FRAGMENTS = (
    "Let's agree:", "let us agree", "We agree that", "我们约定：", "我们约定", "约定",
    "I accept this agreement", "我接受这个约定", "Cancel this agreement", "取消这个约定",
    'mark todo "Organize reading notes" as completed', "把待办「整理读书笔记」标记为完成",
    "within", "2 hours", "三天内", "两周内", "一个月之内", "by Friday", "next Friday",
    "下周五前", "明晚8点前", "before 14:30", "by 8pm", "end of the month", "月底前",
    "today", "tonight", "tomorrow", "今天", "明天", "后天", "周末", "never", "always",
    '"', "'", "“", "”", "「", "」", "`", "```", "> ", "\n", " ", ":", "：", "。", ".",
    "?", "？", "not", "don't", "不", "remember", "记住", "ok", "好的", "ＡＧＲＥＥ", "ﬀ",
    "e\u0301", "\u200b", "\u202e", "0", "12", "99999999999999999999", "-1", "十二", "二十",
)  # fmt: skip

hostile_text = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=24).map("".join),
)

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=40),
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
