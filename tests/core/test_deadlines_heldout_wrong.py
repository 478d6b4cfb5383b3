"""The held-out corpus's wrong deadlines (R9, DESIGN section 4, docs/deadlines.md).

benchmarks/deadline_corpus_heldout.py found nine expressions that gave a WRONG deadline:
the finder stopped at the first piece it could read ("by monday" of "by monday, jan
twenty two, 2029", 明年 of 明年第九个月, 三天内 of 一个星期又三天内) and gave that
piece's deadline. A deadline expires the agreement, so a longer expression only partly
read gives none. Each is tabled here inside terms, with neighbours the change must
leave alone, said on Wednesday 2027-03-10 10:00 in New York or Shanghai.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from core.deadlines.resolve import find_deadline_phrase, resolve_deadline
from tests.support.deadline_cases_en import c as en
from tests.support.deadline_cases_zh import c as zh
from tests.support.deadline_kit import Case, case_id, check_resolves, check_written_in_zone

NY_SAID = "2027-03-10T10:00:00-05:00"
SH_SAID = "2027-03-10T10:00:00+08:00"

# Three of the nine, inside terms the way the corpus wraps them: no deadline (before: a
# wrong one). The other six now read whole (below: 明年第九个月, and the English ranges
# and seconds of issue 39's English families).
WRONG_BEFORE: tuple[str, ...] = (
    "send me the weekly report by monday, jan twenty two, 2029",  # was this Monday
    "你今年第一季度把周报发给我",  # was the end of this year (quarters by number: none)
    "你一个星期又三天内把周报发给我",  # was three days
)


@pytest.mark.parametrize("terms", WRONG_BEFORE)
def test_a_longer_expression_partly_read_gives_no_deadline(terms: str) -> None:
    """R9: a run followed by time wording it stopped short of gives none, not its own."""
    assert find_deadline_phrase(terms) is None


@pytest.mark.parametrize(
    ("terms", "phrase"),
    [
        # Neighbours refused the same way.
        ("send it by Friday, march nineteen", None),  # a weekday, then a date unread
        ("send it tomorrow 6-8", None),  # no part of the day: "6-8" may count anything
        ("send it this evening 5-6 people", None),  # a count after a part of the day
        ("send it within 2 weeks 3 days", None),  # a week is never summed
        ("你两周加三天内把周报发给我", None),
        ("你一年又两个月内把周报发给我", None),
        ("你明年第三季度把周报发给我", None),
        ("你第九个月把周报发给我", None),  # an ordinal month needs its year
        ("你明年九个月内把周报发给我", None),
        ("你明年第十三个月把周报发给我", None),
        ("你明年第九个月把周报发给我", "明年第九个月"),  # was 明年: the end of next year
        # Read whole since issue 39's English families (were none, and before that wrong).
        ("send me the weekly report this week from Tue to Thur", "this week from Tue to Thur"),
        ("send me the weekly report November 19 to 20", "November 19 to 20"),
        ("send me the weekly report this evening from 7 to 7:30", "this evening from 7 to 7:30"),
        ("send me the weekly report next monday morning 6-8", "next monday morning 6-8"),
        (
            "send me the weekly report within 2 days 1 hour 5 minutes 30 seconds",
            "within 2 days 1 hour 5 minutes 30 seconds",
        ),
        ("send it next week from Wednesday to Friday", "next week from Wednesday to Friday"),
        ("send it November 19 - 20", "November 19 - 20"),
        ("send it within 1 hour and 30 seconds", "within 1 hour and 30 seconds"),
        ("你2028年第3个月前把周报发给我", "2028年第3个月前"),
        # Neighbours still read whole, and words that only look like more time.
        ("send it by Friday, December 3", "by Friday, December 3"),
        ("send it by monday jan 22, 2029", "by monday jan 22, 2029"),
        ("send it from 3:30 to 6pm", "from 3:30 to 6pm"),
        ("send it within 2 days 1 hour 5 minutes", "within 2 days 1 hour 5 minutes"),
        ("send it by Friday to discuss", "by Friday"),
        ("send it by Friday to Monday's team", "by Friday"),
        ("send it by Friday from the office", "by Friday"),
        ("send it by Friday, thanks", "by Friday"),
        ("send it by Friday, March 19", "by Friday, March 19"),
        ("你三天内把周报发给我", "三天内"),
        ("你明年九月前把周报发给我", "明年九月前"),
        ("你本季度末前把周报发给我", "本季度末前"),
    ],
)
def test_neighbours_of_the_wrong_nine(terms: str, phrase: str | None) -> None:
    """R9: the refusal is for time wording left unread, not for any word after a run."""
    assert find_deadline_phrase(terms) == phrase


# The neighbours still read, resolved (the refused ones have no phrase to resolve).
KEPT: tuple[Case, ...] = (
    en("by Friday, December 3", "2027-12-04T00:00:00-05:00", said=NY_SAID),
    en("by monday jan 22, 2029", "2029-01-23T00:00:00-05:00", said=NY_SAID),
    en("within 2 days 1 hour 5 minutes", "2027-03-12T11:05:00-05:00", said=NY_SAID),
    # Read whole since issue 39's English families (docs/deadlines.md).
    en("this week from Tue to Thur", "2027-03-12T00:00:00-05:00", said=NY_SAID),
    en("next week from Wednesday to Friday", "2027-03-20T00:00:00-04:00", said=NY_SAID),
    en("November 19 to 20", "2027-11-21T00:00:00-05:00", said=NY_SAID),
    en("this evening from 7 to 7:30", "2027-03-10T19:30:00-05:00", said=NY_SAID),
    en("next monday morning 6-8", "2027-03-15T08:00:00-04:00", said=NY_SAID),
    en(
        "within 2 days 1 hour 5 minutes 30 seconds",
        "2027-03-12T11:05:30-05:00",
        said=NY_SAID,
    ),
    en("within 1 hour and 30 seconds", "2027-03-10T11:00:30-05:00", said=NY_SAID),
    zh("明年九月前", "2028-10-01T00:00:00+08:00", said=SH_SAID),
    zh("明年第九个月", "2028-10-01T00:00:00+08:00", said=SH_SAID),  # as 明年九月
    zh("明年的第九个月前", "2028-10-01T00:00:00+08:00", said=SH_SAID),
    zh("2028年第3个月前", "2028-04-01T00:00:00+08:00", said=SH_SAID),
    zh("今年第3个月", "2027-04-01T00:00:00+08:00", said=SH_SAID),  # this month
    zh("今年第一个月", None, said=SH_SAID),  # over
    zh("本季度末前", "2027-04-01T00:00:00+08:00", said=SH_SAID),
)


@pytest.mark.parametrize("case", KEPT, ids=case_id)
def test_neighbours_resolve_to_their_documented_instant(case: Case) -> None:
    """R9: the neighbours keep their documented deadline."""
    check_resolves(case)


@pytest.mark.parametrize("case", KEPT, ids=case_id)
def test_neighbour_case_is_written_in_its_zone(case: Case) -> None:
    """Guards the table: written offsets are the zone's real ones."""
    check_written_in_zone(case)


