"""`card-assistant run`: the box started from its config, run until SIGTERM/SIGINT.

Opens the journal and resumes its match (or shows why it cannot: a journal from a newer version,
a state folder that cannot hold one), builds the adapters (buttons, alerts, the reader, the
display, the club's publisher) and hands them to the box's loop (loop.py), then releases them.
"""
import logging
import os
import signal
import threading
from pathlib import Path

from assistant.box.journal import Journal, JournalError, JournalTooNew, JournalUnavailable
from assistant.box.loop import Box, Stop
from assistant.box.screen_file import ScreenFile, runtime_dir
from assistant.box.table import Table
from assistant.hw import timing
from assistant.hw.events import event_queue
from assistant.hw.notify import Notifier
from assistant.rules.scenario import GAMES

log = logging.getLogger("card-assistant")


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
    cards = sorted(uid for uid in players if uid in deck)  # `enroll` never looks at the players
    if cards:  # a card no one could play ("a player tag, not a card"): the tag is the card
        log.warning("%s: the deck has %s as a card: taken as the card (that player is a guest until "
                    "`card-assistant players remove NAME` and `players add NAME` with a tag that is no card)",
                    ", ".join(f"{players[uid]}'s player tag {uid}" for uid in cards), "it" if len(cards) == 1 else "them")
        players = {uid: name for uid, name in players.items() if uid not in deck}
    table = Table(journal, deck, pads=pads, game=cfg_game.game, options=cfg_game.options(),
                  deal_scan=deal_scan, match=resumed.match, players=players)
    for problem in resumed.problems:  # in full in the log; the screen has room for the first
        log.warning("%s", problem)
    if resumed.problems:  # a recovery's numbers in words that fit the screen; the rest: the log
        table.set_alert("info", journal.summary or "; ".join(resumed.problems)[:120], "journal")
    if resumed.match is not None:
        log.info("resumed match %s after %d actions", resumed.match_id, len(resumed.match.actions))
    if table.scan_kept:
        log.info("deal scan stays on for match %s, which began with it; deal_scan = false applies "
                 "from the next new match (or switch it off in the menu)", resumed.match_id)
    return table


def start_club(club, journal):
    """With a [club] broker: the journal's outbox and the publisher's thread (docs/club.md)."""
    if not club.broker or journal is None or journal.readonly:
        return None
    from assistant.club.public import ClubOutbox
    from assistant.club.publisher import Publisher, cafile_problem
    journal.outbox = ClubOutbox(club.club, club.table, journal)
    if club.cafile and club.broker.startswith("mqtts://") and (why := cafile_problem(club.cafile)):
        # named here: the publisher only saw a TLS error, "broker not reached", sending the owner to the Wi-Fi
        log.warning("club: [club] cafile %s %s: table %s publishes nothing until it is fixed (its actions "
                    "wait in the journal)", club.cafile, why, club.table)
        return None
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
    from assistant.cli import argument_parser, folder_named
    parser = argument_parser("card-assistant run", description="Run the box.")
    parser.add_argument("--config", default=None, help="TOML config (default: built-in defaults)")
    parser.add_argument("--state-dir", default=None, type=folder_named, help="where the journal lives (overrides the config)")
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
            reader_port=None, frames_dir=None, on_box=None, deck_log=None, command="run"):
    """Build the adapters for ``cfg`` and run until SIGTERM/SIGINT (or a Stop event). A state
    folder that cannot hold the journal is one log line: the deck's problem (``deck_log``) and the
    web page's screen file, which live in that folder too, are then not said again."""
    from assistant.box import statelock
    events = event_queue()
    unusable = False  # the state folder cannot hold a journal (nor the screen file in it)
    held = table = None
    try:
        try:
            held = statelock.hold(state_dir, command)  # before any repair: another box may be writing
            table = open_table(state_dir, deck, cfg.game, cfg.table.pads, cfg.table.deal_scan)
        except JournalTooNew as e:  # said once per start, and on the screen until stopped
            log.error("%s", e)
            table = JournalRefused(cfg.game.game, cfg.table.pads)
        except JournalUnavailable as e:  # a state folder that cannot hold a journal: no restart loop
            log.error("%s", e)
            table = JournalRefused(cfg.game.game, cfg.table.pads, f"No journal: {e}", "Storage problem")
            unusable = True
        except JournalError as e:  # another box, or another program's lock: exit, systemd tries again
            log.error("%s", e)
            return 1
        return _run_table(cfg, table, events, None if unusable else state_dir, deck_problem,
                          pin_factory, display, reader_port, frames_dir, on_box, deck_log)
    finally:  # whatever ends the start or the run (a bug, Ctrl-C during a long repair): the
        # folder is let go, or the sim's process kept it and a box started again in it was refused
        if table is not None and table.journal is not None:
            table.journal.close()
        statelock.release(held)


def _run_table(cfg, table, events, state_dir, deck_problem, pin_factory, display, reader_port,
               frames_dir, on_box, deck_log):
    """The box on ``table`` until stopped; each adapter made is released whatever happens.
    ``state_dir``: None when it cannot hold the journal (nor the screen file)."""
    from assistant.hw.alerts import Alerts
    from assistant.hw.buttons import Buttons
    from assistant.hw.display import is_hardware, open_display
    from assistant.hw.reader import Reader

    if table.journal is not None:  # else no card is played: the deck would be one more line
        if deck_log:
            log.warning("%s", deck_log)
        if deck_problem:
            table.set_alert("unknown-tag", deck_problem, "deck")
    publisher = buttons = alerts = reader = screen_file = box = None
    try:
        publisher = start_club(cfg.club, table.journal)
        if display is None:  # a real OLED gets a writer thread, so I2C never holds up the loop, and
            # one that is missing (I2C on only after a reboot, a loose cable) is retried there while
            # the box runs on: never a crash loop for a screen (issue 16)
            real = is_hardware(cfg.display)
            display = open_display(cfg.display, frames_dir, background=real, retry=real)
        buttons = Buttons(cfg.pins, events, hold_time=cfg.buttons.hold_time,
                          bounce_time=cfg.buttons.bounce_time, pin_factory=pin_factory)
        alerts = Alerts(cfg.pins, pin_factory=pin_factory)
        reader = Reader(reader_port or cfg.reader.device, events, baudrate=cfg.reader.baud)
        events.waker = reader.wake  # an event posted by a button ends the loop's wait on the line
        box = Box(table, display, alerts, Notifier(), events, reader)
        if state_dir is not None:
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
        if display is not None:
            display.close()
        if screen_file is not None:  # the box stopped: the web page shows the journal
            screen_file.remove()
        if publisher is not None:
            publisher.stop()
    log.info("stopped cleanly")
    return 0
