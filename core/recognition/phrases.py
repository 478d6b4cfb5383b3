"""The grammar of explicit agreement phrases (R1, R4, R8, R11), as regular expressions.

Every pattern runs on folded text, case-blind: NFKC has already turned full-width
punctuation into ASCII (U+FF1A into ":"), so the patterns name only the ASCII forms.
The README's "Recognized phrases" table is this module in prose; keep them together.
Where a phrase may appear (sentence start, outside quotations and code) and what
may follow it is decided in `recognizer.py`, not here.
"""

from __future__ import annotations

import enum
import re
from typing import Final, NamedTuple

from core.recognition.normalize import rstrip_decoration

APOSTROPHE: Final = "['\u2019\u2018`\u02bc]"

# Quotation pairs a target hint or todo content may be wrapped in.
QUOTE_PAIRS: Final = (
    ('"', '"'),
    ("“", "”"),
    ("「", "」"),
    ("『", "』"),
    ("\u2018", "\u2019"),
    ("'", "'"),
    ("«", "»"),
)


def quoted(name: str) -> str:
    """A quotation in any supported style; its content lands in group `{name}0..6`."""
    alternatives = (
        f"{re.escape(o)}(?P<{name}{i}>[^{re.escape(c)}\n]{{1,500}}?){re.escape(c)}"
        for i, (o, c) in enumerate(QUOTE_PAIRS)
    )
    return "(?:" + "|".join(alternatives) + ")"


def quoted_span(match: re.Match[str], name: str) -> tuple[int, int] | None:
    """Where the content of the quotation named `name` lies, if it matched."""
    groups = match.re.groupindex
    for index in range(len(QUOTE_PAIRS)):
        group = f"{name}{index}"
        if group in groups and match.start(group) >= 0:
            return match.start(group), match.end(group)
    return None


# The longest lead word with its punctuation and spaces: where LEAD_WORD_AT_END looks.
LEAD_WORD_REACH: Final = 40
# The longest closing courtesy: where TRAILING_COURTESY looks.
COURTESY_REACH: Final = 40


class Kind(enum.Enum):
    PROPOSAL = "proposal"
    ACCEPTANCE = "acceptance"
    CANCELLATION = "cancellation"
    AMENDMENT = "amendment"  # R17: new terms for an open agreement
    AMENDMENT_CANCELLATION = "amendment_cancellation"  # R17: withdraw a pending amendment


# Pattern tables: declarations alike by design (CONTRIBUTING.md, "Repeated shapes").
_FLAGS: Final = re.IGNORECASE
_EN_DETERMINER: Final = r"(?:this|the|that|our)"
_ZH_DETERMINER: Final = r"(?:这个|这项|这条|这份|该|此|那个|上面的|上面这个|我们的|咱们的)"
_ZH_SUBJECT: Final = r"(?:我们俩|咱们俩|我们|咱们|咱俩|我俩)"
_HINT_AFTER: Final = rf"(?:\s*[:]?\s*{quoted('hint')})?"
# The opening of a polite question that asks the agent to act (see zh.cancellation).
ZH_POLITE_ASK: Final = (
    r"(?:你|您)?(?:(?:能不能|能否|可不可以)\s*(?:帮我|替我|给我)?|(?:可以|能)\s*(?:帮我|替我|给我))"
)
# "Could you please cancel …", "Please could you cancel …": a request, whatever its
# question mark. The courtesy word is needed: "Can you cancel this agreement?" may ask
# whether it can be done.
_EN_PLEASE: Final = r"(?:please|pls|plz|kindly)"
EN_POLITE_ASK: Final = (
    rf"(?:{_EN_PLEASE}\s+(?:could|would|can|will)\s+you\s+(?:{_EN_PLEASE}\s+)?"
    rf"|(?:could|would|can|will)\s+you\s+{_EN_PLEASE}\s+)"
)
_ZH_AMEND_VERB: Final = r"(?:修改为|修改成|更改为|改成|改为|换成)"