# The third held-out corpus (benchmarks/deadline_corpus_heldout2.py) found 30 more wrong
# deadlines of the same kind, most of them a past or malformed phrase whose past or
# malformed part the finder dropped: a year it did not read ("may 27 79", "jan 10, '00",
# "in the year 1980"), "ago" or "before last" around the run, an offset from UTC, a
# numeric date run on ("2034.08.09"); in Chinese a past day before the run (前天, 去年,
# 上上周的), a run joined to a past or start phrase before it (3周前周五, 三天之内的下午3点,
# 明年的感恩节) or a garbled numeral after it. Tabled with neighbours of our own.
WRONG_SHORT: tuple[str, ...] = (
    "send it by may 27 79 at 4:30",
    "send it by jan 10, '00",
    "send it by 3 jan 31",
    "send it by 1st oct in the year '89",
    "send it by march 3 in the year 2031",
    "send it by september 3 years ago",
    "send it by June 5 2 years ago",
    "send it by 3 months ago saturday at 5:00 pm",
    "send it by 4 weeks ago tuesday",
    "send it by tuesday before last",
    "send it by the year after next @ midnight",
    "send it by the week after next @ noon",
    "send it by 2032-07-03 22:11:35 +0100",
    "send it by Monday 9am +0200",
    "你前天下午3点前把周报发给我",
    "你昨天下午5点前把周报发给我",
    "你前年3月21日前把周报发给我",
    "你去年5月前把周报发给我",
    "你上个月10号前把周报发给我",
    "你上上周的周日前把周报发给我",
    "你3周前周五把周报发给我",
    "你两周前周三把周报发给我",
    "你3月啊15号前把周报发给我",
    "你三天之内的下午3点前把周报发给我",
    "你3个星期后的周五前把周报发给我",
    "你下周的周五前把周报发给我",  # was this Friday
    "你七月五日到七月廿二十一日把周报发给我",
    # Found at review, the same kinds.
    "send it by Friday 1030",
    "send it by Friday 10.30",
    "send it by Friday of last week",
    "send it by Jan 5 last year",
    "send it by 5pm the day before",
    "你昨晚10点前把周报发给我",
    "你昨儿下午5点前把周报发给我",
    "你前几天的周五前把周报发给我",
    "你周五前一日把周报发给我",
    # Found by the fourth held-out corpus (wrong deadlines, fixed after its measurement).
    "send it yesterday at 3pm",
    "send it by last night at 11",
    "send it in 2d 03:00",
    "send it in 10 minutes starting tomorrow",
    "send it within 3 days, beginning Monday",
    "你3周后的周零到周日把周报发给我",
    # Found by the fourth and fifth corpora on the round-2 grammar (fixed after).
    "send it by 2030-02-03T09:04:08,00123Z",
    "send it by 2031-12-27T09:15:01,5",
    "你二百二十五日内把周报发给我",
    # Found by the round-2 helpers: a later deadline than meant, an ordinal left unread.
    "send it by Monday 1st thing",
    "send it by Monday, first thing",
    "send it by today 11th",
    "你一千二百天内把周报发给我",
    "你两天后的星期八前把周报发给我",
)


