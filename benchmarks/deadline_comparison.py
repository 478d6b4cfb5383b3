# ruff: noqa: T201, BLE001  (a benchmark prints its figures; a library's failure is a miss)
"""accord's deadlines beside dateparser, Recognizers-Text and JioNLP, on accord's own tables.

    uv run --frozen --with dateparser==1.5.0 --with recognizers-text-suite==1.0.2a2 \\
        --with emoji==1.7.0 --with jionlp==1.5.31 python benchmarks/deadline_comparison.py

The three libraries are installed for this run only (`uv run --with`), never in the
project's dependencies. Recognizers-Text 1.0.2a2 (its last Python release, 2019) imports
`emoji.UNICODE_EMOJI`, which emoji 2 removed: hence emoji 1.7.0.

The corpus is the project's deadline tables: tests/support/deadline_cases_en.py and
deadline_cases_zh.py, and the family tables of tests/core/test_deadlines_families.py
and tests/core/test_deadlines_ranges.py,
each row a phrase, the time and zone it is said in, and the exclusive instant
docs/deadlines.md gives it (or none). Rows are grouped in families by keyword (`family`).

Scoring, per row with an instant: a library is right when any of its readings is that
instant. Readings are generous on purpose, since no library knows accord's conventions:
every value a library returns, every start and end of a range (an inclusive end such as
23:59:59 also as the next second), a date as both its start and its end, a time of day
today and tomorrow, a length added to the reference time (and the end of that day).
Rows without an instant (a guess, a period already over, a date that does not exist)
count the libraries that still give a time. accord is scored strictly: its one instant.

`--accord-tree PATH` reads the tables from this tree but resolves with the `core` of
another checkout (a before/after on the same rows).
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from types import ModuleType
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
TABLES = (
    ("tests/support/deadline_cases_en.py", ("CASES",)),
    ("tests/support/deadline_cases_zh.py", ("CASES",)),
    ("tests/core/test_deadlines_families.py", ("ENGLISH", "CHINESE")),
    ("tests/core/test_deadlines_ranges.py", ("ENGLISH", "CHINESE")),
)
CJK = re.compile(r"[\u3400-\u9fff]")

# Family by keyword, the first that matches (rows alike by design: a table).
_NUM = r"(?:\d+(?:\.\d)?|an?|half|one|two|three|four|five|six|seven|eight|nine|ten|the next)"
FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "holiday",
        re.compile(
            r"christmas|halloween|valentine|new year|independence|mid-autumn"
            r"|节|元旦|除夕|七夕|平安夜|五一|国庆|中秋|端午|圣诞",
            re.IGNORECASE,
        ),
    ),
    (
        "date",
        re.compile(
            r"\d{4}[-/]\d|\d+/\d+|[\d一二三四五六七八九十\u3007零]+月[\d一二三四五六七八九十]+[日号]"
            r"|\d+号|[一二三四五六七八九十]+号"
            r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:\d|the|first|second|third|twen|thir)"
            r"|\d+(?:st|nd|rd|th)|(?:first|second|third|fifth|twenty|thirtieth)\S*\s+of",
            re.IGNORECASE,
        ),
    ),
    (
        "length (within, in, from now, spans)",
        re.compile(
            rf"{_NUM}\s*(?:minute|min|hour|hr|h\b|day|week|month|year)"
            r"|[\d一二两三四五六七八九十半]+个?半?(?:分钟|小时|钟头|天|日|周|星期|礼拜|个月|年)(?!底|末)"
            r"|分半|未来|接下来|再过|from now",
            re.IGNORECASE,
        ),
    ),
    (
        "weekday",
        re.compile(
            r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|周[一二三四五六日天1-7]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|週",
            re.IGNORECASE,
        ),
    ),
    (
        "today, tomorrow, tonight",
        re.compile(
            r"today|tonight|tomorrow|eod|end of (?:the )?day|this (?:morning|afternoon|evening)"
            r"|今|明天|明日|明晚|明早|明儿|后天|後天",
            re.IGNORECASE,
        ),
    ),
    (
        "period (week, month, year, quarter)",
        re.compile(
            r"week|month|quarter|year|eo[wmqy]|january|february|march|april|may|june|july"
            r"|august|september|october|november|december|\b20\d\d\b|周|月|年|季度",
            re.IGNORECASE,
        ),
    ),
    ("clock time alone", re.compile(r".")),
)


def family(phrase: str) -> str:
    return next(name for name, pattern in FAMILIES if pattern.search(phrase))


def _load(relative: str) -> ModuleType:
    path = ROOT / relative
    name = "comparison_" + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def corpus() -> list[tuple[str, str | None, datetime, ZoneInfo]]:
    """(phrase, expected ISO or None, said, zone) for every distinct row of the tables."""
    rows: dict[tuple[str, str, str], str | None] = {}
    for relative, names in TABLES:
        module = _load(relative)
        for name in names:
            for case in getattr(module, name):
                rows[(case.phrase, case.said, case.zone)] = case.expected
    return [
        (phrase, expected, datetime.fromisoformat(said), ZoneInfo(zone))
        for (phrase, said, zone), expected in rows.items()
        if phrase.strip()
    ]


# --- readings: every instant a library's answer could mean (see the module docstring) ---


def _aware(local: datetime, zone: ZoneInfo) -> datetime:
    return local.replace(tzinfo=zone)


def _day_readings(day: date, zone: ZoneInfo) -> list[datetime]:
    start = datetime(day.year, day.month, day.day)  # noqa: DTZ001  # a local wall time
    return [_aware(start, zone), _aware(start + timedelta(days=1), zone)]


def _text_readings(text: str, base: datetime, zone: ZoneInfo) -> list[datetime]:
    """A library's date, time or datetime text as instants (local wall times in `zone`)."""
    text = text.strip()
    if text in {"", "-inf", "inf", "not resolved"}:
        return []
    try:
        if re.fullmatch(r"\d{4}-\d\d-\d\d", text):
            return _day_readings(date.fromisoformat(text), zone)
        if re.fullmatch(r"\d\d:\d\d:\d\d", text):
            clock = datetime.strptime(text, "%H:%M:%S").time()  # noqa: DTZ007  # a wall time
            today = datetime.combine(base.date(), clock)
            return [_aware(today, zone), _aware(today + timedelta(days=1), zone)]
        value = datetime.fromisoformat(text)
    except ValueError:
        return []
    found = [_aware(value, zone)]
    if value.second == 59:
        found.append(_aware(value + timedelta(seconds=1), zone))  # an inclusive end
    if value.time() == datetime.min.time():
        found.append(_aware(value + timedelta(days=1), zone))  # a date: its end too
    return found


