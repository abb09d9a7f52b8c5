"""`card-assistant run`: the box. One thread owns the state; adapters only post events.

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
import logging
import os
import queue
import signal
import threading
import time
from pathlib import Path

from assistant.hw import timing
from assistant.repeated import Repeated
from assistant.box.durable import DeferredJournal, Renderer
from assistant.hw.events import Tick, event_queue
from assistant.box.journal import Journal, JournalError, JournalTooNew, JournalUnavailable
from assistant.hw.notify import Notifier
from assistant.rules.scenario import GAMES, format_action
from assistant.box.screen_file import ScreenFile, runtime_dir
from assistant.box.table import HIDDEN_KINDS, Table

log = logging.getLogger("card-assistant")
ALERT_BURST = 20  # alerts logged one by one within ALERT_QUIET seconds; more are a storm, counted
ALERT_QUIET = 30.0


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
        self.clock = time.monotonic
        self._alert_times = collections.deque(maxlen=ALERT_BURST)  # when the last alerts were logged
        self._alert_storm = Repeated(log, logging.INFO, clock=lambda: self.clock())
        self._stopping = False
        self._after = None  # (match, its actions) before the event being handled
        self.timing = timing.clock()  # card-assistant run --timing
        self.screen_file = None  # a ScreenFile: each frame's View for the web page
        self.renderer = Renderer(see)  # works out and draws the frame while the box stores
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
        if after is not None:  # the log lines after the frame: they never delay the screen
            self._log_actions(shown)
        if self.screen_file is not None:  # after the frame: never delays the screen
            j, m = self.table.journal, self.table.match
            self.screen_file.write(view, getattr(j, "match_id", None), getattr(j, "rows", 0),
                                   m.seats if m is not None else None)
        if self.alerts is not None:
            self.alerts.update(self.view.alert)

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
                and self.table.alert.cause != "pad-conflict":  # the reader logs a conflict, counted
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


def see(view_of):
    """``(view, frame, its bytes)``: the view ``view_of()`` works out, drawn."""
    view = view_of()
    return (view, *draw(view))


def draw(view):
    """The frame for ``view`` and its bytes (the display compares them with the last frame's)."""
    from assistant.box.screen import render  # Pillow: imported once the box starts, not at import time
    frame = render(view)
    return frame, frame.tobytes()


class JournalRefused:
    """Stands in for the table when the journal cannot be used: written by a newer card-assistant,
    or a state folder that cannot hold one (a file, read-only, not permitted). The box shows why
    and keeps running (the watchdog fed, no restart loop every few seconds) until it is stopped;
    the journal is neither read nor written."""
    match = None
    journal = None
    NEWER = "Journal from a newer card-assistant: update this box. Journal kept."

    def __init__(self, game, pads, text=NEWER, title="Newer version"):
        from assistant.box.view import Alert
        self.game = game
        self.pads = tuple(pads)
        self.title = title
        self.alert = Alert("info", text[:120], "journal")

    def take(self, event):
        pass

    def view(self):
        from assistant.box.view import Menu, View
        seats = tuple(f"P{i + 1}" for i in range(GAMES[self.game]))
        return View(game=self.game, seats=seats, phase="menu", alert=self.alert,
                    menu=Menu("Journal", (self.title,)))


def _post_stop(events):
    """From a signal handler: the handler runs on the loop's own thread, which may hold the queue's
    lock or be the only one that can make room in it, so a short thread posts the Stop."""
    threading.Thread(target=events.put, args=(Stop(),), name="stop", daemon=True).start()


def open_table(state_dir, deck, cfg_game, pads, deal_scan=False):
    """The journal in ``state_dir`` and a table resumed from it (or at the new-match menu)."""
    journal = Journal(os.path.join(state_dir, "journal.sqlite3"))
    resumed = journal.resume()
    from assistant.box.players import PlayersError, load_players
    try:
        players = load_players(state_dir)
    except PlayersError as e:  # the box plays on with guests; the list is fixed with `players`
        log.warning("%s: seats are guests until it is fixed", e)
        players = {}
    table = Table(journal, deck, pads=pads, game=cfg_game.game, options=cfg_game.options(),
                  deal_scan=deal_scan, match=resumed.match, players=players)
    for problem in resumed.problems:  # in full in the log; the screen has room for the first
        log.warning("%s", problem)
    if resumed.problems:  # a recovery's numbers in words that fit the screen; the rest: the log
        table.set_alert("info", journal.summary or "; ".join(resumed.problems)[:120], "journal")
    if resumed.match is not None:
        log.info("resumed match %s after %d actions", resumed.match_id, len(resumed.match.actions))
    return table


def start_club(club, journal):
    """With a [club] broker: the journal's outbox and the publisher's thread (docs/club.md)."""
    if not club.broker or journal is None or journal.readonly:
        return None
    from assistant.club.public import ClubOutbox
    from assistant.club.publisher import Publisher
    journal.outbox = ClubOutbox(club.club, club.table, journal)
    publisher = Publisher(journal, journal.outbox, club.broker, club.username or None,
                          club.password or None, club.cafile or None)
    publisher.start()
    log.info("club: table %s publishes to %s", club.table, publisher.host)
    return publisher


def load_deck_or_warn(path):
    """``(deck, alert)``: a deck problem is logged in one line, and shown when no card can be read."""
    from assistant.box.deck import deck_for_play
    deck, problem, screen = deck_for_play(path)
    if problem:
        log.warning("%s", problem)
    return deck, screen


def cannot_run(cfg):
    """Why the box cannot run here at all, in words with what to do, or None. A display or reader
    that is merely absent is not such a reason: the box shows what it can and waits for them."""
    import warnings
    if cfg.display.driver == "emulator":
        try:
            import luma.emulator.device  # noqa: F401
        except ImportError:
            return ("the display driver 'emulator' needs luma.emulator, which is not installed "
                    "(pip install luma.emulator, or set [display] driver = \"dummy\"); "
                    "to try the box without hardware: card-assistant sim")
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory
    try:
        with warnings.catch_warnings():  # its fallback warnings would only repeat the reason
            warnings.simplefilter("ignore")
            Device.ensure_pin_factory()
    except BadPinFactory:
        return ("no GPIO pin library works here, so this is no Raspberry Pi (or lgpio is missing): "
                "to try the box without hardware: card-assistant sim")
    return None


def main(argv):
    from assistant.cli import argument_parser
    parser = argument_parser("card-assistant run", description="Run the box.")
    parser.add_argument("--config", default=None, help="TOML config (default: built-in defaults)")
    parser.add_argument("--state-dir", default=None, help="where the journal lives (overrides the config)")
    parser.add_argument("--timing", action="store_true", help="log the time of each stage of every "
                        "event and each OLED write (docs/latency.md)")
    args = parser.parse_args(argv)
    if args.timing:
        timing.enable()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    from assistant.box.config import ConfigError, load
    try:
        cfg = load(args.config)
    except ConfigError as e:
        log.error("%s", e)
        return 2
    problem = cannot_run(cfg)
    if problem:
        log.error("cannot run: %s", problem)
        return 1
    state_dir = args.state_dir or cfg.paths.state_dir  # the journal makes it (private), or says why not
    deck_path = Path(cfg.paths.deck) if os.path.isabs(cfg.paths.deck) else Path(state_dir) / cfg.paths.deck
    from assistant.box.deck import deck_for_play
    deck, deck_log, deck_problem = deck_for_play(deck_path)  # logged once the journal is known usable
    return run_box(cfg, state_dir, deck, deck_problem, deck_log=deck_log)


def run_box(cfg, state_dir, deck, deck_problem=None, pin_factory=None, display=None,
            reader_port=None, frames_dir=None, on_box=None, deck_log=None):
    """Build the adapters for ``cfg`` and run until SIGTERM/SIGINT (or a Stop event). A state
    folder that cannot hold the journal is one log line: the deck's problem (``deck_log``) and the
    web page's screen file, which live in that folder too, are then not said again."""
    from assistant.hw.alerts import Alerts
    from assistant.hw.buttons import Buttons
    from assistant.hw.display import is_hardware, open_display
    from assistant.hw.reader import Reader

    events = event_queue()
    unusable = False  # the state folder cannot hold a journal (nor the screen file in it)
    try:
        table = open_table(state_dir, deck, cfg.game, cfg.table.pads, cfg.table.deal_scan)
    except JournalTooNew as e:  # said once per start, and on the screen until stopped
        log.error("%s", e)
        table = JournalRefused(cfg.game.game, cfg.table.pads)
    except JournalUnavailable as e:  # a state folder that cannot hold a journal: no restart loop
        log.error("%s", e)
        table = JournalRefused(cfg.game.game, cfg.table.pads, f"No journal: {e}", "Storage problem")
        unusable = True
    except JournalError as e:  # locked by another program: exit, and systemd tries again shortly
        log.error("%s", e)
        return 1
    if table.journal is not None:  # else no card is played: the deck would be one more line
        if deck_log:
            log.warning("%s", deck_log)
        if deck_problem:
            table.set_alert("unknown-tag", deck_problem, "deck")
    publisher = start_club(cfg.club, table.journal)
    if display is None:  # a real OLED gets a writer thread, so I2C never holds up the loop, and
        # one that is missing (I2C on only after a reboot, a loose cable) is retried there while
        # the box runs on: never a crash loop for a screen (issue 16)
        real = is_hardware(cfg.display)
        display = open_display(cfg.display, frames_dir, background=real, retry=real)
    buttons = alerts = reader = screen_file = box = None
    try:
        buttons = Buttons(cfg.pins, events, hold_time=cfg.buttons.hold_time,
                          bounce_time=cfg.buttons.bounce_time, pin_factory=pin_factory)
        alerts = Alerts(cfg.pins, pin_factory=pin_factory)
        reader = Reader(reader_port or cfg.reader.device, events, baudrate=cfg.reader.baud)
        events.waker = reader.wake  # an event posted by a button ends the loop's wait on the line
        box = Box(table, display, alerts, Notifier(), events, reader)
        if not unusable:
            box.screen_file = screen_file = ScreenFile(runtime_dir(state_dir))
        for sig in (signal.SIGTERM, signal.SIGINT):
            if threading.current_thread() is threading.main_thread():
                signal.signal(sig, lambda *_: _post_stop(events))
        if on_box is not None:
            on_box(box)
        box.run()
    finally:
        for part in (reader, buttons, alerts):
            if part is not None:
                try:
                    part.stop() if part is reader else part.close()
                except Exception:
                    log.exception("while releasing %s", type(part).__name__)
        if box is not None:
            box.renderer.close()
        display.close()
        if screen_file is not None:  # the box stopped: the web page shows the journal
            screen_file.remove()
        if publisher is not None:
            publisher.stop()
        if table.journal is not None:
            table.journal.close()
    log.info("stopped cleanly")
    return 0
