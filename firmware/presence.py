"""Presence debounce for one pad: turns noisy polls into clean arrivals and removals.

A pad is stable on EMPTY, a UID, or CONFLICT (two or more tags). A new reading
is believed after ``present_after`` consecutive identical polls, or after twice
that many reads of it with fewer than ``gone_after`` empty polls in a row between
them (a card lying at the edge of the field that answers two polls in three);
a stable reading is given up after ``gone_after`` consecutive polls without it.
So a card resting on a pad that reads present/absent/present stays put, a card
that keeps answering though not every time is seen, and a tap gives exactly one
arrival and one removal. Read errors count as neither.
"""

EMPTY = ""
CONFLICT = "*"


class Presence:
    def __init__(self, present_after=3, gone_after=3):
        if present_after < 1 or gone_after < 1:
            raise ValueError("present_after and gone_after must be at least 1")
        self.present_after = present_after
        self.gone_after = gone_after
        self.stable = EMPTY
        self.candidate = EMPTY
        self.seen = 0  # consecutive polls that read ``candidate``
        self.reads = 0  # polls that read ``candidate`` since it was first read
        self.gap = 0  # consecutive empty polls since ``candidate`` was last read
        self.missed = 0  # consecutive polls that did not read ``stable``

    def poll(self, reading):
        """Feed one reading (EMPTY, a UID, CONFLICT, or None for a read error).

        Returns a list of ``(kind, value)`` changes: ("remove", uid),
        ("arrive", uid), ("conflict", ""), ("clear", ""), in that order.
        """
        if reading is None:
            return []
        if reading == EMPTY:
            self._empty()
        if reading == self.stable:
            self.missed = 0
            if reading != EMPTY:  # the resting card read again: what was building up goes
                self._forget()
            return []
        self.missed += 1
        if reading == EMPTY:
            if self.missed >= self.gone_after:
                return self._become(EMPTY)
            return []
        if reading == self.candidate:
            self.seen += 1
            self.reads += 1
            self.gap = 0
        else:
            self.candidate, self.seen, self.reads, self.gap = reading, 1, 1, 0
        if self.seen >= self.present_after or self.reads >= 2 * self.present_after:
            return self._become(reading)
        return []

    def _empty(self):
        """An empty poll: the candidate's run of reads ends, and after ``gone_after`` empty
        polls in a row it is forgotten (reads further apart are separate blips)."""
        self.seen = 0
        self.gap += 1
        if self.gap >= self.gone_after:
            self._forget()

    def _forget(self):
        self.candidate, self.seen, self.reads, self.gap = EMPTY, 0, 0, 0

    def _become(self, new):
        old, out = self.stable, []
        if old == CONFLICT:
            out.append(("clear", ""))
        elif old != EMPTY:
            out.append(("remove", old))
        if new == CONFLICT:
            out.append(("conflict", ""))
        elif new != EMPTY:
            out.append(("arrive", new))
        self.stable, self.missed = new, 0
        self._forget()
        return out
