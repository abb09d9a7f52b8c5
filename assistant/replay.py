"""`card-assistant replay FILE [--json] [--export OUT]`: apply a scenario, print where it ends.

A refused action stops the replay with exit status 2 and one line on standard
error naming the line number and the reason (docs/scenario-format.md, version 1).
FILE ``-`` reads standard input. A file that is not a scenario at all (a folder,
binary data, more than a mebibyte) and an export path that cannot be written are
refused the same way, in one line, before anything is written.
"""
import json
import os
import stat
import sys

from assistant.rules.cards import SUIT_SYMBOLS, SUITS
from assistant.cli import argument_parser, cannot_write, shown
from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.rules.scenario import ScenarioError, read_header
from assistant.textfile import write_out


def replay_lines(lines):
    """Replay scenario lines into a Match; raises ScenarioError at the first bad line."""
    sc = read_header(lines)
    try:
        match = Match(sc.game, sc.seats, sc.options)
    except Refused as e:
        raise ScenarioError(1, str(e)) from None
    for lineno, action in sc.actions():
        try:
            match.apply(action)
        except Refused as e:
            raise ScenarioError(lineno, str(e)) from None
    return match


def summary(state, options=None):
    """A few lines of plain words for people, from the replay state and the house rules."""
    seats = state["seats"]
    towers = state["game"] == "towers"
    if towers:
        score = ", ".join(f"{n} {s}" for n, s in zip(seats, state["score"]))
        lines = [f"towers, first to 5 towers: {score}"]
    else:
        sides = [f"{seats[0]}+{seats[2]}", f"{seats[1]}+{seats[3]}"]
        score = ", ".join(f"{n} {s}" for n, s in zip(sides, state["score"]))
        goal = ("only the bidding side's score moves, +6 wins and -6 loses"
                if (options or {}).get("scoring") == "pagat" else "first side to 6")
        lines = [f"Twenty-Nine, {goal}: {score}"]
        if options:
            lines.append("House rules: " + ", ".join(f"{k}={v}" for k, v in options.items()))
    if state["winner"]:
        lines.append("Winner: " + " and ".join(state["winner"]))
    hand = state.get("hand") or 0
    if hand:
        trump = state["trump"]
        trump_words = ("hidden" if trump == "hidden" else
                       "not set" if trump is None else SUIT_SYMBOLS[SUITS.index(trump)])
        tricks = ", ".join(f"{n} {t}" for n, t in zip(seats, state["tricks"]))
        head = f"Hand {hand} ({state['hand_size']} cards)" if towers else f"Round {hand}"  # N1-N11's word
        lines.append(f"{head}: trump {trump_words}; tricks {tricks}")
        if not towers:
            lines.append(f"Card points: {sides[0]} {state['points'][0]}, {sides[1]} {state['points'][1]}")
    if state["dealer"] is not None and not state["winner"]:
        size = f", {state['hand_size']} cards each" if towers else ""
        lines.append(f"Dealer: {state['dealer']}{size}")
    elif not state["winner"]:
        lines.append("Dealer: to be found by the black-jack flip")
    if state.get("waiting"):
        lines.append(f"Now: {state['waiting']}")
    for r in state["reneges"]:
        lines.append(f"Renege proven: {r['seat']}, {'hand' if towers else 'round'} {r['hand']}, trick {r['trick']}")
    return "\n".join(lines)


MAX_BYTES = 1 << 20  # a long match is a few kilobytes; past a mebibyte it is not a scenario
MAX_SHOWN = 160  # characters of a refusal shown: a refused token may be a whole huge line


def read_scenario(name, stdin=None):
    """The lines of the scenario file ``name`` ('-': standard input); OSError or ValueError with
    a plain reason when it cannot be read as one."""
    if name == "-":
        stream = stdin or getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise ValueError("there is no standard input")
        data = stream.read(MAX_BYTES + 1)
    else:
        # Opened without waiting: a named pipe that nobody writes to would hang the replay in
        # open() for ever; this way it reads as empty (then blocking, for a writer that is there).
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            os.set_blocking(fd, True)
            data = f.read(MAX_BYTES + 1)
            if not data and stat.S_ISFIFO(os.fstat(fd).st_mode):
                raise ValueError("it is a pipe and nothing was written to it")
    if len(data) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES // 1024} KiB: that is no scenario")
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark is not a word
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 text (byte {e.object[e.start]:#04x} at offset {e.start})") from None
    if "\0" in text:
        raise ValueError("not a text file (it holds NUL bytes)")
    # A line ends at a newline (LF, CRLF or a lone CR), as in an editor, grep or sed: not at the
    # other breaks str.splitlines knows (U+2028, form feed, ...), which may sit inside a comment.
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def brief(text):
    """``text`` on one line (a newline in a file name would break it in two), cut short."""
    text = shown(text)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


def same_file(args):
    """Why OUT may not be FILE itself, or None: the export leaves out comments and undone
    actions, so written over its own input it would silently rewrite a player's record."""
    try:
        same = args.file != "-" and os.path.samefile(args.file, args.export)
    except OSError:  # one of them is not there: they are not the same file
        return None
    return f"{args.export} is the scenario being replayed: export to another file" if same else None


def main(argv):
    parser = argument_parser("card-assistant replay",
                             description="Replay a scenario file and print the state it ends in.",
                             epilog="The scenario format is described in docs/scenario-format.md.")
    parser.add_argument("file", help="scenario file, or '-' for standard input")
    parser.add_argument("--json", action="store_true", help="print the state as one JSON object")
    parser.add_argument("--export", metavar="OUT",
                        help="also write the actions in effect as a scenario file ('-' for standard output)")
    args = parser.parse_args(argv)
    me = "card-assistant replay"
    if args.json and args.export == "-":
        print(f"{me}: --json and --export - would both go to standard output: "
              f"export to a file, or drop one of them", file=sys.stderr)
        return 2
    problem = args.export not in (None, "-") and (cannot_write(args.export) or same_file(args))
    if problem:
        print(f"{me}: cannot export: {shown(problem)}", file=sys.stderr)
        return 2
    where = "standard input" if args.file == "-" else args.file
    try:
        lines = read_scenario(args.file)
    except IsADirectoryError:
        print(f"{me}: {brief(where)} is a folder, not a scenario file", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{me}: cannot read {brief(where)}: {e.strerror or e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"{me}: cannot read {brief(where)}: {e}", file=sys.stderr)
        return 2
    try:
        match = replay_lines(lines)
    except ScenarioError as e:
        print(f"line {e.line}: {brief(e.message)}", file=sys.stderr)
        return 2
    state = match.state()
    if args.export:
        text = match.export()
        if args.export == "-":
            sys.stdout.write(text)
        else:
            try:
                write_out(args.export, text, mode=0o600)  # it holds the deal
            except OSError as e:
                print(f"{me}: cannot write {shown(args.export)}: {e.strerror or e}", file=sys.stderr)
                return 2
    if args.json:
        print(json.dumps(state, ensure_ascii=False))
    elif args.export != "-":
        state["waiting"] = match.engine.waiting_for()
        print(summary(state, match.options))
    return 0
