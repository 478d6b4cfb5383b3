# ruff: noqa: T201  (a check script prints what it finds)
"""Check the lunar holiday table (core/deadlines/holidays.py) against a lunar calendar library.

    uv run --frozen --with lunardate==0.3.0 python benchmarks/lunar_table_check.py

The deadline grammar carries its lunar festivals as a table of Gregorian dates, not a
runtime dependency (docs/deadlines.md, "Holidays"); this recomputes every entry with
`lunardate` and prints each difference. Exit 1 if there is one.
"""

from __future__ import annotations

import sys
from datetime import timedelta

from lunardate import LunarDate

from core.deadlines.holidays import FIRST_YEAR, LAST_YEAR, LUNAR

# Festival -> (lunar month, lunar day).
FESTIVALS = {
    "spring": (1, 1),
    "lantern": (1, 15),
    "dragon_boat": (5, 5),
    "qixi": (7, 7),
    "mid_autumn": (8, 15),
    "double_ninth": (9, 9),
    "zhongyuan": (7, 15),
}


def main() -> int:
    years = range(FIRST_YEAR, LAST_YEAR + 1)
    differences = 0
    checked = 0
    for name, (month, day) in FESTIVALS.items():
        for index, year in enumerate(years):
            expected = LunarDate(year, month, day).to_solar_date()
            checked += 1
            if LUNAR[name][index] != expected:
                differences += 1
                print(f"{name} {year}: table {LUNAR[name][index]}, lunardate {expected}")
    for index, year in enumerate(years):
        # 除夕: the day before the spring festival of the same Gregorian year.
        expected = LunarDate(year, 1, 1).to_solar_date() - timedelta(days=1)
        checked += 1
        if LUNAR["lunar_new_year_eve"][index] != expected:
            differences += 1
            print(f"lunar_new_year_eve {year}: table {LUNAR['lunar_new_year_eve'][index]}")
    for index, year in enumerate(years):
        # 腊八: the eighth of the twelfth month of the lunar year before (in January).
        expected = LunarDate(year - 1, 12, 8).to_solar_date()
        checked += 1
        if LUNAR["laba"][index] != expected:
            differences += 1
            print(f"laba {year}: table {LUNAR['laba'][index]}, lunardate {expected}")
    print(f"{differences} differences in {checked} dates ({FIRST_YEAR}-{LAST_YEAR})")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
