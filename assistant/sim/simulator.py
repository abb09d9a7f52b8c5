"""`card-assistant sim`: the whole box on a laptop, with simulated pins, display and reader.

The same :class:`Box` as on the Pi, on mock hardware (:mod:`assistant.sim.simbox`): gpiozero's
``MockFactory`` for the buttons, buzzer and LED, luma's ``dummy`` device for the screen, and a
real pty fed by the virtual firmware speaking the real wire protocol for the card pads.

* Interactive: the screen is drawn in the terminal and typed words tap cards and press
  the buttons (:mod:`assistant.sim.keyboard`).
* Bots: ``--bots`` plays whole matches through the full stack: the bots tap
  cards on the virtual pads and press the mock buttons, inject reneges at
  ``--renege-rate`` and the run ends with injected versus proven reneges.
"""
import os
import sys
import tempfile
from pathlib import Path

from assistant.cli import argument_parser, folder_named, shown
from assistant.box.journal_files import JournalUnavailable, private_dir
from assistant.box.players import PlayersError
from assistant.sim.simbox import SimBox

PAD_ROLES = {"towers": ("P1", "P2", "centre"), "twenty-nine": ("P1", "P2", "P3", "P4", "centre")}
# four seats' pads fit a match of either game begun from the menu, as on a four-pad box: in towers
# the pads of P3 and P4 act as the centre (the up-card goes on one of them)
FOUR_SEATS = ("P1", "P2", "P3", "P4")
DEFAULT_PADS = {"towers": FOUR_SEATS, "twenty-nine": FOUR_SEATS}


