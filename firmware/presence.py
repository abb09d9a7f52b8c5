"""Presence debounce for one pad: turns noisy polls into clean arrivals and removals.

A pad is stable on EMPTY, a UID, or CONFLICT (two or more tags). A new reading
is believed after ``present_after`` consecutive identical polls; a stable
reading is given up after ``gone_after`` consecutive polls without it. So a
card resting on a pad that reads present/absent/present stays put, and a tap
gives exactly one arrival and one removal. Read errors count as neither.
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
        self.missed = 0  # consecutive polls that did not read ``stable``

    def poll(self, reading):
        """Feed one reading (EMPTY, a UID, CONFLICT, or None for a read error).

        Returns a list of ``(kind, value)`` changes: ("remove", uid),
        ("arrive", uid), ("conflict", ""), ("clear", ""), in that order.
        """
        if reading is None:
            return []
        if reading == self.stable:
            self.missed = 0
            self.candidate, self.seen = EMPTY, 0
            return []
        self.missed += 1
        if reading == EMPTY:
            self.candidate, self.seen = EMPTY, 0
            if self.missed >= self.gone_after:
                return self._become(EMPTY)
            return []
        if reading == self.candidate:
            self.seen += 1
        else:
            self.candidate, self.seen = reading, 1
        if self.seen >= self.present_after:
            return self._become(reading)
        return []

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
        self.stable, self.candidate, self.seen, self.missed = new, EMPTY, 0, 0
        return out
