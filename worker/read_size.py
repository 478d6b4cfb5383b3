"""How many entries of each stream a partition's next read asks for.

XREADGROUP bounds a read by entries, never by bytes. Reads of `ACCORD_BATCH_SIZE` (2,000)
entries cost little on the bench's chat (a few hundred bytes an entry, under 2 MB a read
of three streams), but an entry may be up to the entry limit (256 KiB): a backlog of 100 KB tool
results (a file read, a web page) would bring 200 MB in one reply, and the worker holds
up to three replies per partition (the batch in hand, what waits for the merge, the read
ahead). So the COUNT also follows the bytes of the entries read lately: the next read
asks for as many entries as fit `ACCORD_READ_MB` at the largest mean entry size seen on
the partition's streams, between MIN_COUNT and the batch size.

Before anything is read the size is taken to be the entry limit, so a worker that starts
on a backlog of large entries reads a few of them first; once a read brings entries, the
COUNT follows the largest estimate among the streams read so far (a stream not read yet
gets that COUNT too). A stream's estimate is its reads' mean entry size: a larger mean
counts at once and a smaller one a quarter of the way per read, and an empty read of the
stream takes a quarter off, so a run of small entries between large ones does not open
the reads wide and a stream gone quiet does not keep them narrow. What this cannot
bound: entries much larger than the mean of those before them, which arrive in a read
sized for the earlier ones, and large entries among many small ones in one read (the
mean hides them) (docs/operations.md, "Memory model").
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable

from contracts.streams import Entry

_FIELDS = operator.attrgetter("fields")

# The fewest entries a read asks for, however large the entries: a read per entry would
# cost a round trip each, and the entry limit already bounds one entry.
MIN_COUNT = 10
# How much of the distance to a smaller mean the estimate goes per read.
SHRINK_STEP = 0.25


class ReadSize:
    """The COUNT of a partition's reads: `most` entries, or fewer when their bytes would
    pass `budget` (0: no byte bound)."""

    def __init__(self, most: int, budget: int, streams: int, first_guess: int) -> None:
        self.most = most
        self.budget = budget
        self.streams = streams
        self.first_guess = first_guess
        # Bytes per entry by stream, from what its reads returned.
        self.entry_bytes: dict[str, float] = {}
        self.count = self._count()

    def observe(self, stream: str, entries: Iterable[Entry]) -> None:
        """One stream's part of a read: its entries' bytes move the next COUNT."""
        if not self.budget:
            return
        # Summed without a Python loop per entry: this runs on every entry read.
        fields = list(map(_FIELDS, entries))
        n = len(fields)
        total = sum(map(len, itertools.chain.from_iterable(map(dict.values, fields))))
        if not n:
            return
        mean = total / n
        seen = self.entry_bytes.get(stream)
        if seen is None or mean >= seen:
            self.entry_bytes[stream] = mean
        else:
            self.entry_bytes[stream] = seen + (mean - seen) * SHRINK_STEP
        self.count = self._count()

    def nothing_read(self, stream: str) -> None:
        """The stream was asked and came back empty: what it held before counts less, a
        step per such read, so one large entry on a stream gone quiet does not keep
        every read of the partition small."""
        seen = self.entry_bytes.get(stream)
        if seen is not None:
            self.entry_bytes[stream] = seen * (1 - SHRINK_STEP)
            self.count = self._count()

    def _count(self) -> int:
        if not self.budget:
            return self.most
        largest = max(self.entry_bytes.values(), default=self.first_guess)
        fits = int(self.budget // (self.streams * max(largest, 1.0)))
        return min(self.most, max(MIN_COUNT, fits))