# (kind, pattern). A proposal pattern ends where the terms begin.
class Phrase(NamedTuple):
    """One phrase pattern, and the words a turn must hold for it to be worth running."""

    kind: Kind
    # Every group needs one of its words in the lower-cased turn: a cheap filter that
    # skips most patterns (the full search costs microseconds each).
    needs: tuple[frozenset[str], ...]
    pattern: re.Pattern[str]
    # The rule id that explains a match (R16); stable, stored in history evidence.
    rule: str = ""
    # What every match starts with, lower-cased ("" if nothing fixed): the search
    # starts at its first occurrence instead of trying every earlier position.
    opens: str = ""


_PHRASES: Final[tuple[Phrase, ...]] = (
    Phrase(
        Kind.PROPOSAL,
        (frozenset({"let"}), frozenset({"agree"})),
        re.compile(
            rf"(?:let{APOSTROPHE}?s|let\s+us)\s+"
            r"(?:agree(?:\s+on\s+(?:this|the\s+following))?\s*[:]"
            rf"|agree\s+that\b(?!{APOSTROPHE})"
            # With "that" left out, as people say it, the terms must open with a
            # subject or a time word: the grammar in docs/recognizer.md.
            r"|agree\s+(?=(?:you|we|i|next\s+time|from\s+now\s+on|whenever|every|each"
            r"|always|going\s+forward|in\s+(?:the\s+)?future)\b)"
            r"|make\s+(?:an|this|the\s+following)\s+agreement\s*[:])",
            _FLAGS,
        ),
        "en.proposal",
        "let",
    ),
    Phrase(
        Kind.PROPOSAL,
        (frozenset({"约定"}),),
        # "我们约定的时间" (our agreed time), "约定了" / "约定过" (past) and the idiom
        # "约定俗成" are statements about something else, not proposals.
        re.compile(
            rf"{_ZH_SUBJECT}(?:来|就|先|现在|今天)?约定(?:一下|好)?(?:吧|哈|啊|呀|嘛)?"
            r"(?:\s*[:,]|(?![的了过吗么呢着是]|俗成|好了|好的|一下[了吗]))",
            _FLAGS,
        ),
        "zh.proposal",
    ),
    Phrase(
        Kind.ACCEPTANCE,
        (frozenset({"agreement"}), frozenset({"accept", "agree", "confirm"})),
        re.compile(
            r"i\s+(?:(?:also|hereby|now|do|fully)\s+)?(?:accept|agree\s+to|confirm)\s+"
            rf"(?:{_EN_DETERMINER}|your)\s+agreement\b{_HINT_AFTER}",
            _FLAGS,
        ),
        "en.acceptance",
    ),
    Phrase(
        Kind.ACCEPTANCE,
        (frozenset({"约定"}), frozenset({"接受", "同意", "确认"})),
        re.compile(
            r"(?:我(?:也|现在|正式|就|还是)?|(?<=还是))(?:接受|同意|确认)(?:了)?\s*"
            rf"(?:{quoted('lead')}\s*)?(?:{_ZH_DETERMINER}|你的|这一)?\s*约定{_HINT_AFTER}",
            _FLAGS,
        ),
        "zh.acceptance",
    ),
    Phrase(
        Kind.CANCELLATION,
        (frozenset({"cancel"}), frozenset({"agreement"})),
        re.compile(
            rf"(?:{EN_POLITE_ASK}"
            rf"|(?:please|pls|plz|kindly)\s+|i{APOSTROPHE}d\s+like\s+to\s+|let{APOSTROPHE}?s\s+|let\s+us\s+"
            r"|i\s+(?:(?:want|wish|would\s+like|need)\s+to\s+|hereby\s+)?)?"
            rf"cancel\s+(?:{_EN_DETERMINER}|my)\s+agreement\b{_HINT_AFTER}",
            _FLAGS,
        ),
        "en.cancellation",
    ),
    Phrase(
        Kind.CANCELLATION,
        (frozenset({"约定"}), frozenset({"取消"})),
        # A polite question is a request: "能不能帮我取消这个约定?", "你可以帮我取消…吗?"
        # (bare 可以 / 能 only with 帮我: "可以取消这个约定吗" may ask for permission).
        re.compile(
            rf"(?:{ZH_POLITE_ASK})?"
            r"(?:请|麻烦|我要|我想|我们|咱们|帮我|帮忙|替我|你|您|就)*取消(?:掉|一下)?\s*"
            rf"(?:{quoted('lead')}\s*|关于(?P<about>[^,;.!?。\n]{{1,40}}?)的(?:那个|这个)?)?"
            rf"{_ZH_DETERMINER}?\s*约定{_HINT_AFTER}",
            _FLAGS,
        ),
        "zh.cancellation",
    ),
    Phrase(
        Kind.CANCELLATION,
        (frozenset({"约定"}), frozenset({"作废", "取消"})),
        re.compile(
            rf"(?:{quoted('lead')}\s*{_ZH_DETERMINER}?|{_ZH_DETERMINER})\s*约定"
            rf"(?:\s*{quoted('hint')})?\s*(?:就)?(?:作废|取消)(?:掉)?",
            _FLAGS,
        ),
        "zh.cancellation.suffix",
    ),
    Phrase(
        Kind.CANCELLATION,
        (frozenset({"约定"}), frozenset({"作废", "取消"}), frozenset({"把", "将"})),
        re.compile(
            rf"(?:请|麻烦)?(?:把|将)\s*(?:{quoted('lead')}\s*)?{_ZH_DETERMINER}?\s*约定"
            rf"(?:\s*{quoted('hint')})?\s*(?:给)?(?:取消|作废)(?:掉)?",
            _FLAGS,
        ),
        "zh.cancellation.ba",
    ),
)

