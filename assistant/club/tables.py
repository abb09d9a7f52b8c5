"""Every table's matches as the board holds them: rebuilt through the engines (:mod:`.replay`),
events held until the gap before them fills, and the bounds on what one table may hold.

A match is ``(table, journal, match)``: two journals of one table (a box reset, a new SD card)
are two runs of that table, each numbered from 1, never one added into the other.

Bounds, so that one table's password cannot fill the board's memory (5,000 match starts were
17 MB): a club night is at most 40 tables of 30 matches, a match 120 to 500 events (towers and
Twenty-Nine played by the bots), so a table's night is under 15,000 events. The board keeps night
after night (a season: docs/club.md), so the bound is on a night: in any ``NIGHT`` (12 hours, by
the board's clock, when it received them) a table adds at most ``MAX_MATCHES`` matches and
``MAX_EVENTS`` events (all its journals together), more than a night has (about 8 MB of the
board's memory: bench/club_memory.py). A match start is taken only while the table has room in
its night for ``ROOM`` more events (four of the longest matches measured), so the match a box
plays, once taken, is never cut short by the bound. Beyond them a message is refused with a log
line (one for a storm of them). Held behind a gap: at most ``MAX_HELD`` events a table (the
match's record brings a refused one again).
"""
import logging

from assistant.club.message import printable
from assistant.club.replay import BoardMatch

log = logging.getLogger("assistant.club.board")
NIGHT = 12 * 3600         # seconds: the bounds are on what a table adds in this long
MAX_MATCHES = 60          # a table's matches in a NIGHT (a club night: 30)
MAX_EVENTS = 20_000       # a table's events in a NIGHT (a club night: under 15,000)
ROOM = 2_000              # events a table must have room for to take a new match (a match: 120 to 500)
MAX_HELD = 5000           # events of one table waiting for a gap to fill: hours of real play


