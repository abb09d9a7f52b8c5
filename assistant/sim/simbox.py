"""The whole box on mock hardware, for ``card-assistant sim``, the bots and the tests.

The same :class:`Box` as on the Pi, built with gpiozero's ``MockFactory`` for the buttons,
buzzer and LED, luma's ``dummy`` device for the screen, and a real pty fed by the virtual
firmware speaking the real wire protocol for the card pads. ``tap``/``press``/``hold`` act like
hands at the table and return once the box has handled what they did.
"""
import dataclasses
import os
import tempfile
import threading
from pathlib import Path

from assistant.box.journal_files import private_dir
from assistant.hw.events import ButtonPressed, TagRemoved
from assistant.rules.cards import TWENTY_NINE_PACK

# seconds: the simulated thumb holds a button this long for a hold. A press is the pin driven low
# then high by one thread; on a machine so busy that the thread waits this long for a core between
# the two, the press becomes a hold (the bots then stop: seen at a load average of 10 with 0.05 s)
HOLD_TIME = 0.15


def sim_uid(card):
    """A 7-byte NTAG-style UID for each card of the simulated pack."""
    return f"04{card:02X}5EED{card * 7 % 256:02X}{card * 13 % 256:02X}80"


def player_uid(index):
    """A 7-byte UID for the simulated player tag number ``index`` (never a card's)."""
    return f"04{index:02X}9A7E{index * 7 % 256:02X}0000"


def _loaded(load, path):
    """What ``load(path)`` reads, or None when the file is missing or unusable."""
    from assistant.box.deck import DeckError
    try:
        return load(path)
    except (DeckError, OSError):  # missing, unreadable, a folder it may not enter: written anew
        return None


class SimBox:
    """The box on mock hardware; ``tap``/``press``/``hold`` act like hands at the table."""

    def __init__(self, state_dir, game="towers", pads=("P1", "P2", "centre"), frames_dir=None,
                 options=None, deal_scan=False, players=(), club=None):
        from gpiozero.pins.mock import MockFactory

        from assistant.box import config as config_mod
        from assistant.box.deck import load_deck, save_deck
        from assistant.sim.virtual_firmware import VirtualFirmware

        self.state_dir = Path(state_dir)
        private_dir(self.state_dir)  # the journal's own rule and words (one line, JournalUnavailable)
        # written only when missing or different: a read-only state folder still starts (the box
        # then shows its match read-only), and private like the journal (0600)
        deck = {sim_uid(c): c for c in sorted(TWENTY_NINE_PACK)}
        if _loaded(load_deck, self.state_dir / "deck.txt") != deck:
            save_deck(deck, self.state_dir / "deck.txt")
            os.chmod(self.state_dir / "deck.txt", 0o600)
        from assistant.box.players import FILE, PlayersError, load_players, save_players
        self.players = {}  # uid -> name: each --player gets a tag (type the name to tap it)
        if players:
            self.players = load_players(self.state_dir)
            before = dict(self.players)
            for name in players:
                if name.lower() not in (n.lower() for n in self.players.values()):
                    self.players[player_uid(len(self.players))] = name
            if self.players != before or not (self.state_dir / FILE).exists():
                save_players(self.players, self.state_dir)
                os.chmod(self.state_dir / FILE, 0o600)
            self.tags = dict(self.players)  # every tag the box knows, typed by name at the keyboard
        else:  # the players a folder keeps (an earlier --player, `players add`, a rename)
            try:
                self.tags = load_players(self.state_dir)
            except PlayersError:  # the box says why in its log line and seats guests
                self.tags = {}
        link_dir = self.state_dir  # a read-only state folder: the pty's link goes elsewhere
        if not os.access(self.state_dir, os.W_OK):
            link_dir = Path(tempfile.mkdtemp(prefix="card-assistant-sim-reader-"))
        cfg = config_mod.Config()
        game_cfg = dataclasses.replace(cfg.game, game=game, **(options or {}))
        self.cfg = dataclasses.replace(
            cfg, display=dataclasses.replace(cfg.display, driver="dummy"),
            buttons=dataclasses.replace(cfg.buttons, hold_time=HOLD_TIME, bounce_time=0),
            reader=dataclasses.replace(cfg.reader, device=str(link_dir / "card-reader")),
            paths=dataclasses.replace(cfg.paths, state_dir=str(self.state_dir), deck="deck.txt"),
            game=game_cfg, table=dataclasses.replace(cfg.table, pads=tuple(pads), deal_scan=deal_scan),
            club=club or cfg.club)  # a [club] section: the box publishes to the club, as on the Pi
        self.factory = MockFactory()
        self.firmware = VirtualFirmware(self.cfg.reader.device, pads=len(pads)).plug()
        self.frames_dir = frames_dir
        self.box = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="box", daemon=True)
        self.error = None

    def start(self):
        from assistant.hw.events import Tick
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("the simulated box did not start within 30 s")
        if self.error is not None:
            raise RuntimeError(f"the simulated box did not start: {self.error!r}")
        self.box.events.put(Tick())  # handled after run()'s first show(): the first frame exists
        self.settle()
        return self

    def _run(self):
        from assistant.box.daemon import load_deck_or_warn, run_box
        deck, problem = load_deck_or_warn(self.state_dir / "deck.txt")

        def on_box(box):
            self.box = box
            self._ready.set()
        try:
            status = run_box(self.cfg, str(self.state_dir), deck, problem, pin_factory=self.factory,
                             frames_dir=self.frames_dir, on_box=on_box, command="sim")
            if self.box is None:  # it gave up before running (the reason is in the log)
                self.error = f"the box exited with status {status} before it ran"
        except BaseException as e:  # reported by start() or stop()
            self.error = e
        finally:
            self._ready.set()

    def stop(self):
        from assistant.box.daemon import Stop
        if self.box is not None:
            self.box.events.put(Stop())
        self._thread.join(30)
        self.firmware.unplug()
        if self.error is not None:
            raise RuntimeError(f"the simulated box failed: {self.error!r}")

    # -- hands at the table ------------------------------------------------------------

    def settle(self):
        """Wait until every event posted so far has been handled."""
        self.box.events.join()

    def _count(self, kind):
        return self.box.counts.get(kind, 0)

    def tap(self, pad, card):
        """Put a card on pad index ``pad`` (0 is the wire's pad 1) and lift it: one arrival
        and one removal, through the pty."""
        before = self._count(TagRemoved)
        self.firmware.tap(pad + 1, sim_uid(card))
        self.box.wait_counted(TagRemoved, before + 1)
        self.settle()

    def tap_player(self, pad, name):
        """Tap the simulated player tag of ``name`` on pad index ``pad``."""
        uid = next(u for u, n in self.tags.items() if n.lower() == name.lower())
        before = self._count(TagRemoved)
        self.firmware.tap(pad + 1, uid)
        self.box.wait_counted(TagRemoved, before + 1)
        self.settle()

    def _pin(self, name):
        return self.factory.pin(getattr(self.cfg.pins, name))

    def press(self, name):
        before = self._count(ButtonPressed)
        pin = self._pin(name)
        pin.drive_low()
        pin.drive_high()
        self.box.wait_counted(ButtonPressed, before + 1)
        self.settle()

    def hold(self, name):
        before = self._count(ButtonPressed)
        pin = self._pin(name)
        pin.drive_low()
        self.box.wait_counted(ButtonPressed, before + 1)  # gpiozero's hold timer fired
        pin.drive_high()
        self.settle()

    @property
    def table(self):
        return self.box.table