# R17: "Let's change our agreement: ...", "我们把约定改成...", and withdrawing one.
_AMENDMENT_PHRASES: Final[tuple[Phrase, ...]] = (
    Phrase(
        Kind.AMENDMENT,
        (
            frozenset({"let"}),
            frozenset({"agreement"}),
            frozenset({"change", "amend", "update", "revise", "modify"}),
        ),
        re.compile(
            rf"(?:let{APOSTROPHE}?s|let\s+us)\s+(?:change|amend|update|revise|modify)\s+"
            rf"{_EN_DETERMINER}\s+agreement(?:\s*{quoted('hint')})?\s*(?:[:]|\s+to\s*[:]?)",
            _FLAGS,
        ),
        "en.amendment",
        "let",
    ),
    Phrase(
        Kind.AMENDMENT,
        (frozenset({"约定"}), frozenset({"改成", "改为", "换成", "更改为"})),
        re.compile(
            rf"(?:{_ZH_SUBJECT})?(?:就)?(?:把|将)\s*(?:{quoted('lead')}\s*)?{_ZH_DETERMINER}?\s*约定"
            rf"(?:\s*{quoted('hint')})?\s*{_ZH_AMEND_VERB}\s*[:,]?",
            _FLAGS,
        ),
        "zh.amendment",
    ),
    Phrase(
        Kind.AMENDMENT_CANCELLATION,
        (frozenset({"cancel", "withdraw"}), frozenset({"change", "amendment"})),
        re.compile(
            rf"(?:please\s+|i{APOSTROPHE}d\s+like\s+to\s+|let{APOSTROPHE}?s\s+|let\s+us\s+"
            r"|i\s+(?:(?:want|wish|would\s+like|need)\s+to\s+)?)?"
            rf"(?:cancel|withdraw)\s+(?:{_EN_DETERMINER}|my)\s+(?:change|amendment)\b{_HINT_AFTER}",
            _FLAGS,
        ),
        "en.amendment_cancellation",
    ),
    Phrase(
        Kind.AMENDMENT_CANCELLATION,
        (frozenset({"取消", "撤回"}), frozenset({"修改", "更改", "改动"})),
        re.compile(
            r"(?:请|麻烦|我要|我想|我们|咱们|帮我)*(?:取消|撤回)(?:掉)?\s*"
            rf"(?:{quoted('lead')}\s*)?(?:这个|这次|这项|那个|该|此)?\s*(?:修改|更改|改动){_HINT_AFTER}",
            _FLAGS,
        ),
        "zh.amendment_cancellation",
    ),
)

