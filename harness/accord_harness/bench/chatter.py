"""Everyday chat of real length for the production-shape benchmark.

Written for this project (no outside corpus): English user turns of 40-200 characters
and Chinese ones of 15-80, the assistant's answers alike, about plans, reading, travel
and work, as a chat gateway sees them. None holds an agreement phrase or a claim
(`as we agreed`, `I've finished`, `我们约定`, `已经完成了` ...), so every one is an
ordinary turn that the recognizer reads in full and finds nothing in, the common case
of a live deployment. tests/e2e/test_bench_small.py checks both facts.
"""

# ruff: noqa: RUF001, E501, ISC004  (full-width punctuation on purpose; one line per turn)
from __future__ import annotations

EN_USER = (
    "Could you help me plan the week? I have three deadlines and a dentist appointment on Thursday.",
    "I read the first two chapters last night, and the argument about habits felt a bit thin to me.",
    "What would be a good way to split a 40-minute run into intervals for a beginner like me?",
    "My manager asked for a one-page summary of the project status by the end of the day.",
    "Can you suggest a vegetarian dinner that takes less than half an hour and uses spinach?",
    "The train to the airport was delayed again, so I'm thinking about booking an earlier one next time.",
    "I keep forgetting to drink water during long meetings; any small tricks that actually work?",
    "Please explain the difference between a mutex and a semaphore with a simple example from daily life.",
    "We're moving the offsite to March, and I need to tell twelve people without starting a long thread.",
    "Honestly the draft reads fine, but the introduction repeats the same point in three different ways.",
)
EN_ASSISTANT = (
    "Here's a rough plan: put the two hardest deadlines on Monday and Tuesday mornings, keep Wednesday "
    "for reviews, and leave Thursday light around the appointment.",
    "That's a fair criticism. The author leans on anecdotes there; the later chapters bring more data.",
    "A simple start is five minutes of walking, then alternate two minutes of easy running with one "
    "minute of walking, and end with five minutes of walking.",
    "Let's keep it to three parts: what shipped, what is at risk and why, and what you need from others.",
    "A quick option is a spinach and chickpea curry with garlic, tomatoes and rice; about 25 minutes.",
    "An earlier train gives you a buffer; checking the operator's app the evening before helps too.",
)
ZH_USER = (
    "你能帮我安排一下这周的计划吗？周四下午还要去看牙医。",
    "昨晚读完了前两章，感觉作者关于习惯的论证有点单薄。",
    "老板让我今天下班前交一页项目进度总结，我该从哪里写起？",
    "有没有半小时内能做好的素菜？家里只剩菠菜和豆腐了。",
    "去机场的火车又晚点了，下次我想订早一班的。",
    "开长会的时候总是忘记喝水，有什么简单好用的小办法吗？",
    "能不能用生活里的例子解释一下互斥锁和信号量的区别？",
    "团建改到三月了，我得通知十二个人，又不想在群里刷屏。",
)
ZH_ASSISTANT = (
    "可以把最难的两件事放在周一和周二上午，周三留给复盘，周四围绕看牙医安排得轻松一些。",
    "这个批评很中肯，那一章主要靠故事支撑，后面几章的数据会多一些。",
    "可以按三部分写：已经交付的内容、有风险的地方和原因、需要别人配合的事项。",
    "菠菜豆腐汤就很快：豆腐切块煮开，放菠菜和少许盐，十五分钟左右就好。",
)
