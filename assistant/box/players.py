"""Players by tag: `card-assistant players add NAME | list | rename OLD NEW | remove NAME`.

A player tag is any RFID tag that is not a card of the deck (a key fob, a sticker on a coaster).
``players.txt`` beside the journal lists them, one ``UID NAME`` a line. At a new match the box
asks each seat in turn to tap a player tag (OK for a guest, who keeps the seat's name P1..P4);
the names then go on the screen, into the journal and into exported scenarios. During play a
player tag is refused as "not a card".

A name is one word that a scenario's ``seats`` line can hold: 1 to 12 letters, digits, ``-`` or
``_``, starting with a letter; not P1..P4, not an action word, not a card. On the OLED a name
longer than 5 characters is shortened by one rule, the screen's (four seats' names side by side
leave 5 characters each): its first 4 characters and a dot.

>>> short_name("Alexandra"), short_name("Bob"), short_name("Connor")
('Alex.', 'Bob', 'Conn.')
"""
import os
import re
import sys
from pathlib import Path

from assistant.rules.cards import CardError, parse_card
from assistant.box.deck import DeckError, load_deck, normal_uid
from assistant.rules.scenario import ACTIONS

FILE = "players.txt"
HEADER = "# card-assistant players: tag UID, then the player's name. Written by `card-assistant players`.\n"
SHORT = 5  # as the screen's names and details (screen.short_name): one rule for the whole OLED
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,11}")
GUEST = re.compile(r"[Pp][1-4]")  # a seat nobody tapped a player tag for keeps its own name (no player's: check_name)


class PlayersError(ValueError):
    """A name or a players file that cannot be used; the message says why."""


def short_name(name):
    """The one rule for the OLED: a name longer than 5 characters is cut to 4 and a dot."""
    return name if len(name) <= SHORT else name[:SHORT - 1] + "."


def check_name(name, players=None, keep=None):
    """``name`` if it can name a player (not taken by another than ``keep``), else PlayersError."""
    if not _NAME.fullmatch(name or ""):
        raise PlayersError(f"{name[:40]!r} cannot name a player: one word of 1 to 12 letters (A to Z, "
                           f"no accents), digits, - or _, starting with a letter")
    if GUEST.fullmatch(name):
        raise PlayersError(f"{name!r} is a seat's own name (guests are P1 to P4): choose another")
    if name.lower() in ACTIONS:
        raise PlayersError(f"{name!r} is an action word of the scenario format: choose another")
    try:
        parse_card(name)
    except CardError:
        pass
    else:
        raise PlayersError(f"{name!r} would be read as a card: choose another")
    for uid, other in (players or {}).items():
        if other.lower() == name.lower() and uid != keep:
            raise PlayersError(f"{other!r} is already a player")
    return name


def parse_players(text, source=FILE):
    players = {}
    for n, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2:
            raise PlayersError(f"{source} line {n}: want `UID NAME`")
        try:
            uid = normal_uid(words[0])
        except DeckError as e:
            raise PlayersError(f"{source} line {n}: {e}") from None
        if uid in players:
            raise PlayersError(f"{source} line {n}: tag {uid} is listed twice")
        try:
            players[uid] = check_name(words[1], players)
        except PlayersError as e:
            raise PlayersError(f"{source} line {n}: {e}") from None
    return players


def load_players(state_dir):
    """``{uid: name}`` from the state folder's players file; {} when there is none."""
    from assistant.textfile import read_text, what_is_at
    path = Path(state_dir) / FILE
    try:
        if what_is_at(path) is None:
            return {}
    except OSError as e:  # a folder it may not read, a name too long
        hint = ": run this as the box's user, or with sudo" if isinstance(e, PermissionError) else ""
        raise PlayersError(f"cannot read the players: {path} cannot be read ({e.strerror}){hint}") from None
    try:
        text = read_text(path)
    except ValueError as e:
        raise PlayersError(f"cannot read the players: {e}") from None
    return parse_players(text, str(path))


def save_players(players, state_dir):
    """Write atomically, so a crash mid-write never leaves half a list."""
    from assistant.textfile import write_text
    lines = sorted(players.items(), key=lambda x: x[1].lower())
    write_text(Path(state_dir) / FILE, HEADER + "".join(f"{uid} {name}\n" for uid, name in lines))


class NotSaved(PlayersError):
    """The list could not be written (a full or read-only card): nothing changed."""


def _save(players, state_dir, change):
    """``save_players``, or NotSaved in plain words naming the file and ``change``."""
    from assistant.box.journal_files import say
    try:
        save_players(players, state_dir)
    except OSError as e:
        raise NotSaved(f"{say(Path(state_dir) / FILE, e, 'cannot be saved')}: {change} was not saved; "
                       "the list is as it was") from None


def _uid_of(players, name):
    for uid, other in players.items():
        if other.lower() == name.lower():
            return uid
    raise PlayersError(f"no player {name[:40]!r} (players: {', '.join(sorted(players.values())) or 'none yet'})")


