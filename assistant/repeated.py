"""A condition that repeats (a retry every few seconds, a pad that keeps conflicting) is logged
when it starts and when it ends, with a count: never once per retry, so a box left without its
reader for a week writes two lines, not 120,000.

>>> import logging
>>> r = Repeated(logging.getLogger("doc"))
>>> r.happened("open", "reader: cannot open /dev/card-reader")    # logged
True
>>> r.happened("open", "reader: cannot open /dev/card-reader")    # counted only
False
>>> r.ended("open", "reader: /dev/card-reader opened")            # logged, with the count
True
"""
import logging
import time


class Repeated:
    def __init__(self, log, level=logging.WARNING, clock=time.monotonic):
        self.log = log
        self.level = level
        self.clock = clock
        self.active = {}  # key -> [times, since, last]

    def happened(self, key, text):
        """The condition ``key`` happened (again); True when this is its start (and was logged)."""
        seen = self.active.get(key)
        if seen is not None:
            seen[0] += 1
            seen[2] = self.clock()
            return False
        now = self.clock()
        self.active[key] = [1, now, now]
        self.log.log(self.level, "%s (logged once until it ends)", text)
        return True

    def quiet(self, seconds, words):
        """End every condition that has not happened for ``seconds``; ``words(key)`` says which."""
        now = self.clock()
        for key in [k for k, (_, _, last) in self.active.items() if now - last >= seconds]:
            self.ended(key, words(key))

    def ended(self, key, text):
        """The condition ``key`` is over; True (and logged with its count) if it had started."""
        seen = self.active.pop(key, None)
        if seen is None:
            return False
        times, since, _ = seen
        self.log.log(self.level, "%s (after %d time%s in %.0f s)", text, times, "" if times == 1 else "s",
                     self.clock() - since)
        return True
