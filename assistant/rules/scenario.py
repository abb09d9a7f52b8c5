"""The scenario format, version 1: read it line by line, write it back.

A scenario is the public record of a match (``docs/scenario-format.md``):
header lines (``game``, ``seats``, ``option``) then one action a line. Reading
is lazy so that a replay reports the first bad line in file order, whether the
fault is in its words or in the rules.

>>> sc = read_header(["game towers", "seats Ann Bob", "upcard 9s"])
>>> sc.game, sc.seats
('towers', ('Ann', 'Bob'))
>>> [format_action(a, sc.seats) for _, a in sc.actions()]
['upcard 9S']
"""
from dataclasses import dataclass, field

from assistant.rules.cards import CardError, card_name, parse_card, parse_suit, SUITS
from assistant.rules.game import Action  # noqa: F401  (the format's actions; imported from here by many)
from assistant.rules.towers import OPTIONS as TOWERS_OPTIONS
from assistant.rules.twentynine import OPTIONS as TWENTY_NINE_OPTIONS

GAMES = {"towers": 2, "twenty-nine": 4}
MAX_SEAT_NAME = 32  # characters; a player's name is at most 12 (box/players.py)
OPTIONS = TWENTY_NINE_OPTIONS  # the rules own their options; the format names them
GAME_OPTIONS = {"towers": TOWERS_OPTIONS, "twenty-nine": TWENTY_NINE_OPTIONS}

# keyword -> (games it belongs to, argument shape)
#   "" no argument, "card" one card, "cards" one or more cards, "seat?" optional seat,
#   "seat" a seat, "flip" optional seat then cards, "hand" seat then cards, "suit", "number"
ACTIONS = {
    "flip": ("both", "flip"),
    "hand": ("both", "hand"),
    "play": ("both", "card"),
    "accuse": ("both", "seat"),
    "claim": ("both", "seat?"),
    "undo": ("both", ""),
    "pass": ("both", ""),
    "upcard": ("towers", "card"),
    "accept": ("towers", ""),
    "name": ("towers", "suit"),
    "discard": ("towers", "card"),
    "for2": ("towers", ""),
    "bid": ("twenty-nine", "number"),
    "seventh": ("twenty-nine", ""),
    "trump": ("twenty-nine", "card"),
    "call": ("twenty-nine", ""),
    "finish": ("twenty-nine", ""),
    "double": ("twenty-nine", "seat?"),
    "redouble": ("twenty-nine", "seat?"),
    "pair": ("twenty-nine", "seat?"),
}


class ScenarioError(ValueError):
    """A line that cannot be read, or an action the rules refuse; ``line`` is 1-based."""

    def __init__(self, line, message):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


def seat_index(token, seats):
    """A seat name or ``P1``.. as a 0-based index, or None when the token is no seat."""
    t = token.lower()
    for i, name in enumerate(seats):
        if t == name.lower():
            return i
    if len(t) == 2 and t[0] == "p" and t[1] in "1234" and 1 <= int(t[1]) <= len(seats):
        return int(t[1]) - 1
    return None


@dataclass
class Scenario:
    """A scenario's header and the lines after it, read lazily by :meth:`actions`."""
    game: str
    seats: tuple
    options: dict = field(default_factory=dict)
    body: list = field(default_factory=list)  # (line number, tokens)

    def actions(self):
        """Yield ``(line number, Action)``; raises ScenarioError at the first unreadable line."""
        for lineno, tokens in self.body:
            yield lineno, parse_action(tokens, self.game, self.seats, lineno)


def _tokens(line):
    return line.split("#", 1)[0].split()


def read_header(lines):
    """Read the header of a scenario given as an iterable of lines; the rest stays unparsed."""
    game = None
    seats = None
    options = {}
    body = []
    for lineno, line in enumerate(lines, 1):
        tokens = _tokens(line)
        if not tokens:
            continue
        word = tokens[0].lower()
        if game is None:
            if word != "game" or len(tokens) != 2 or tokens[1].lower() not in GAMES:
                raise ScenarioError(lineno, "a scenario starts with 'game towers' or 'game twenty-nine'")
            game = tokens[1].lower()
            continue
        if word in ("seats", "option", "game"):
            if body:
                raise ScenarioError(lineno, f"'{word}' lines come before the first action")
            if word == "game":
                raise ScenarioError(lineno, "the game is already set")
            if word == "seats":
                if seats is not None:
                    raise ScenarioError(lineno, "the seats are already named")
                seats = _read_seats(tokens[1:], game, lineno)
            else:
                _read_option(tokens[1:], game, options, lineno)
            continue
        body.append((lineno, tokens))
    if game is None:
        raise ScenarioError(1, "a scenario starts with 'game towers' or 'game twenty-nine'")
    if seats is None:
        seats = tuple(f"P{i + 1}" for i in range(GAMES[game]))
    return Scenario(game, seats, options, body)