def dateparser_readings(
    phrase: str, base: datetime, zone: ZoneInfo, *, chinese: bool
) -> list[datetime]:
    from dateparser.search import search_dates  # noqa: PLC0415  # installed for this run only

    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "future"}
    found = search_dates(phrase, languages=["zh" if chinese else "en"], settings=settings)
    readings: list[datetime] = []
    for _, value in found or ():
        readings.extend(_text_readings(value.isoformat(sep=" "), base, zone))
    return readings


def recognizers_readings(
    phrase: str, base: datetime, zone: ZoneInfo, *, chinese: bool
) -> list[datetime]:
    from recognizers_date_time import Culture, recognize_datetime  # noqa: PLC0415

    culture = Culture.Chinese if chinese else Culture.English
    readings: list[datetime] = []
    for result in recognize_datetime(phrase, culture, reference=base):
        for value in (result.resolution or {}).get("values", ()):
            if value.get("type") == "duration" and str(value.get("value", "")).isdigit():
                later = base + timedelta(seconds=int(value["value"]))
                readings.append(_aware(later, zone))
                readings.extend(_day_readings(later.date(), zone)[1:])
                continue
            for key in ("value", "start", "end"):
                if key in value:
                    readings.extend(_text_readings(str(value[key]), base, zone))
    return readings


def jionlp_readings(phrase: str, base: datetime, zone: ZoneInfo) -> list[datetime]:
    import jionlp  # noqa: PLC0415

    time_base = {
        "year": base.year,
        "month": base.month,
        "day": base.day,
        "hour": base.hour,
        "minute": base.minute,
        "second": base.second,
    }
    parsed = jionlp.parse_time(phrase, time_base=time_base)
    readings: list[datetime] = []
    if parsed.get("type") == "time_delta":
        delta = parsed.get("time") or {}
        units = {"day": 86400, "hour": 3600, "minute": 60, "second": 1}
        seconds = sum(float(delta.get(unit, 0) or 0) * size for unit, size in units.items())
        later = base + timedelta(seconds=seconds)
        return [_aware(later, zone), *_day_readings(later.date(), zone)[1:]]
    for text in parsed.get("time") or ():
        readings.extend(_text_readings(str(text), base, zone))
    return readings


Reader = Callable[[str, datetime, ZoneInfo, bool], list[datetime]]
LIBRARIES: dict[str, Reader] = {
    "dateparser": lambda phrase, base, zone, chinese: dateparser_readings(
        phrase, base, zone, chinese=chinese
    ),
    "Recognizers-Text": lambda phrase, base, zone, chinese: recognizers_readings(
        phrase, base, zone, chinese=chinese
    ),
    # Chinese only.
    "JioNLP": lambda phrase, base, zone, chinese: (
        jionlp_readings(phrase, base, zone) if chinese else []
    ),
}
SYSTEMS = ("accord", *LIBRARIES)