def wait_for_tag(events, say):
    """The UID of the next clean tap from ``events`` (reader events)."""
    from assistant.hw.events import ReaderStatus, TagArrived
    while True:
        event = events.get()
        if isinstance(event, ReaderStatus):
            say(f"  reader: {event.reason}")
        elif isinstance(event, TagArrived):
            if event.inferred:
                say("  ignored: a tag was already lying on a pad (or its tap was garbled); lift it and tap again")
                continue
            return event.uid.upper()


def main(argv, events=None):
    """``events`` (a queue of reader events) replaces the serial port in tests."""
    from assistant.cli import argument_parser
    from assistant.box.reader_port import DEFAULT_PORT, open_reader
    p = argument_parser("card-assistant players", description="Enrol, list, rename and remove player tags.")
    p.add_argument("what", choices=("add", "list", "rename", "remove"), nargs="?")
    p.add_argument("names", nargs="*", metavar="NAME")
    p.add_argument("--state-dir", default=None, help="where the journal and players.txt live (default: the config's)")
    p.add_argument("--config", default=None, help="TOML config, for its state_dir and deck")
    p.add_argument("--port", default=DEFAULT_PORT, help=f"the reader's serial port (default {DEFAULT_PORT})")
    args = p.parse_args(argv)
    if args.what is None:  # argparse named its own variables: "required: what, NAME"
        p.error("say what to do: players add NAME, players list, players rename OLD NEW or players remove NAME")
    want = {"add": 1, "list": 0, "rename": 2, "remove": 1}[args.what]
    if len(args.names) != want:
        p.error(f"players {args.what} takes {want} name(s), not {len(args.names)}")
    me = "card-assistant players"
    say = lambda text: print(text, flush=True)  # noqa: E731
    from assistant.box.config import ConfigError, load
    try:
        cfg = load(args.config)
        state_dir = Path(args.state_dir or cfg.paths.state_dir)
        from assistant.cli import state_dir_problem
        if state_dir_problem(state_dir):
            raise PlayersError(state_dir_problem(state_dir))
        players = load_players(state_dir)
    except (ConfigError, PlayersError) as e:
        print(f"{me}: {e}", file=sys.stderr)
        return 2
    try:
        if args.what == "list":
            for uid, name in sorted(players.items(), key=lambda x: x[1].lower()):
                say(f"{name}  (tag {uid})")
            if not players:
                say("no players yet: card-assistant players add NAME")
            return 0
        if args.what == "remove":
            del players[_uid_of(players, args.names[0])]
            _save(players, state_dir, f"the removal of {args.names[0]}")
            say(f"{args.names[0]} removed; the matches they played keep their name")
            return 0
        if args.what == "rename":
            uid = _uid_of(players, args.names[0])
            players[uid] = check_name(args.names[1], players, keep=uid)
            _save(players, state_dir, f"the new name {args.names[1]}")
            say(f"{args.names[0]} is now {args.names[1]} (earlier matches keep the old name)")
            return 0
        name = check_name(args.names[0], players)
        deck_path = Path(cfg.paths.deck) if os.path.isabs(cfg.paths.deck) else state_dir / cfg.paths.deck
        deck = load_deck(deck_path) if deck_path.exists() else {}
        from assistant.cli import cannot_write
        if problem := cannot_write(state_dir / FILE):  # said before the tap, not after it
            raise NotSaved(f"{problem}: no player can be added")
    except NotSaved as e:
        print(f"{me}: {e}", file=sys.stderr)
        return 1
    except PlayersError as e:
        print(f"{me}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `players list | head -1`: the reader went away, said by no one
        raise
    except (DeckError, OSError) as e:
        print(f"{me}: {e}", file=sys.stderr)
        return 1
    reader = None
    if events is None:
        try:
            events, reader = open_reader(args.port)
        except ValueError as e:
            print(f"{me}: {e}", file=sys.stderr)
            return 2
    try:
        say(f"Tap {name}'s player tag on any pad (a key fob, a sticker: any tag that is not a card).")
        while True:
            uid = wait_for_tag(events, say)
            if uid in deck:
                say("  refused: that tag is a card of the deck; tap a tag that is not a card")
            elif uid in players:
                say(f"  refused: that tag is already {players[uid]}'s")
            else:
                break
        # read again: a rename or an add made while this one waited for the tag (another terminal)
        # was written over with the list as it was read at start, and lost without a word
        players = load_players(state_dir)
        if uid in players:
            raise NotSaved(f"tag {uid} became {players[uid]}'s while this waited for it: nothing was added")
        players[uid] = check_name(name, players)
        _save(players, state_dir, f"{name}'s tag {uid}")
        say(f"{name} = tag {uid}")
        return 0
    except (NotSaved, PlayersError) as e:  # the card filled up, or turned read-only, or the list
        print(f"{me}: {e}", file=sys.stderr)  # changed, while it waited for the tag
        return 1
    except KeyboardInterrupt:
        say("\nStopped: nothing was added.")
        return 130
    finally:
        if reader is not None:
            reader.stop()
