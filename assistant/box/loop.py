"""The box's loop (``card-assistant run``, daemon.py): one thread owns the state; adapters only post events.

The loop reads the card reader's line itself (nothing between a tap and the
rules but the pty) and takes the other adapters' events off the queue (a put
there ends its wait on the line), lets the :class:`Table` apply each (the table
journals every accepted action before anything is shown; the loop stores them
while a render thread, lent the table for that time, works out the view), draws the view and
hands the frame to the display (which skips a frame identical to the last), and follows the view's alert with the buzzer and LED. systemd gets
``READY=1`` after the first frame and ``WATCHDOG=1`` from the same loop, so a
stuck loop is restarted. Log lines never carry hidden information.
"""
import collections
import gc
import logging
import queue
import threading
import time

from assistant.box.durable import DeferredJournal, Renderer
from assistant.box.journal import Journal
from assistant.box.table import HIDDEN_KINDS
from assistant.hw import timing
from assistant.hw.events import Tick, event_queue
from assistant.hw.notify import Notifier
from assistant.repeated import Repeated
from assistant.rules.scenario import format_action

log = logging.getLogger("card-assistant")
ALERT_BURST = 20  # alerts logged one by one within ALERT_QUIET seconds; more are a storm, counted
ALERT_QUIET = 30.0
GC_DUE = 500  # net new objects: the loop collects after an event from here, so CPython's own collection
# (at 700, inside whatever allocates next: a tap's rules, its frame) is left for a burst the loop has
# not come back from; a collection costs 0.1 ms (1 ms for the older generation) here, 10 times that on a Pi


class Stop:
    """Posted by the signal handler: leave the loop and release the hardware."""


def public_line(action, seats):
    """An action as a log line, with hidden cards (trump card, discard, scans) left out."""
    if action.kind in HIDDEN_KINDS:
        seat = f" {seats[action.seat]}" if action.seat is not None else ""
        return f"{action.kind}{seat} (face down)"
    return format_action(action, seats)