def accord_reader(tree: str | None) -> Callable[[str, datetime, ZoneInfo], datetime | None]:
    if tree is not None:
        sys.path.insert(0, str(Path(tree).resolve()))
        for name in [name for name in sys.modules if name == "core" or name.startswith("core.")]:
            del sys.modules[name]
    from core.deadlines.resolve import resolve_deadline  # noqa: PLC0415  # from the tree given

    return resolve_deadline


@dataclass
class Tally:
    """Rows asked and answered, per family (and how many of them are Chinese)."""

    asked: Counter[str] = field(default_factory=Counter)
    asked_zh: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)
    refusals_zh: Counter[str] = field(default_factory=Counter)
    right: dict[str, Counter[str]] = field(default_factory=lambda: {s: Counter() for s in SYSTEMS})
    guessed: dict[str, Counter[str]] = field(
        default_factory=lambda: {s: Counter() for s in SYSTEMS}
    )
    errors: Counter[str] = field(default_factory=Counter)
    seconds: Counter[str] = field(default_factory=Counter)


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--accord-tree", help="resolve with the core of this checkout")
    parser.add_argument("--show", help="print each row of this family (or 'all')")
    args = parser.parse_args(list(argv) if argv is not None else None)
    rows = corpus()  # the tables of this tree, before another core is imported
    accord = accord_reader(args.accord_tree)
    tally = Tally()
    for phrase, expected_text, said, zone in rows:
        chinese = CJK.search(phrase) is not None
        base = said.astimezone(zone).replace(tzinfo=None)
        group = family(phrase)
        expected = datetime.fromisoformat(expected_text) if expected_text else None
        started = time.perf_counter()
        ours = accord(phrase, said, zone)
        tally.seconds["accord"] += time.perf_counter() - started
        answers = {"accord": [] if ours is None else [ours]}
        for name, read in LIBRARIES.items():
            started = time.perf_counter()
            try:
                answers[name] = read(phrase, base, zone, chinese)
            except Exception:
                tally.errors[name] += 1
                answers[name] = []
            tally.seconds[name] += time.perf_counter() - started
        _count(tally, group, expected, answers, chinese=chinese)
        if args.show in {"all", group}:
            shown = {
                n: sorted({r.astimezone(zone).isoformat() for r in a})[:3]
                for n, a in answers.items()
            }
            print(
                f"{phrase!r} said {said.isoformat()} [{zone.key}] expected {expected_text}: {shown}"
            )
    _report(tally)
    print()
    print(
        f"rows: {len(rows)}; library errors (counted as no answer): {dict(tally.errors) or 'none'}"
    )
    chinese_rows = sum(CJK.search(row[0]) is not None for row in rows)
    read = {name: chinese_rows if name == "JioNLP" else len(rows) for name in SYSTEMS}
    per_row = {name: f"{tally.seconds[name] / read[name] * 1e6:,.0f} us" for name in SYSTEMS}
    print(f"wall time per row read (JioNLP: per Chinese row): {per_row}")


def _count(
    tally: Tally,
    group: str,
    expected: datetime | None,
    answers: dict[str, list[datetime]],
    *,
    chinese: bool,
) -> None:
    if expected is None:
        tally.refusals[group] += 1
        tally.refusals_zh[group] += chinese
    else:
        tally.asked[group] += 1
        tally.asked_zh[group] += chinese
    for name, readings in answers.items():
        if name == "JioNLP" and not chinese:
            continue
        if expected is None:
            tally.guessed[name][group] += bool(readings)
        else:
            tally.right[name][group] += any(reading == expected for reading in readings)


def _cell(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / total:.0f} %)" if total else "-"


def _report(tally: Tally) -> None:
    groups = [name for name, _ in FAMILIES if tally.asked[name] or tally.refusals[name]]
    print("| family | rows with a deadline (zh) | " + " | ".join(SYSTEMS) + " |")
    print("|---|---|" + "---|" * len(SYSTEMS))
    for group in [*groups, "all"]:
        every = group == "all"
        total = sum(tally.asked.values()) if every else tally.asked[group]
        total_zh = sum(tally.asked_zh.values()) if every else tally.asked_zh[group]
        cells = []
        for name in SYSTEMS:
            hits = sum(tally.right[name].values()) if every else tally.right[name][group]
            cells.append(_cell(hits, total_zh if name == "JioNLP" else total))
        label = f"**{group}**" if every else group
        print(f"| {label} | {total} ({total_zh}) | " + " | ".join(cells) + " |")
    total, total_zh = sum(tally.refusals.values()), sum(tally.refusals_zh.values())
    cells = [
        _cell(sum(tally.guessed[name].values()), total_zh if name == "JioNLP" else total)
        for name in SYSTEMS
    ]
    print(
        f"| rows with none: a time given anyway | {total} ({total_zh}) | "
        + " | ".join(cells)
        + " |"
    )


if __name__ == "__main__":
    main()