@pytest.mark.parametrize("terms", WRONG_SHORT)
def test_a_past_or_malformed_part_left_unread_gives_no_deadline(terms: str) -> None:
    """R9: time wording around a run that the run does not hold (a year, "ago", a past
    day, an offset, a phrase joined by 的) gives none, not the run's own reading."""
    assert find_deadline_phrase(terms) is None


@pytest.mark.parametrize(
    ("terms", "phrase"),
    [
        ("send it by Friday, 2 copies", "by Friday"),
        ("send it by Friday, 3 slides each", "by Friday"),
        ("send it by the 5th, 10 pages", "by the 5th"),
        ("send it by Friday 10 am", "by Friday 10 am"),
        ("send it by Friday 2 pm", "by Friday 2 pm"),
        ("send it by March 3 at 5pm", "by March 3 at 5pm"),
        ("send it by March 3, 2031", "by March 3, 2031"),
        ("send it by tomorrow 10:30", "by tomorrow 10:30"),
        ("send it by noon. 25 people wait", "by noon"),
        ("send it within 3 days", "within 3 days"),
        ("你3号线周五前恢复", "周五前"),  # 3号线 is a metro line, not a start
        ("从明天起\uff0c周五前你把周报发给我", "周五前"),
        ("你周五前把2份周报发给我", "周五前"),
        ("你周五前把周报发给3个人", "周五前"),
        ("你今年5月前把周报发给我", "今年5月前"),
        ("你明年春节前把周报发给我", "明年春节前"),
        ("你上周说的周五前把周报发给我", "周五前"),
        # Counts after a deadline, without a comma (found at review).
        ("print it by Friday 10 copies please", "by Friday"),
        ("book it by March 3 50 seats", "by March 3"),
        ("submit by 10am 30 forms", "by 10am"),
        ("by Friday 2pm 10 pages", "by Friday 2pm"),
        ("order by Monday, 1500 units", "by Monday"),
        # Read whole since the English families (a quoted year, a dotted date).
        ("send it by May 3 '29", "by May 3 '29"),
        ("send it by 2034.08.09", "by 2034.08.09"),
        # And since the Chinese families (a holiday in a relative year after 的).
        ("你明年的感恩节前把周报发给我", "明年的感恩节前"),
        ("你后年的春节前把周报发给我", "后年的春节前"),
        ("你周五前3号楼集合", "周五前"),
        ("你周五前3月份的数据发我", "周五前"),
        ("你周五前两点建议发我", "周五前"),
        ("你今天的活明天前做完", "明天前"),
        ("你明天的会周五前开完", "周五前"),
    ],
)
def test_neighbours_of_the_wrong_thirty(terms: str, phrase: str | None) -> None:
    """R9: numbers, counts and clauses after or before a run that are not time wording
    leave the run's deadline as it was."""
    assert find_deadline_phrase(terms) == phrase


def test_a_two_digit_year_of_the_last_century_is_over() -> None:
    """R9: a two-digit year reads by the POSIX pivot (69-99: 19xx), so "10-27-90" is 1990
    and gives no deadline (it gave 2090); "09/18/27" stays 2027."""
    zone = ZoneInfo("America/New_York")
    said = datetime.fromisoformat(NY_SAID)
    assert resolve_deadline("by 10-27-90", said, zone) is None
    assert resolve_deadline("by 18 Sep '90", said, zone) is None
    assert resolve_deadline("by 09/18/27", said, zone) == datetime(2027, 9, 19, 4, tzinfo=UTC)
