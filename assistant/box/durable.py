"""The journal's commits made durable while the box renders the frame they lead to.

The table journals every accepted action before the screen changes. Storing it
(SQLite's commit, an fsync with ``synchronous=FULL``) is the slowest part of a
tap on the box, and rendering the next frame does not need it. So the box wraps
the table's journal in an :class:`OverlappedJournal`: ``append`` hands the
action to a worker thread and returns; the box renders the frame meanwhile (the
commit waits on the card with the GIL released), then calls ``settle()`` and
sends the frame only once it returns: a frame is never shown before its action
is stored. When the commit failed, ``settle()`` says so and the box puts the
table back as it was (as the table does itself when a journal refuses at once).

The worker waits on a condition without a timeout: an idle box does not wake it.
Every other use of the journal (``new_match``, ``db``, ``close`` ...) waits for
the commit under way first, so the connection is used by one thread at a time.

    journal = OverlappedJournal(Journal(path))
    journal.append(action, seats)     # returns at once
    ...                               # render
    error, stored = journal.settle()  # (None, [action]) once it is on the card
"""
import threading

from assistant.box.journal import JournalError


class OverlappedJournal:
    def __init__(self, journal):
        self.journal = journal
        self._cv = threading.Condition()
        self._job = None  # (action, seats) for the worker
        self._busy = False
        self._closing = False
        self._error = None  # the JournalError of the append that failed, until settle()
        self._stored = []  # actions stored since the last settle()
        self._thread = threading.Thread(target=self._work, name="journal", daemon=True)
        self._thread.start()

    def append(self, action, seats=None):
        """Start storing ``action``; a failure of an earlier append of this event raises here."""
        with self._cv:
            self._cv.wait_for(self._idle)
            if self._error is not None:
                raise JournalError(str(self._error))
            self._job, self._busy = (action, seats), True
            self._cv.notify_all()

    def settle(self):
        """Wait until every append has returned: ``(error or None, actions stored)``."""
        with self._cv:
            self._cv.wait_for(self._idle)
            out = self._error, self._stored
            self._error, self._stored = None, []
            return out

    def close(self):
        with self._cv:
            self._cv.wait_for(self._idle)
            self._closing = True
            self._cv.notify_all()
        self._thread.join()
        self.journal.close()

    def __getattr__(self, name):  # every other use of the journal: after the commit under way
        with self._cv:
            self._cv.wait_for(self._idle)
        return getattr(self.journal, name)

    def _idle(self):
        return not self._busy

    def _work(self):
        while True:
            with self._cv:
                self._cv.wait_for(lambda: self._job is not None or self._closing)
                if self._job is None:
                    return
                (action, seats), self._job = self._job, None
            error = None
            try:
                self.journal.append(action, seats)
            except JournalError as e:
                error = e
            except Exception as e:  # noqa: BLE001 - a bug in storing is a refused action, not a hang
                error = JournalError(f"the journal failed ({type(e).__name__})")
            with self._cv:
                if error is None:
                    self._stored.append(action)
                else:
                    self._error = error
                self._busy = False
                self._cv.notify_all()
