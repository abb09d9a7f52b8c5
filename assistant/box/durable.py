"""The journal's commits made durable on the box's thread while another thread makes the frame.

The table journals every accepted action before the screen changes. Storing it
(SQLite's commit, an fsync with ``synchronous=FULL``) is the slowest part of a
tap on the box, and drawing the next frame does not need it. So the box wraps
the table's journal in a :class:`DeferredJournal`: ``append`` only keeps the
action, and once the event is handled the box hands the table's ``view`` to a
:class:`Renderer` and stores the kept actions itself with ``settle()``: the
commit starts at once, on the thread that has the action, with no thread to
wake first, and the view is worked out and drawn meanwhile (the commit waits on
the card with the GIL released). The frame is sent only once ``settle()`` has
returned: never shown before its action is stored. When a commit failed,
``settle()`` says so and the box puts the table back as it was (as the table
does itself when a journal refuses at once).

The table is lent, not shared: the renderer reads it only between ``start`` and
``result()``, and the box's thread does nothing but store the kept actions in
that time (the journal and the club's outbox keep their own state). It changes
the table again only once ``result()`` has returned, so the table still has one
owner at any moment and no lock. The view never reads ``table.journal``: the
DeferredJournal is the box thread's alone (its ``__getattr__`` stores the kept
actions, which ``settle()`` is doing at that moment).

The renderer's thread waits on its queue without a timeout: an idle box does
not wake it. A frame the thread has not begun by the time the commit is over is
drawn by the box's thread itself, so a slow wake-up never delays the screen.
Every other use of the journal (``new_match``, ``match_id``, ``close`` ...) stores
the kept actions first, so the journal sees them in order; once one of them could
not be stored, nothing else of that event is written (``set_setting`` and
``new_match`` refuse, as ``append`` does). The DeferredJournal has no lock: it is
used from the box's thread only (the club's publisher and the web page use the
journal itself, or their own connection).

    journal = DeferredJournal(Journal(path))
    journal.append(action, seats)     # kept
    renderer.start(table.view)        # worked out and drawn on the renderer's thread ...
    error, stored = journal.settle()  # ... while (None, [action]) is made durable here
    view, frame, data = renderer.result()  # the table is the box thread's again
"""
import queue
import threading

from assistant.box.journal import JournalError


class DeferredJournal:
    WRITES = frozenset({"set_setting", "new_match"})  # refused after a failed store in the event

    def __init__(self, journal):
        self.journal = journal
        self._kept = []  # (action, seats, setting) appended and not yet stored
        self._error = None  # the JournalError of a store that failed, until settle()
        self._stored = []  # actions stored since the last settle()

    @property
    def pending(self):
        return bool(self._kept)

    def append(self, action, seats=None, setting=None):
        """Keep ``action`` (and the ``setting`` stored with it) to store at ``settle()``; a failed
        store earlier in this event raises."""
        if self._error is not None:
            raise JournalError(str(self._error))
        self._kept.append((action, seats, setting))

    def sync(self):
        """Store the kept actions now; JournalError if one could not be (settle() says so too)."""
        self._store()
        if self._error is not None:
            raise JournalError(str(self._error))

    def settle(self):
        """Store every kept action, in order, up to a failure: ``(error or None, actions stored)``."""
        self._store()
        out = self._error, self._stored
        self._error, self._stored = None, []
        return out

    def close(self):
        self._store()
        self.journal.close()

    def __getattr__(self, name):  # every other use of the journal: after the kept actions
        self._store()
        if self._error is not None and name in self.WRITES:  # nothing later in this event is written
            raise JournalError(str(self._error))
        return getattr(self.journal, name)

    def _store(self):
        kept, self._kept = self._kept, []
        for action, seats, setting in kept:
            if self._error is not None:
                return  # not stored after a failure: the box takes the event back
            try:
                if setting is None:
                    self.journal.append(action, seats)
                else:
                    self.journal.append(action, seats, setting)
            except JournalError as e:
                self._error = e
            except Exception as e:  # noqa: BLE001 - a bug in storing is a refused action, not a crash
                self._error = JournalError(f"the journal failed ({type(e).__name__})")
            else:
                self._stored.append(action)


class Renderer:
    """Makes one frame at a time on its own thread: ``start(job)``, then ``result()``.

    Each job has a claim (a lock) that one thread alone takes: the renderer's thread as soon as
    it wakes, or the box's thread in ``result()`` if the renderer has not begun the job by then
    (it then draws the frame itself). Jobs and results pass through C-level queues, not a
    Condition: the box's thread spends the least time on them just before its commit and just
    after it (start 7 -> 3 us, result 13 -> 2 us at the median on the development machine)."""

    def __init__(self, draw):
        self.draw = draw  # job -> the frame (the box's: the view's callable -> view, frame, bytes)
        self._jobs = queue.SimpleQueue()  # (job, claim) for the thread; None: stop
        self._done = queue.SimpleQueue()  # what the thread made of a job it claimed (or its exception)
        self._job = self._claim = None  # the job last started and its claim, until result()
        self._thread = None  # started by the first start()

    def start(self, job):
        """Hand ``job`` to the thread (the box calls ``result()`` before it starts another)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="render", daemon=True)
            self._thread.start()
        self._job, self._claim = job, threading.Lock()
        self._jobs.put((job, self._claim))

    def result(self):
        """The frame of the job last started: made here if the thread has not begun it."""
        job, claim, self._job, self._claim = self._job, self._claim, None, None
        if claim.acquire(False):  # not begun: the thread will pass it by
            return self.draw(job)
        made = self._done.get()
        if isinstance(made, BaseException):
            raise made
        return made

    def close(self):
        if self._thread is None:
            return
        self._jobs.put(None)
        self._thread.join()
        self._thread = None

    def _work(self):
        while (item := self._jobs.get()) is not None:
            job, claim = item
            if not claim.acquire(False):
                continue  # the box's thread drew it
            try:
                made = self.draw(job)
            except BaseException as e:  # noqa: BLE001 - raised again on the box's thread
                made = e
            self._done.put(made)