class Tables:
    def __init__(self):
        self.matches = {}  # (table, journal, match) -> BoardMatch
        self.early = {}    # (table, journal, match) -> {n: event}: actions before their match's start
        self.gaps = set()  # (table, journal, match) whose held events wait for earlier ones (logged once)
        self.first = {}    # (table, journal) -> when the board first received one of its events
        self.latest = {}   # (table, journal) -> when it received the latest
        self.added = {}    # table -> {hour: [matches, events]} the board received in that hour

    def tonight(self, table, now):
        """``(matches, events)`` the table added in the ``NIGHT`` before ``now``."""
        hours = self.added.get(table, {})
        for hour in [h for h in hours if h <= (now - NIGHT) // 3600]:
            del hours[hour]
        return sum(m for m, _ in hours.values()), sum(e for _, e in hours.values())

    def refusal(self, table, journal, mid, n, now):
        """Why the table's bounds refuse event ``n`` of match ``mid``, received ``now`` (words), or None."""
        matches, events = self.tonight(table, now)
        new = n == 0 or (table, journal, mid) not in self.matches  # (an action before its start: held for it)
        if new and (matches >= MAX_MATCHES or events > MAX_EVENTS - ROOM):
            return (f"the table added {matches} matches and {events} events in 12 hours, more than a club night: "
                    f"match {mid} is not taken (at most {MAX_MATCHES} matches, {MAX_EVENTS} events a table in 12 hours)")
        if events >= MAX_EVENTS:
            return (f"the table added {events} events in 12 hours, more than a club night: match {mid} event {n} "
                    "is not taken")
        if self.held(table, journal, mid, n) and sum(self.waiting(table)) >= MAX_HELD:
            return (f"out of order: match {mid} event {n} would be held behind a gap with {MAX_HELD} others "
                    "of this table (the match's record brings it again)")
        return None

    def taken_back(self, table, now, events):
        """A match put away (season.py) taken back into memory ``now`` for an event of it counts as a
        match and its ``events`` added in this night: one table's password sending an event for
        each match of its season brought the whole season back into the board's memory."""
        added = self.added.setdefault(table, {}).setdefault(now // 3600, [0, 0])
        added[0] += 1
        added[1] += events

    def held(self, table, journal, mid, n):
        """Would event ``n`` wait for earlier ones?"""
        bm = self.matches.get((table, journal, mid))
        return n > 0 and (bm is None or n > bm.next)

    def waiting(self, table):
        for key in (*self.early, *self.matches):
            if key[0] == table:
                yield self._held_count(key)

    def _held_count(self, key):
        """Events of match ``key`` held: all before its start, else those after its gap."""
        bm = self.matches.get(key)
        return len(self.early.get(key, ())) if bm is None else len(bm.events) - (bm.next - 1)

    def runs(self, table):
        """The table's journals, in the order the board first had them (a box reset: one more)."""
        return sorted((j for (t, j) in self.first if t == table), key=lambda j: self.first[(table, j)])

    def together(self, table, journal):
        """Did this journal's events come while the table's journal before it was still sending: two
        boxes set up with one table's name, not one box reset?"""
        runs = self.runs(table)
        k = runs.index(journal) if journal in runs else 0
        return k > 0 and self.first[(table, journal)] < self.latest[(table, runs[k - 1])]

    def apply(self, table, journal, mid, n, body, received, more=False):
        """Event ``n`` of match ``mid``, received at ``received``. ``more``: the next event given is
        of the same match (a start reading the board's file): it is applied with the last of them."""
        key = (table, journal, mid)
        self.first[(table, journal)] = min(received, self.first.get((table, journal), received))
        self.latest[(table, journal)] = max(received, self.latest.get((table, journal), received))
        added = self.added.setdefault(table, {}).setdefault(received // 3600, [0, 0])
        added[1] += 1
        if n == 0:
            try:
                self.matches[key] = bm = BoardMatch(table, mid, body)
            except (ValueError, KeyError, TypeError):
                log.warning("board: table %s match %s cannot be set up", printable(table), mid)
                return
            added[0] += 1
            for k, ev in sorted(self.early.pop(key, {}).items()):
                self._add(bm, k, ev)
        elif key not in self.matches:
            self.early.setdefault(key, {})[n] = body  # before its start (a record may bring it)
        else:
            self._add(self.matches[key], n, body, more)
        if not more:
            self._gap(key)

    def seen(self, table, journal, first, last):
        """The board received the journal's events from ``first`` to ``last`` (its file says so, of
        the matches put away too): the order of a table's journals holds over a season."""
        key = (table, journal)
        self.first[key] = min(first, self.first.get(key, first))
        self.latest[key] = max(last, self.latest.get(key, last))

    def put_away(self, key):
        """Match ``key`` leaves the memory (its record is in the board's file: season.py)."""
        self.matches.pop(key, None)
        self.early.pop(key, None)
        self.gaps.discard(key)

    def forget(self, table):
        """Everything held of ``table`` (to be read again from the board's file)."""
        for d in (self.matches, self.early, self.first, self.latest):
            for key in [k for k in d if k[0] == table]:
                del d[key]
        self.gaps = {k for k in self.gaps if k[0] != table}
        self.added.pop(table, None)

    def flush(self, key):
        """Apply what was stored of match ``key`` to be applied with a later event (``more``) that
        never came (a start: the match's last row in the board's file could not be used)."""
        bm = self.matches.get(key)
        if bm is not None:
            self._said(bm, bm.flush())
            self._gap(key)

    @classmethod
    def _add(cls, bm, n, body, more=False):
        """Event ``n`` into match ``bm``."""
        cls._said(bm, bm.add(n, body, more))

    @staticmethod
    def _said(bm, refused):
        """A refusal by the rules is logged once, not again with each event after it (the match is
        replayed again at each, and refused at the same action: a match refused at its first action
        and 2,000 events after it wrote 2,000 lines)."""
        if refused and refused != bm.said:
            log.warning("board: %s", refused)
        if refused or bm.problem is None:  # (an event held behind a gap changes nothing)
            bm.said = refused

    def _gap(self, key):
        """One log line when a match's gap opens, one when it is filled."""
        bm = self.matches.get(key)
        held = self._held_count(key)
        table, mid = printable(key[0]), key[2]
        if held and key not in self.gaps:
            self.gaps.add(key)
            want = "its start" if bm is None else f"event {bm.next}"
            log.info("board: table %s match %s: events arrive before %s; stored and held until it comes",
                     table, mid, want)
        elif not held and key in self.gaps:
            self.gaps.discard(key)
            log.info("board: table %s match %s: the gap is filled; events up to %s applied in order",
                     table, mid, bm.next - 1)
