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
PREVIOUS = FILE + ".previous"  # the list before the last change (save_players)
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


def load_players(state_dir, say=None):
    """``{uid: name}`` from the state folder's players file; {} when there is none. A file a power
    cut left empty or zeroed (a card whose fsync returned before the data was on it: the rename
    reached the card, the bytes did not) is no list of no players: the list before its last change
    (``players.txt.previous``) is used, and ``say`` (or the log) is told so in one line."""
    path = Path(state_dir) / FILE
    players = _read_players(path)
    if players is not _DAMAGED:
        return players
    previous = _read_players(path.with_name(PREVIOUS), missing=_MISSING)
    if previous is _MISSING or previous is _DAMAGED:  # nothing to go back to: no players, said (a
        # refusal here would refuse `players add` too, the one way out)
        why = f"there is no {PREVIOUS} beside it" if previous is _MISSING else f"{PREVIOUS} is damaged too"
        words = (f"{path} is {_damage(path)} (a power cut while it was written?) and {why}: no players "
                 f"until they are added again (card-assistant players add NAME)")
        previous = {}
    else:
        words = (f"{path} is {_damage(path)} (a power cut while it was written?): the list as it was before "
                 f"its last change ({PREVIOUS}, {len(previous)} player(s)) is used; the next change writes it whole")
    if say is None:
        import logging
        logging.getLogger("card-assistant").warning("%s", words)
    else:
        say(words)
    return previous


_DAMAGED = object()  # what _read_players answers for a file with no list in it (empty, zeros)
_MISSING = object()


def _damage(path):
    try:
        return "empty" if path.stat().st_size == 0 else "all zero bytes"
    except OSError:
        return "unreadable"


def _read_players(path, missing=None):
    """The players of the file ``path``; ``missing`` when there is none; _DAMAGED when it is empty
    or holds zeros only (``players`` always writes its first line), or PlayersError saying why not."""
    from assistant.textfile import read_text, what_is_at
    try:
        if what_is_at(path) is None:
            return {} if missing is None else missing
    except OSError as e:  # a folder it may not read, a name too long
        hint = ": run this as the box's user, or with sudo" if isinstance(e, PermissionError) else ""
        raise PlayersError(f"cannot read the players: {path} cannot be read ({e.strerror}){hint}") from None
    try:
        text = read_text(path)
    except ValueError as e:
        raise PlayersError(f"cannot read the players: {e}") from None
    if not text.strip("\0"):
        return _DAMAGED
    try:
        return parse_players(text, str(path))
    except PlayersError:
        if path.name == PREVIOUS:
            return _DAMAGED
        raise


def save_players(players, state_dir):
    """Write atomically, so a crash mid-write never leaves half a list; the list it replaces is
    kept as players.txt.previous (a hard link: no byte written), for a card that loses the new
    file's bytes in a power cut (load_players)."""
    from assistant.textfile import write_text
    path = Path(state_dir) / FILE
    lines = sorted(players.items(), key=lambda x: x[1].lower())
    _keep_previous(path)
    write_text(path, HEADER + "".join(f"{uid} {name}\n" for uid, name in lines))


def _keep_previous(path):
    """Link the list at ``path`` as players.txt.previous, when it is one (never a damaged file over
    the list a damaged one fell back on); nothing when it cannot be (a file system with no links)."""
    try:
        if not isinstance(_read_players(path, missing=_DAMAGED), dict):
            return
    except PlayersError:
        return
    # one name (a kill between link and rename leaves one, never many), and not NAME.xxxxxxxx.tmp,
    # which textfile sweeps: "previous" is 8 letters, so another players command took it away
    link = path.with_name(f"{PREVIOUS}.new")
    try:
        try:
            os.unlink(link)
        except FileNotFoundError:
            pass
        os.link(path, link, follow_symlinks=False)
        os.replace(link, path.with_name(PREVIOUS))
    except OSError:
        try:
            os.unlink(link)
        except OSError:
            pass


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
    from assistant.cli import argument_parser, folder_named
    from assistant.box.reader_port import DEFAULT_PORT, open_reader
    p = argument_parser("card-assistant players", description="Enrol, list, rename and remove player tags.")
    p.add_argument("what", choices=("add", "list", "rename", "remove"), nargs="?")
    p.add_argument("names", nargs="*", metavar="NAME")
    p.add_argument("--state-dir", default=None, type=folder_named, help="where the journal and players.txt live (default: the config's)")
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
        players = load_players(state_dir, lambda words: print(f"{me}: {words}", file=sys.stderr))
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