PHRASES: Final[tuple[Phrase, ...]] = (*_PHRASES, *_AMENDMENT_PHRASES)

# The words of the one family that needs neither "agree" nor "约定" (withdrawing an
# amendment): the recognizer's fast path lets a turn holding one of them through.
WITHDRAW_WORDS: Final = ("change", "amendment", "修改", "更改", "改动", "改動")

# Pattern source -> rule id, for the evidence of a match (R16). Keyed by the source
# string, whose hash Python keeps: a compiled pattern hashes its whole program on
# every lookup (about a microsecond for these).
RULE_OF: Final[dict[str, str]] = {phrase.pattern.pattern: phrase.rule for phrase in PHRASES}

# Lead words: discourse markers, fillers, particles and labels of the user's own that
# may stand before a phrase, each with any separator after it (OK and a comma, Anyway
# and a dash, Update and a colon, 好的, 嗯那, 我想了想 and a comma before 还是, as in
# docs/recognizer.md). They stack (OK so anyway). An English one is a
# whole word; a Chinese one may follow any character (Chinese has no spaces), since
# what is left in front of it must itself be a lead-in. The table is the grammar's
# LEAD column (docs/recognizer.md).
LEAD_WORDS_EN: Final = (
    r"ok(?:ay)?|k|alright|all\s+right|so|then|well|great|good|fine|now|and|also|yes|yeah|yep"
    r"|sure|hi|hey|hello|actually|hmm+|um+|uh+|er+m?|oh|ah|right|thanks|thank\s+you"
    r"(?:\s+so\s+much)?|anyway|anyways|anyhow|honestly|frankly|seriously|basically|finally"
    r"|in\s+the\s+end|after\s+all|on\s+second\s+thoughts?|on\s+reflection|having\s+thought"
    r"\s+(?:about\s+)?it(?:\s+over)?|after\s+(?:sleeping\s+on\s+it|thinking\s+(?:about\s+)?it"
    r"(?:\s+over)?|(?:some|much)\s+thought)|thinking\s+about\s+it|to\s+be\s+clear|for\s+the"
    r"\s+record|just\s+to\s+confirm|you\s+know\s+what|by\s+the\s+way|btw|fwiw|please|pls|plz"
    r"|before\s+i\s+forget|before\s+i\s+go|one\s+more\s+thing|sorry|oh\s+and"
    r"|update|edit|note|ps|p\.s|fyi|decision|final\s+answer|conclusion|in\s+short|long\s+story"
    r"\s+short"
)
LEAD_WORDS_ZH: Final = (
    r"好的?|好吧|好啊|好呀|嗯+|那么?|那就|那好吧?|行吧?|行啊|算了|我还是|还是|对了|谢谢|多谢|感谢"
    r"|另外|还有|所以|啊|呀|呃|额|哦|噢|唉|哎|那个|总之|反正|其实|说实话|老实说|最后|最终|顺便"
    r"|话说回来|说真的|说实在的|顺便说一句|顺便说一下|顺便提一下|没问题|不好意思|抱歉|对不起"
    r"|我想了想|想了想|我想了一下|想了一下|我考虑了一下|考虑了一下|仔细想了想|我决定|决定了"
    r"|更新|补充|结论|总结"
)
LEAD_WORD_AT_END: Final = re.compile(
    rf"(?:(?:^|(?<=[\s.!?。…,;:、\u2014\u2013\-(\"]))(?:{LEAD_WORDS_EN})|{LEAD_WORDS_ZH})"
    r"[\s,、!.。~:;…\u2014\u2013\-]*\Z",
    _FLAGS,
)