class Box:
    """The daemon's state owner: table, screen, alerts; fed by the reader it polls and a queue."""

    def __init__(self, table, display, alerts=None, notifier=None, events=None, reader=None):
        self.table = table
        self.reader = reader  # read on this thread (poll), not its own
        self.display = display
        self.alerts = alerts
        self.notifier = notifier or Notifier({})
        self.events = events or event_queue()
        self.handled = 0
        self.counts = {}  # event type -> events handled (the simulation waits on these)
        self.changed = threading.Condition()
        self.view = None
        self.frame = None
        self._logged = len(table.match.actions) if table.match else 0
        self._logged_match = table.match  # the match whose actions _logged counts
        self.clock = time.monotonic
        self._alert_times = collections.deque(maxlen=ALERT_BURST)  # when the last alerts were logged
        self._alert_storm = Repeated(log, logging.INFO, clock=lambda: self.clock())
        self._stopping = False
        self._after = None  # (match, its actions) before the event being handled
        self.timing = timing.clock()  # card-assistant run --timing
        self.screen_file = None  # a ScreenFile: each frame's View for the web page
        self.renderer = Renderer(see)  # works out and draws the frame while the box stores
        # a repair's words kept in the journal until seen: its alert on the screen, then taken away
        self._repair = "kept" if getattr(table.journal, "unseen_repair", False) else None
        self._repair_words = getattr(table.journal, "summary", None)
        if isinstance(table.journal, Journal):
            table.journal = DeferredJournal(table.journal)

    def show(self):
        """Draw the table and send the frame.
        After an event, its kept journal actions are stored on this thread while the renderer
        works out the view and draws it; the frame is sent only once they are stored."""
        t = self.timing
        after, self._after = self._after, None
        j = self.table.journal
        if after is None:  # the first frame, or a tick: nothing to store
            view, frame, data = see(self.table.view)
        elif isinstance(j, DeferredJournal) and j.pending:
            # the table is lent to the renderer while this thread only stores the actions; it
            # is this thread's again once result() has returned
            self.renderer.start(self.table.view)
            error = made = None
            try:
                error, stored = j.settle()
                t and t.mark("commit")
            finally:  # whatever happened, the table is this thread's only once the renderer is done
                try:
                    made = self.renderer.result()
                finally:  # not stored: the table as it was, with the alert that says why
                    if error is not None:
                        self._take_back(error, stored, *after)
            view, frame, data = made if error is None else see(self.table.view)
            t and t.mark("render")
        else:
            error, stored = j.settle() if isinstance(j, DeferredJournal) else (None, [])
            t and t.mark("commit")
            if error is not None:
                self._take_back(error, stored, *after)
            view, frame, data = see(self.table.view)
            t and t.mark("render")
        shown, self.view, self.frame = self.view, view, frame
        self.display.show(frame, data)
        t and (t.mark("to display"), t.done())
        if self._repair is not None:
            self._repair_seen(view)
        if after is not None:  # the log lines after the frame: they never delay the screen
            self._log_actions(shown)
        if self.screen_file is not None:  # after the frame: never delays the screen
            j, m = self.table.journal, self.table.match
            self.screen_file.write(view, getattr(j, "match_id", None), getattr(j, "rows", 0),
                                   m.seats if m is not None else None)
        if self.alerts is not None:
            self.alerts.update(self.view.alert)

    def _repair_seen(self, view):
        """The journal's repair alert was on the screen and an event took it away: a person saw it."""
        up = view.alert is not None and view.alert.cause == "journal" and view.alert.text == self._repair_words
        if up:
            self._repair = "shown"
        elif self._repair == "shown":
            self._repair = None
            self.table.journal.repair_seen()

    def step(self, event):
        if isinstance(event, Stop):
            self._stopping = True
            return
        if not isinstance(event, Tick):
            match = self.table.match
            self._after = match, list(match.actions) if match is not None else []
            self.timing and self.timing.start(event)
            try:
                self.table.take(event)
            except Exception:  # a bug: what the event kept is stored (or taken back) and shown
                self.show()
                raise
            self.timing and self.timing.mark("table")
            return self.show()
        self.show()

    def _take_back(self, error, stored, match, before):
        """After a failed commit: the match as stored (not stored, so not accepted, as
        Table.apply does itself when the journal refuses at once), and why."""
        if self.table.match is match and match is not None:
            match.rebuild(before)
            for action in stored:
                match.apply(action)
        self.table.set_alert("refused", str(error), "journal")

    def _log_actions(self, shown):
        m = self.table.match
        if m is None:
            return
        if m is not self._logged_match:  # a new match (over one in play or not): not an undo
            self._logged_match, self._logged = m, 0
            log.info("new match: %s, %s", m.game, " ".join(m.seats))
        actions = m.actions
        if len(actions) < self._logged:  # an undo
            log.info("undo (%d actions in effect)", len(actions))
        elif len(actions) > self._logged:
            for a in actions[self._logged:]:
                log.info("action: %s", public_line(a, m.seats))
        self._logged = len(actions)
        now = self.clock()
        self._alert_storm.quiet(ALERT_QUIET, lambda key: f"{ALERT_QUIET:g} s without a storm of alerts")
        if shown is not None and self.table.alert is not None and self.table.alert != shown.alert \
                and self.table.alert.cause not in ("pad-conflict", "reader-lost"):  # the reader logs them, counted
            # a reader that floods the box with taps (a faulty firmware) makes an alert a tap: past
            # ALERT_BURST in ALERT_QUIET seconds they are counted, so journald keeps the actions
            if len(self._alert_times) == ALERT_BURST and now - self._alert_times[0] < ALERT_QUIET:
                self._alert_storm.happened("alerts", f"more than {ALERT_BURST} alerts in {ALERT_QUIET:g} s: "
                                                     "the next ones are counted, not logged")
            else:
                log.info("alert: %s: %s", self.table.alert.kind, self.table.alert.text)
            self._alert_times.append(now)

    def run(self):
        """Show the first frame, tell systemd, then apply events until a Stop."""
        self.show()
        self.notifier.ready("showing the table")
        beat = self.notifier.watchdog / 2 if self.notifier.watchdog else None
        next_beat = time.monotonic()
        while not self._stopping:
            if beat is not None and time.monotonic() >= next_beat:
                self.notifier.ping()
                next_beat = time.monotonic() + beat
            queued, events = self._next_events(beat)
            for event in events:
                self._handle(event, queued)
            if not events:
                collect_garbage()
        self.notifier.stopping()

    def _next_events(self, beat):
        """``(from the queue, events)``: what the queue holds, else what the reader's line brings,
        read on this thread (a put on the queue ends that wait), else the queue after a wait."""
        try:
            return True, [self.events.get_nowait()]
        except queue.Empty:
            pass
        r = self.reader if self.reader is not None and not self.reader.stopped else None
        wait = beat
        if r is not None:
            if r.linked:
                return False, r.poll()
            due = max(0.0, r.next_open - time.monotonic())  # the port's next attempt to open
            if due == 0.0:
                return False, r.poll()
            wait = due if wait is None else min(wait, due)
        try:
            return True, [self.events.get(timeout=wait)]
        except queue.Empty:
            return True, []

    def _handle(self, event, queued):
        try:
            self.step(event)
        except Exception:  # a bug must not take the table down: log it, keep the match
            log.exception("internal error while handling %s", type(event).__name__)
        finally:
            collect_garbage()  # after the frame, before the next event is read
            if queued:
                self.events.task_done()
            with self.changed:
                self.handled += 1
                self.counts[type(event)] = self.counts.get(type(event), 0) + 1
                self.changed.notify_all()

    def wait_counted(self, kind, count, timeout=30.0):
        """Block until ``count`` events of type ``kind`` have been handled (the simulation's
        hands wait on this; the timeout only guards against a hang)."""
        with self.changed:
            if not self.changed.wait_for(lambda: self.counts.get(kind, 0) >= count, timeout):
                raise TimeoutError(f"the box did not handle {kind.__name__} #{count}")


def collect_garbage():
    """The collection CPython would make in the next few events, made now: the youngest
    generation, the next as often as CPython's thresholds have it, and the oldest (all objects:
    17 ms here) under CPython's own rule too, once a quarter more objects than after its last
    collection have reached it."""
    count, limit = gc.get_count(), gc.get_threshold()
    if count[0] < GC_DUE or not gc.isenabled():
        return
    if count[1] < limit[1]:
        gc.collect(0)
    elif count[2] >= limit[2] and count[2] % limit[2] == 0 \
            and len(gc.get_objects(2)) - _oldest[0] > _oldest[0] / 4:  # counted once in 10: a list of all
        gc.collect(2)
        _oldest[0] = len(gc.get_objects(2))
    else:
        gc.collect(1)


_oldest = [0]  # objects in the oldest generation after its last collection (CPython's long_lived_total)


def see(view_of):
    """``(view, frame, its bytes)``: the view ``view_of()`` works out, drawn."""
    view = view_of()
    return (view, *draw(view))


def draw(view):
    """The frame for ``view`` and its bytes (the display compares them with the last frame's)."""
    from assistant.box.screen import render  # Pillow: imported once the box starts, not at import time
    frame = render(view)
    return frame, frame.tobytes()
