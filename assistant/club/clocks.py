"""When each match was played, on one clock: the boxes' own times, read on the board's.

Each event says when its box kept it (``t``, by the box's clock), each match start when it began
(``started``) and each "online" status when the box connected (``t``). When the board *received*
them says nothing of play: a box back in the Wi-Fi sends the events it queued in one burst, and a
match played an hour ago would seem in play now, beside the table its player went to after.

A box's clock may be off the board's (and another box's) by seconds or hours. The board reads by
how much from the messages themselves: none arrives before it was sent, so ``received - t`` is the
difference plus the time on the way, and the least of them over a journal's messages is the
difference give or take the quickest delivery (milliseconds on the club's network: the status a
box sends as it connects, or any event sent live). A match then lasts from its start to its latest
event, both by the box's clock, each plus that difference.

A difference of more than ``MAX_OFF`` is no box's clock (a Pi that lost its time reads 1970, 56
years off): a time a table's password made up, at the calendar's edge, put every match of its
journal past the last year a calendar holds, and the pages that showed it (and the tidy, which
stopped the board) failed for the whole club. Such a time is not taken as the box's clock, and a
match's time that the difference would take off the calendar is shown by the box's clock.
"""
from assistant.club.message import calendar_time

MAX_OFF = 200 * 365 * 86400  # seconds a box's clock may be off the board's


def shifted(t, d):
    """``t`` by a box's clock on the board's (``d``: how far behind it is), or ``t`` as it is when
    the sum is no time a calendar holds."""
    return t + d if calendar_time(t + d) is not None else t


class Clocks:
    def __init__(self):
        self.behind = {}  # (table, journal) -> the least (board's clock - box's clock) seen
        self.last = {}    # (table, journal, match) -> the box's clock at its latest event that said it

    def heard(self, table, journal, t, received):
        """A message of that box that said its time ``t``, received at ``received`` (board's clock);
        True when it showed the box's clock better than any before."""
        if t is None:
            return False
        key, d = (table, journal), received - t
        if abs(d) > MAX_OFF:
            return False  # no box's clock (above)
        if d < self.behind.get(key, float("inf")):
            self.behind[key] = d
            return True
        return False

    def event(self, table, journal, mid, t, received):
        """An event of match ``mid`` kept at ``t`` by the box (None: it came in a record only)."""
        if t is None:
            return
        key = (table, journal, mid)
        self.last[key] = max(t, self.last.get(key, t))
        self.heard(table, journal, t, received)

    def span(self, table, journal, mid, started):
        """``(start, latest event)`` of a match on the board's clock, or None when the board knows
        no time of it but its start (a match it has from a record only)."""
        last, d = self.last.get((table, journal, mid)), self.behind.get((table, journal))
        if started is None or last is None or d is None:
            return None
        return shifted(started, d), shifted(max(started, last), d)

    def put_away(self, key):
        """Match ``key`` leaves the memory (its span is kept with its record: season.py)."""
        self.last.pop(key, None)

    def forget(self, table):
        for d in (self.behind, self.last):
            for key in [k for k in d if k[0] == table]:
                del d[key]