# What may follow an acceptance or cancellation in its sentence: courtesy words and
# particles. Anything else ("..., but only if", "吗") leaves the phrase unrecognized.
COURTESY: Final = re.compile(
    r"\b(?:please|pls|plz|now|thanks|thx|ty|thank\s+you|too|as\s+well|again)\b|谢谢|多谢"
    r"|[了啦哈哦吧呀啊嘛呐哟喔噢咯嘞呗~]",
    _FLAGS,
)

# A closing sentence or clause of pure courtesy is not part of the terms: "... Thanks!",
# "...。谢谢!", "..., 谢谢"
# Every closing courtesy holds one of these (caseless): a substring test skips the
# search in most turns.
COURTESY_WORDS: Final = ("thank", "thx", "cheer", "谢", "辛苦")
TRAILING_COURTESY: Final = re.compile(
    r"(?<=[.!。,])\s*(?:thanks?(?:\s+you)?(?:\s+so\s+much)?|thx|cheers|谢谢(?:你|您)?|多谢|谢啦|辛苦了?)"
    r"[\s.!。~…]*\Z",
    _FLAGS,
)

PARAGRAPH_BREAK: Final = re.compile(r"\n[ \t]*\n")

# A turn ending like this asks rather than states (checked on the end only: a
# suffix test, not a regex scan of the whole turn).
_QUESTION_TAILS: Final = (
    "?", "吗", "呢", "好不好", "行不行", "可不可以", "怎么样", "如何", "对吧", "是吧", "对不对",
    "是不是", "要不要", "能不能", "成不成",
)  # fmt: skip
_NOT_A_QUESTION_ME: Final = ("什么", "怎么", "那么", "这么", "多么")
_AFTER_QUESTION: Final = " \t\r\n.。!~…\"”」』\u2019')]"


def ends_as_question(text: str, start: int = 0, stop: int | None = None) -> bool:
    """Whether text[start:stop] ends as a question, closing punctuation aside."""
    tail = rstrip_decoration(text[start:stop], _AFTER_QUESTION)
    if tail.endswith(_QUESTION_TAILS):
        return True
    return tail.endswith("么") and not tail.endswith(_NOT_A_QUESTION_ME)


# "Let's agree to disagree" and its "that" form are an idiom for *not* agreeing.
DISAGREE: Final = re.compile(
    rf"(?:we(?:\s+|{APOSTROPHE}ll\s+))?(?:(?:can|will|shall|just|simply)\s+)?(?:to\s+)?disagree\b",
    _FLAGS,
)


def caseless(text: str) -> str:
    """Folded text as the case-insensitive patterns see it, for substring tests.

    A pattern with IGNORECASE also takes a dotless i (U+0131) and a dotted capital I
    (U+0130, which lower-cases to "i" and a combining dot) for an "i". With those
    mapped, every match of a word here holds that word in `caseless(text)`, so a
    substring test can stand in front of the pattern (tested over every character).
    """
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    return lowered.replace("\u0131", "i").replace("\u0307", "")


# Terms about the past ("Let's agree that was a mistake") acknowledge; they set nothing.
# Every match of PAST_TERMS holds one of these (caseless).
PAST_WORDS: Final = ("was", "were", "had", "did")
PAST_TERMS: Final = re.compile(
    r"(?:(?:it|that|this|he|she|they|we|you|i)\s+)?(?:was|were|had\s+been|did)\b", _FLAGS
)