def parse_args(argv):
    """The arguments, every one checked before anything starts (argparse's one-line errors)."""
    from assistant.sim.keyboard import KEYS_HELP
    p = argument_parser("card-assistant sim", description=__doc__.split("\n\n")[0],
                        epilog="Without --bots you play at the keyboard: " + " ".join(KEYS_HELP.split()))
    p.add_argument("--game", choices=("towers", "twenty-nine"), default=None,
                   help="the game a new match offers first; default: the game of the match in play in "
                        "--state-dir (which goes on whatever this says), else towers")
    p.add_argument("--bots", action="store_true", help="let bots play whole matches")
    p.add_argument("--matches", type=int, default=None, help="with --bots: how many matches (1 or more)")
    p.add_argument("--seed", type=int, default=None, help="with --bots: the seed of the deals and choices")
    p.add_argument("--renege-rate", type=float, default=None,
                   help="with --bots: the share of plays that renege when able, 0 to 1")
    p.add_argument("--pace", type=float, default=None, metavar="SECONDS",
                   help="with --bots: wait this long after each action, to watch them play "
                        "(on the web page's Now page); 0 to 10, default 0")
    p.add_argument("--frames", metavar="DIR", type=folder_named, help="save every displayed frame as PNG")
    p.add_argument("--state-dir", type=folder_named, help="journal and deck (default: a new temporary directory)")
    p.add_argument("--pads", default=None,
                   help="pad roles in the reader's pad order, e.g. P1,P2,centre (default: P1,P2,P3,P4, "
                        "which fits a match of either game begun from the menu)")
    p.add_argument("--deal-scan", action="store_true", help="players scan their hands before play")
    p.add_argument("--player", action="append", default=[], metavar="NAME",
                   help="a player with a tag (repeat it); at the keyboard type the name to tap the tag")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a Twenty-Nine house rule, e.g. --option pair=on")
    p.add_argument("--verbose", action="store_true", help="log every action (public ones only)")
    p.add_argument("--config", metavar="FILE",
                   help="a box's TOML config; the simulated box takes its [club] section and joins "
                        "that club as a real box would (docs/club.md)")
    p.add_argument("--club", action="store_true",
                   help="with --bots: a club night (a private Mosquitto, the board, --tables boxes)")
    p.add_argument("--tables", type=int, default=8, help="with --club: how many tables (1 to 200)")
    p.add_argument("--chaos", action="store_true",
                   help="with --club: kill the broker and the board, drop connections, as it plays")
    args = p.parse_args(argv)
    # given without --bots they changed nothing, and said nothing (at the keyboard you play yourself)
    bots_only = [f"--{name.replace('_', '-')}" for name in ("matches", "seed", "renege_rate", "pace")
                 if getattr(args, name) is not None]
    for name, default in (("matches", 1), ("seed", 1), ("renege_rate", 0.0), ("pace", 0.0)):
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.club and not args.bots:
        p.error("--club plays with bots: add --bots")
    if args.club:  # a club night's tables play with their own bots: say what it ignores
        ignored = [flag for flag, given in (
            (f"--game {args.game}", args.game not in (None, "towers")), ("--frames", args.frames),
            ("--pads", args.pads), ("--deal-scan", args.deal_scan), ("--player", args.player),
            ("--option", args.option), ("--renege-rate", args.renege_rate)) if given]
        if ignored:
            p.error(f"--club plays towers and Twenty-Nine at alternate tables, with its own bots and "
                    f"players, and takes no {', '.join(ignored)}")
    if args.club and args.config:
        p.error("--club runs a whole club in a box; --config FILE makes this one box join the club of "
                "FILE's [club] section: give one of them")
    args.club_cfg = None
    if args.config is not None:
        from assistant.box.config import ConfigError, load
        try:
            args.club_cfg = load(args.config).club
        except ConfigError as e:
            p.error(f"--config {e}")
        if not args.club_cfg.broker:
            p.error(f"--config {args.config}: the simulator takes only its [club] section, and it names "
                    "no broker (docs/club.md)")
    if (args.tables != 8 or args.chaos) and not args.club:
        p.error("--tables and --chaos go with --club")
    if not 1 <= args.tables <= 200:
        p.error(f"--tables must be 1 to 200, not {args.tables}")
    if not 0.0 <= args.pace <= 10.0:
        p.error(f"--pace is seconds to wait after each action, from 0 to 10, not {args.pace}")
    if args.matches < 1:
        p.error(f"--matches must be 1 or more, not {args.matches}")
    if not 0.0 <= args.renege_rate <= 1.0:  # NaN fails both comparisons, so it is refused too
        p.error(f"--renege-rate is a share of plays, from 0 to 1, not {args.renege_rate}")
    if bots_only and not args.bots:
        p.error(f"{', '.join(bots_only)} go{'es' if len(bots_only) == 1 else ''} with --bots (without it "
                "you play at the keyboard, one match after another)")
    playing = journal_match(args.state_dir) if args.state_dir else None
    in_play = playing and playing.game
    if args.game is None:
        args.game = in_play or "towers"
    # --game names another game than the match in play: the box resumes that match (say so)
    args.resuming_other = in_play if in_play and in_play != args.game and not args.bots else None
    args.playing = playing
    roles = PAD_ROLES[args.game]
    if args.pads is None:
        args.pads = DEFAULT_PADS[args.game]
    else:
        pads = tuple(x.strip() for x in args.pads.split(","))
        wrong = [] if sorted(pads) == list(FOUR_SEATS) else [x for x in pads if x not in roles]
        if wrong or not 1 <= len(pads) <= 4 or len(set(pads)) != len(pads):
            p.error(f"--pads {args.pads!r} does not fit {args.game}: name 1 to 4 different pads "
                    f"of {', '.join(roles)}, separated by commas"
                    + (f" (or the four seats' pads, {','.join(FOUR_SEATS)})" if "P3" not in roles else ""))
        from assistant.box.table_menus import seats_without_a_pad
        seats = [r for r in roles if r != "centre"]
        missing = [r for r in seats if r not in pads]
        # a seat with nowhere to tap; in towers the bots' dealer discards on their own pad
        if seats_without_a_pad(pads, args.game) or (missing and args.game == "towers" and args.bots):
            p.error(f"--pads {args.pads!r} does not fit {args.game}: {', '.join(missing)} would have no pad"
                    + (" for the discard" if args.game == "towers" and args.bots else "; add centre"))
        args.pads = pads
    from assistant.box.config import GAME_OPTIONS
    from assistant.rules.match import ENGINES, engine_class
    options = {}
    for opt in args.option:
        if not engine_class(args.game).OPTIONS:
            with_rules = [g for g in ENGINES if engine_class(g).OPTIONS]
            p.error(f"--option {opt!r}: house rules are for "
                    f"{' and '.join(engine_class(g).title for g in with_rules)}; {args.game} has none "
                    f"(add --game {with_rules[0]})")
        key, _, value = (x.strip() for x in opt.partition("="))
        allowed = GAME_OPTIONS.get(key)
        if allowed is None:
            p.error(f"unknown house rule {key!r} (known: {', '.join(GAME_OPTIONS)})")
        if value not in [str(v) for v in allowed]:
            p.error(f"{key} takes {' or '.join(map(str, allowed))}, not {value!r}")
        if key in options:  # as a scenario refuses a second 'option' line for one key
            p.error(f"--option {key} is given twice ({options[key]} and {value}): give each house rule once")
        options[key] = int(value) if value.isdigit() else value
    args.options = options
    from assistant.box.players import PlayersError, check_name
    from assistant.sim.keyboard import key_meaning
    given = {}
    for i, name in enumerate(args.player):
        try:
            given[i] = check_name(name, given)  # names that differ only in case: refused
        except PlayersError as e:
            p.error(f"--player {name[:40]}: {e}")
        if not args.bots and key_meaning(name):  # typed alone, the name would press the key
            p.error(f"--player {name}: at the keyboard, typing {name} is the key for "
                    f"{key_meaning(name)}, not the player's tag: choose another name")
    from assistant.sim.bots import cannot_scan
    if args.bots and args.deal_scan and cannot_scan(args.game):
        p.error(f"--deal-scan: {cannot_scan(args.game)}")
    from assistant.textfile import what_is_at
    for flag, folder in (("--state-dir", args.state_dir), ("--frames", args.frames)):
        try:
            kind = what_is_at(folder) if folder is not None else None
        except OSError as e:  # a folder under one this user may not enter, a name too long
            p.error(f"{flag} {folder}: cannot be reached ({e.strerror})")
        if kind == "other":  # a socket, a pipe, a device: said as what it is
            from assistant.textfile import not_a_file
            p.error(f"{flag} {folder}: that {not_a_file(os.stat(folder).st_mode, 'a folder')}")
        if kind not in (None, "folder"):
            p.error(f"{flag} {folder}: that is a file, not a folder")
    return args