def _read_seats(names, game, lineno):
    n = GAMES[game]
    if len(names) != n:
        raise ScenarioError(lineno, f"{game} has {n} seats: name exactly {n}")
    lowered = [x.lower() for x in names]
    if len(set(lowered)) != n:
        raise ScenarioError(lineno, "two seats have the same name")
    for i, name in enumerate(names):
        if len(name) > MAX_SEAT_NAME:  # the journal keeps no longer one (box/salvage.py)
            raise ScenarioError(lineno, f"seat name {name[:20]!r}... is {len(name)} characters long: "
                                        f"at most {MAX_SEAT_NAME}")
        if not name.isprintable():
            raise ScenarioError(lineno, f"seat name {name!r} holds a control character")
        other_p = seat_index(name, tuple(f"P{k + 1}" for k in range(4)))
        if other_p is not None and other_p != i:
            raise ScenarioError(lineno, f"seat name {name!r} would be read as another seat")
        if name.lower() in ACTIONS:
            raise ScenarioError(lineno, f"seat name {name!r} is an action word")
        try:
            parse_card(name)
        except CardError:
            continue
        raise ScenarioError(lineno, f"seat name {name!r} would be read as a card")
    return tuple(names)


def _read_option(args, game, options, lineno):
    allowed = GAME_OPTIONS[game]
    if len(args) != 1 or "=" not in args[0]:
        raise ScenarioError(lineno, "write an option as 'option KEY=VALUE'")
    key, value = (x.strip().lower() for x in args[0].split("=", 1))
    if not allowed:
        raise ScenarioError(lineno, f"{game} has no options")
    if key not in allowed:
        raise ScenarioError(lineno, f"unknown option {key!r} (known: {', '.join(allowed)})")
    if value not in allowed[key]:
        raise ScenarioError(lineno, f"option {key} takes {' or '.join(allowed[key])}, not {value!r}")
    if key in options:  # two lines 'option pair=on' and 'option pair=off': which one was meant?
        raise ScenarioError(lineno, f"option {key} is given a second time (each option once)")
    options[key] = value


def _card(token, lineno):
    try:
        return parse_card(token)
    except CardError as e:
        raise ScenarioError(lineno, str(e)) from None


def _seat(token, seats, lineno):
    i = seat_index(token, seats)
    if i is None:
        raise ScenarioError(lineno, f"{token!r} is not a seat here (seats: {' '.join(seats)})")
    return i


def parse_action(tokens, game, seats, lineno):
    word, args = tokens[0].lower(), tokens[1:]
    spec = ACTIONS.get(word)
    if spec is None or (spec[0] != "both" and spec[0] != game):
        if word in ("game", "seats", "option"):
            raise ScenarioError(lineno, f"'{word}' lines come before the first action")
        where = "" if spec is None else f" in {game}"
        raise ScenarioError(lineno, f"unknown action {tokens[0]!r}{where}")
    shape = spec[1]
    if shape == "":
        if args:
            raise ScenarioError(lineno, f"'{word}' takes nothing after it")
        return Action(word)
    if shape == "card":
        if len(args) != 1:
            raise ScenarioError(lineno, f"'{word}' takes one card")
        return Action(word, cards=(_card(args[0], lineno),))
    if shape == "suit":
        if len(args) != 1:
            raise ScenarioError(lineno, f"'{word}' takes one suit")
        try:
            return Action(word, value=parse_suit(args[0]))
        except CardError as e:
            raise ScenarioError(lineno, str(e)) from None
    if shape == "number":
        if len(args) != 1 or not (args[0].isascii() and args[0].isdigit()) or len(args[0]) > 6:
            raise ScenarioError(lineno, f"'{word}' takes a number, like 'bid 17'")
        return Action(word, value=int(args[0]))
    if shape in ("seat", "seat?"):
        if not args:
            if shape == "seat":
                raise ScenarioError(lineno, f"'{word}' takes a seat")
            return Action(word)
        if len(args) != 1:
            raise ScenarioError(lineno, f"'{word}' takes one seat")
        return Action(word, seat=_seat(args[0], seats, lineno))
    if shape == "hand":
        if len(args) < 2:
            raise ScenarioError(lineno, "'hand' takes a seat and the cards dealt to it")
        return Action(word, seat=_seat(args[0], seats, lineno),
                      cards=tuple(_card(t, lineno) for t in args[1:]))
    # flip: an optional first seat, then cards
    seat = seat_index(args[0], seats) if args else None
    cards = args[1:] if seat is not None else args
    if not cards:
        raise ScenarioError(lineno, "'flip' takes the cards turned, like 'flip P1 9H KS JC'")
    return Action(word, seat=seat, cards=tuple(_card(t, lineno) for t in cards))


def format_action(action, seats):
    """The scenario line for an action, with seat names."""
    parts = [action.kind]
    if action.seat is not None:
        parts.append(seats[action.seat])
    if action.kind == "name":
        parts.append(SUITS[action.value])
    elif action.value is not None:
        parts.append(str(action.value))
    parts.extend(card_name(c) for c in action.cards)
    return " ".join(parts)


def format_scenario(game, seats, options, actions, comment=None):
    """A whole scenario file: header, then one line an action."""
    lines = [f"# {line}" for line in (comment or "").splitlines()]
    lines.append(f"game {game}")
    if tuple(seats) != tuple(f"P{i + 1}" for i in range(len(seats))):
        lines.append("seats " + " ".join(seats))
    lines += [f"option {k}={v}" for k, v in options.items()]
    lines += [format_action(a, seats) for a in actions]
    return "\n".join(lines) + "\n"