# Chinese asks without a question mark: "我们约定几点见面" is a question about a time.
ZH_INTERROGATIVE: Final = re.compile(
    r"几点|几号|什么|哪里|哪儿|哪个|哪天|谁|怎么|为什么|多少|多久|何时|几时|是否"
)

# "我们约定" also narrates: "去年我们吵了一架。我们约定以后不再提。" A past-time word
# before a Chinese proposal phrase makes it a story, not a proposal.
ZH_NARRATIVE: Final = re.compile(
    r"昨天|前天|去年|前年|上次|上周|上个月|当时|那天|那时|后来|小时候|曾经|那年"
)

# R11: the terms ask to *mark* a named todo as completed. "Finish todo X" and
# "完成待办X" name work, not the state change the todo adapter can verify.
# Each with a word every match holds (caseless): most terms lack it, and a substring
# test skips the pattern.
TODO_TARGETS: Final = (
    (
        "mark",
        re.compile(
            r"\bmark\s+(?:the\s+|my\s+)?(?:todo|to-do)(?:\s+item)?\s*[:]?\s*"
            rf"{quoted('todo')}\s*(?:as\s+)?(?:completed|complete|done)\b",
            _FLAGS,
        ),
    ),
    (
        "完成",
        re.compile(
            r"(?:把|将)\s*(?:(?:待办|待办事项|待办项|todo)\s*"
            rf"{quoted('todo')}|{quoted('todo_after')}\s*(?:这个|这项|这条)?\s*(?:待办|待办事项|待办项))"
            r"\s*(?:标记|标注|标)\s*(?:为|成)\s*(?:已)?完成",
            _FLAGS,
        ),
    ),
)
NEGATED_BEFORE: Final = re.compile(
    rf"(?:\bdon{APOSTROPHE}?t|\bdo\s+not|\bnever|\bnot|不要|别|不用|无需|不必|不)\s*\Z", _FLAGS
)


