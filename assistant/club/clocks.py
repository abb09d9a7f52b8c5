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
"""


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
        return started + d, max(started, last) + d

    def put_away(self, key):
        """Match ``key`` leaves the memory (its span is kept with its record: season.py)."""
        self.last.pop(key, None)

    def forget(self, table):
        for d in (self.behind, self.last):
            for key in [k for k in d if k[0] == table]:
                del d[key]