def journal_match(state_dir):
    """The match in play in ``state_dir``'s journal, or None (none, over, unreadable: the box says
    why when it starts)."""
    import sqlite3
    from assistant.box.journal import Journal, JournalError
    from assistant.textfile import what_is_at
    path = Path(state_dir) / "journal.sqlite3"
    try:
        if what_is_at(path) != "file":
            return None
    except OSError:  # a folder it may not read: said when the box starts
        return None
    try:
        journal = Journal(str(path), readonly=True)
        try:
            match, _, _ = journal.read()
        finally:
            journal.close()
    except (JournalError, sqlite3.Error, OSError, ValueError):
        return None
    if match is None or match.engine.phase == "over":
        return None
    return match


def other_rules_words(args):
    """What to say when ``--option`` asks for other house rules than the match in play keeps (it
    goes on with its own), else None."""
    from assistant.box.config import GAME_OPTIONS
    m = args.playing
    if not args.options or m is None or args.bots or m.game != args.game:
        return None
    asked = {k: str(v) for k, v in args.options.items() if str(v) != str(GAME_OPTIONS[k][0])}
    if asked == dict(m.options):
        return None
    kept = ", ".join(f"{k}={v}" for k, v in m.options.items()) or "none"
    given = " ".join(f"--option {k}={v}" for k, v in args.options.items())
    return (f"card-assistant sim: {shown(args.state_dir)} holds a match in play with its own house rules "
            f"({kept}), which goes on; {given} is for the next new match (hold OK: the menu)")