# A confirmation or cancellation may open a clause after a reason ("这周事情太多, 取消这个
# 约定吧", "This doesn't help me anymore, cancel this agreement"), but not after a
# condition or someone else's words ("If it rains, cancel …", "他说, 取消这个约定").
# A lead-in clause may give a reason ("这周事情太多, 取消这个约定吧", "This week was
# hard for me: I accept this agreement"), but not a condition or hypothesis, someone else's
# words, a hedge, a memory or a report of the past, a question, or a bare negation
# ("If it rains, cancel …", "他说, 取消这个约定", "Yesterday, I accept …", "Not yet: …").
CLAUSE_GUARD: Final = re.compile(
    # conditions and hypotheses
    r"\b(?:if|unless|when|whenever|once|as\s+soon\s+as|after(?!\s+\w+ing\b)|before|until|till"
    r"|suppose|supposing|assuming|imagine|pretend|provided|whether|in\s+case|otherwise|or\s+else"
    r"|hypothetically|in\s+theory|theoretically"
    # someone else's words, examples, text to work on
    r"|said|says|say|saying|told|tell|tells|telling|asked|asks|asking|wrote|writes|writing"
    r"|written|according|quote|quoted|quoting|texted|texting|messaged|emailed|replied"
    r"|answered|responded|posted|tweeted|commented|mentioned|claimed|claims|shouted|yelled"
    r"|goes|went|repeating|repeats|repeated"
    r"|forwarded|proposed|suggested|for\s+example|for\s+instance|example|e\.g|translate"
    r"|translation|repeat|template|sample"
    # hedges, memory and the past, bare negations
    r"|maybe|perhaps|might|should|would|could|shall|remember|recall|yesterday|ago"
    r"|last\s+(?:time|night|week|month|year)|back\s+then|not\s+(?:yet|now|really)|never"
    r"|no\s+way)\b"
    r"|如果|要是|假如|假设|万一|除非|只要|一旦|的话|等到|时候|以后|之后|否则|不然|理论上"
    r"|说|问|告诉|写|据|讲|表示|提到|回复|回答|发来|转发|提议|建议|比如|例如|举例|举个例子|翻译"
    r"|重复|模板|示例|是否|也许|或许|可能|应该"
    r"|记得|想起|昨天|前天|去年|上次|上周|上个月|当时|那天|那时|曾经|还没|吗|呢"
    r"|^\W*(?:不|别|不要|不是)",
    _FLAGS,
)
# The part of a lead-in before a colon or dash is a speaker label when it names a role
# or is a bare name ("Assistant: OK, I accept …", 助手 and a colon, "Bob — cancel …"):
# the words after it are that speaker's, reported (R1).
LEAD_IN_LABEL_END: Final = re.compile(r"\s*(?::|[\u2014\u2013]+|\s-{1,2})\s*")
SPEAKER_ROLE: Final = re.compile(
    r"\b(?:ai|assistant|bot|chatbot|agent|model|system|user|human|gpt|chatgpt|claude|gemini"
    r"|copilot|llm|customer|support|admin|moderator|operator|he|she|they)\b"
    r"|助手|用户|系统|机器人|客服|管理员|模型|智能体|对方|他|她",
    _FLAGS,
)
# A role in brackets opening the clause is a label too: "[assistant] 好的, …", "【助手】…".
BRACKETED_LABEL: Final = re.compile(r"[\s*_]*[\[【(<]\s*([^\]】)>\n]{1,40}?)\s*[\]】)>]")
# A bare name: one word, two capitalised words, or up to four Chinese characters.
SPEAKER_NAME: Final = re.compile(
    r"[*_\[(\s]*(?:[A-Za-z][\w.'-]*|[A-Z][\w.'-]*\s+[A-Z][\w.'-]*|[^\x00-\x7f]{1,4})[*_\])\s]*"
)
# A forwarded or quoted message's header: everything after it is somebody else's text.
FORWARDED_WORDS: Final = ("forward", "original message", "转发", "原始邮件")
FORWARDED_HEADER: Final = re.compile(
    r"^[ \t>*_-]*(?:begin\s+forwarded\s+message|-{2,}\s*(?:forwarded|original)\s+message"
    r"|(?:forwarded|original)\s+message\s*-{2,}|转发的?(?:消息|邮件|内容)|-{2,}\s*原始邮件)",
    re.IGNORECASE | re.MULTILINE,
)
# A Chinese proposal after a clause in the perfective narrates ("我们吵了一架, 我们约定…").
# Not the 了 of 为了, 除了, 罢了, 算了 or 了解, nor the 过 of 不过, 通过, 经过, 超过, 难过.
ZH_PERFECTIVE: Final = re.compile(r"(?<![为除罢算])了(?!解)|(?<![不通经超难越])过")

# A clause after a confirmation or cancellation may give a reason ("…, this doesn't help
# me anymore", "…, 算了吧"), but not a condition, a contrast, a hedge or a retraction.
TAIL_REFUSED: Final = re.compile(
    r"\s*(?:(?:but|only|if|unless|as\s+long\s+as|so\s+long\s+as|provided|except|when|once"
    r"|after|until|till|on\s+condition|in\s+case|or|maybe|perhaps|probably|i\s+guess"
    r"|i\s+think|not|never|no(?!\s+(?:problem|worries)\b)|nah|nope|wait|scratch\s+that|though"
    r"|although|however|jk|lol"
    r"|haha)\b"
    r"|但|不过|可是|然而|只要|如果|要是|假如|除非|前提|等|之后|以后|然后再|或者|也许|或许|可能|大概"
    r"|不对|算了不|还是别|还是不)"
    r"|.*(?:kidding|joking|\bjoke\b|\blol\b|haha|开玩笑|逗你|说着玩|不是真的|哈哈)",
    _FLAGS,
)

# An act taken back in its own sentence, after a comma or run on: "I accept this
# agreement, I don't accept it", "我接受这个约定我不接受". Only the same act negated: a
# cancellation's reason may well disagree (我不同意了) and an acceptance's may not need
# something ("I don't need a reminder").
_NEGATED: Final = (
    r"\b(?:(?:do|does|did|will|would|can|could|should)\s*n[o']?t|don'?t|won'?t|can'?t"
    r"|not|never)\s+(?:{en})"
)
_ZH_NEGATED: Final = r"(?:不|别|没|不要|不想|不能|没有)(?:{zh})"
ACT_TAKEN_BACK: Final[dict[Kind, re.Pattern[str]]] = {
    Kind.ACCEPTANCE: re.compile(
        _NEGATED.format(en=r"accept|agree|confirm")
        + r"|\bchanged?\s+my\s+mind\b|"
        + _ZH_NEGATED.format(zh="接受|同意|答应|确认")
        + "|反悔",
        _FLAGS,
    ),
    Kind.CANCELLATION: re.compile(
        _NEGATED.format(en=r"cancel")
        + r"|\bchanged?\s+my\s+mind\b|"
        + _ZH_NEGATED.format(zh="取消")
        + "|还是(?:别|不)",
        _FLAGS,
    ),
}

# "Please cancel the agreement about the report": an unquoted hint naming the subject.
ABOUT_HINT: Final = re.compile(
    r"\s*(?:about|regarding|concerning|on|re:?)\s+(?:(?:the|my|our|that|this)\s+)?"
    r"(?P<about>\w[^,;:!?\n]{0,60}?)\s*\Z",
    _FLAGS,
)

# The sentence right after a phrase may ask about it or take it back: "Let's agree: X.
# OK?", "...。好吗?", "Cancel this agreement. Just kidding!"
_EN_TAG: Final = (
    r"ok(?:ay)?|right|agreed|deal|yes|sounds?\s+good|good|fine|alright|all\s+right"
    r"|what\s+do\s+you\s+(?:think|say)|how\s+about\s+(?:it|that|this)|works?\s+for\s+you"
    r"|(?:does|would|will|is|can)\s+(?:that|this|it)\b"
    r"|(?:do|would|will|can|could)\s+you\s+(?:agree|accept|do\s+(?:that|this|it)|live\s+with)"
    r"|are\s+you\s+(?:ok|okay|fine|good|happy)\s+with"
)
_ZH_TAG: Final = (
    r"好吗|好不好|好么|行吗|行不行|行不|行么|可以吗|可不可以|可以不|可以么|怎么样|如何|成吗|同意吗|同意不"
    r"|你看(?:呢|怎么样|如何|行吗|可以吗)|你觉得(?:呢|怎么样|如何|可以吗|行吗|好吗)|对吧|是吧"
    r"|没问题吧|能做到吗"
)
_TAKEN_BACK: Final = (
    r"(?:actually\s+)?(?:no(?!\s+(?:problem|worries)\b)|not|nah|nope)\b|wait\b|never\s*mind|scratch\s+that|just\s+kidding|kidding|joking|jk\b"
    r"|haha|lol\b|等等|等一下|开玩笑|逗你|哈哈|不对|还是算了|算了不"
)
NEXT_SENTENCE_ASKS: Final = re.compile(
    rf"\s*(?:(?:{_EN_TAG})[^.!?。\n]{{0,40}}?\s*\?|(?:{_ZH_TAG})\s*\??(?=[\s.!。…]|\Z)"
    rf"|{_TAKEN_BACK})",
    _FLAGS,
)

# "我们约定见面的地点", "我们约定好明天在咖啡馆碰头": 约定 run straight into a meeting is
# people fixing a time or place to meet, not an agreement between user and agent.
ZH_MEETING: Final = re.compile(
    r"(?:一下)?(?:时间|地点|日期|地方|在哪|.*?(?:见面|碰面|会面|碰头|聚会|集合|会合|相见|约会))"
)