def main(argv):
    args = parse_args(argv)
    if args.club:
        return club_main(args)
    if not args.bots and sys.stdin is None:  # `sim <&-`: input() failed at the first prompt, a "bug"
        print("card-assistant sim: standard input is closed: there is no keyboard to play at "
              "(--bots plays without one)", file=sys.stderr)
        return 2
    import logging
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        state_dir = args.state_dir or tempfile.mkdtemp(prefix="card-assistant-sim-")
        private_dir(state_dir)  # made 0700, or one line saying why not: the journal's own rule and words
        if args.frames is not None:
            Path(args.frames).mkdir(parents=True, exist_ok=True)
    except JournalUnavailable as e:
        print(f"card-assistant sim: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"card-assistant sim: cannot make the folder {shown(e.filename)}: {e.strerror}", file=sys.stderr)
        return 1
    from assistant.box import statelock
    try:  # held until the process ends; its box holds it again (a second sim, or a `run`: refused)
        statelock.hold(state_dir, "sim")
    except statelock.StateBusy as e:
        print(f"card-assistant sim: {e}", file=sys.stderr)
        return 1
    except JournalUnavailable:  # a folder this user may not open (mode 000): the box says it
        pass
    from assistant.sim.keyboard import hold_in_a_short_terminal, say  # notes, broken to fit a terminal
    if not args.bots:
        hold_in_a_short_terminal()
    try:
        sim = SimBox(state_dir, args.game, args.pads, args.frames, args.options, args.deal_scan,
                     args.player, club=args.club_cfg).start()
        if args.resuming_other:
            from assistant.rules.match import engine_class
            say(f"card-assistant sim: {shown(args.state_dir)} holds a {engine_class(args.resuming_other).title} "
                f"match in play, which goes on; --game {args.game} is offered first at the next new "
                f"match (hold OK: the menu)")
        if words := other_rules_words(args):
            say(words)
        if getattr(sim.table, "scan_kept", False):
            say(f"card-assistant sim: {shown(args.state_dir)} holds a match in play begun with --deal-scan, "
                f"which goes on with deal scan on; without --deal-scan, the next new match has it off "
                f"(hold OK: the menu switches it)")
        if not args.state_dir:  # quit and start again: a fresh journal, unless it is named ('' names none)
            say(f"card-assistant sim: the journal is in {shown(state_dir)}, a new temporary folder; to keep "
                f"the match and resume it after quitting, start with --state-dir FOLDER")
    except OSError as e:  # the simulator's own deck or players file: its path in words, no errno
        print(f"card-assistant sim: cannot write {e.filename2 or e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    except RuntimeError as e:
        print(f"card-assistant sim: {e}", file=sys.stderr)
        return 1
    except PlayersError as e:  # the state folder's players file, unreadable: said, as `players` says it
        print(f"card-assistant sim: {e}", file=sys.stderr)
        return 2
    try:
        from assistant.box.daemon import JournalRefused
        if args.bots and isinstance(sim.table, JournalRefused):  # the box's log line said why
            return 1
        if args.bots:
            from assistant.hw.display import to_terminal
            from assistant.sim.bots import run_bots
            from assistant.sim.bots import SimError
            try:
                status = run_bots(sim, args.game, args.matches, args.seed, args.renege_rate, pace=args.pace)
            except SimError as e:  # the box refused a bot's action (a full card, say): said, not a bug report
                print(f"card-assistant sim: the bots stopped: {e}", file=sys.stderr)
                return 1
            except KeyboardInterrupt:  # Ctrl-C: the bots' match in play is kept, as the keyboard's is
                print()
                say_how_to_resume(sim, args.state_dir, state_dir)
                raise
            print("the last frame on the OLED:")
            print(to_terminal(sim.box.frame, compact=True))
            if args.club_cfg is not None:
                club_sent(sim.box.table.journal)
            return status
        from assistant.sim.keyboard import interactive
        try:
            status = interactive(sim)
        except KeyboardInterrupt:  # Ctrl-C: said on a line of its own, after the prompt's
            print()
            say_how_to_resume(sim, args.state_dir, state_dir)
            raise
        say_how_to_resume(sim, args.state_dir, state_dir)
        return status
    finally:
        sim.stop()


def say_how_to_resume(sim, named, state_dir):
    """A match left in play in the temporary folder (quit at the keyboard, or the bots stopped with
    Ctrl-C): how to go on with it (the line at the start that said where the journal is has long
    scrolled away)."""
    from assistant.sim.keyboard import say
    match = getattr(sim.table, "match", None)
    if not named and match is not None and match.engine.phase != "over":
        say(f"card-assistant sim: the match in play is kept in {shown(state_dir)}; to resume it, start "
            f"again with --state-dir {shown(state_dir)}")


def club_sent(journal, wait=10.0):
    """Give the publisher ``wait`` seconds to send what is left, as a box left on would; say so
    when messages still wait (they go at the next start on this state folder)."""
    import time
    deadline = time.monotonic() + wait
    while journal is not None and journal.outbox_raw(0, 1) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = len(journal.outbox_raw(0, 1_000_000)) if journal is not None else 0
    if left:
        print(f"card-assistant sim: {left} club message(s) wait in the journal for the broker; they are "
              f"sent when the box next starts on this --state-dir")


def club_main(args):
    import signal
    from assistant.club.broker import BrokerMissing
    from assistant.club.club_sim import run_club
    # stopped (kill, a closed terminal's SIGHUP) as by Ctrl-C: the night's broker and board, in
    # sessions of their own, are stopped on the way out; before, they ran on, orphaned, for ever
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stopped)
    try:
        status, _ = run_club(args.tables, args.matches, args.seed, args.chaos, folder=args.state_dir)
    except (BrokerMissing, RuntimeError, OSError) as e:
        print(f"card-assistant sim --club: {e}", file=sys.stderr)
        return 1
    return status


def stopped(signum, frame):
    """A signal handler: leave the way Ctrl-C does (every ``finally`` runs), with 128 + the
    signal's number as the status, as a shell reports a program the signal ended; a second one
    does not cut that short."""
    import signal
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
