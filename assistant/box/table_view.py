"""What the screen shows for the table's state: the View, the choices under the buttons.

Everything that differs between the games (prompts, choices, what a tap means,
the words for results) lives in one module per game, :mod:`assistant.box.table_towers`
and :mod:`assistant.box.table_twentynine`, which answer the same questions; ``desk``
picks the module for a match. Only public information goes into the View: the
face-down trump is "hidden", scans appear as counts, the towers discard is never
named. A prompt is one or more lines joined by newlines, each drawn unbroken.
"""
import importlib

from assistant.rules.cards import SUIT_SYMBOLS, card_label
from assistant.rules.scenario import GAMES
from assistant.box.players import short_name
from assistant.box.view import Alert, Menu, View

HIDDEN_KINDS = {"trump": "the trump card", "discard": "the discard", "hand": "a scanned hand"}

# game -> its per-game table module, in the order the new-match menu offers them (as the rules'
# match.ENGINES names each engine); each module has the same names (GAME, TITLE, SEATS, RULES, tap,
# choices, menu_items, fields, outcome_lines, scan_target ...). Imported when a match first needs
# one, so that a box starts without the game it does not play.
DESKS = {"towers": "assistant.box.table_towers", "twenty-nine": "assistant.box.table_twentynine"}
_LOADED = {}


def desk(game):
    """The per-game table module for ``game``."""
    d = _LOADED.get(game)
    if d is None:
        d = _LOADED[game] = importlib.import_module(DESKS[game])
    return d


def hand_open(engine):
    """A hand (round) has begun and its play has not ended."""
    return engine.hand_open


def choices_for(table):
    """The (label, Action or None) pairs the buttons choose from now; OK applies the selected one
    (None: the harmless choice, nothing happens)."""
    return desk(table.match.game).choices(table)


def before(e):
    """What the words for an action's effect compare with: taken before the action is applied."""
    return dict(open=hand_open(e), score=tuple(e.score), settled=e.book.penalties,
                pending=len(e.book.accusations))


def result_lines(table, b, action):
    """Lines for a hand (round) that just ended, or for a claim or accusation that replaced its
    result after it ended (T9, N11); else None. The per-game module words the engine's outcome."""
    m = table.match
    e = m.engine
    if hand_open(e) or e.outcome is None:
        return None
    d = desk(m.game)
    if b["open"]:
        return d.outcome_lines(e, m.seats, replaced=False)
    if action.kind in ("claim", "accuse") and e.book.penalties != b["settled"]:
        return d.outcome_lines(e, m.seats, replaced=True)
    return None


def accusation_words(table, b, seat):
    """Words for an accepted accusation that did not end the hand: pending (marked until settled),
    or without effect (after the hand, with no renege proven)."""
    m = table.match
    d = desk(m.game)
    names = m.seats
    if len(m.engine.book.accusations) > b["pending"]:
        return f"{d.side_name(names, 1 - d.side_of(seat))} {d.ACCUSE} {names[seat]}: decided by the {d.HAND}'s end"
    return f"Accusing {names[seat]} has no effect: no renege by {names[seat]} proven this {d.HAND}"


def undone_words(action, actor, seats, d):
    """What an undo took back, in words that name only public cards (``d``: the game's desk); one
    line of the OLED's prompt, so short enough for its 128 pixels with any names (shortened to 5)."""
    who = seats[actor] if actor is not None else None
    k = action.kind
    if k == "claim" and action.seat is not None:  # the side claims, not a player
        side = d.side_name(seats, d.side_of(action.seat))
        # two wide names leave no room for "'s", or for the side at all
        return fitting(seats, f"Undone: {side}'s claim", f"Undone: {side} claim", "Undone: a claim")
    if k == "accuse" and action.seat is not None:
        return f"Undone: accusing {seats[action.seat]}"  # "the accusation of P3" read as P3 accusing
    if k == "play" and who:
        return f"Undone: {who}'s {card_label(action.cards[0])}"
    if k == "flip":
        return f"Undone: flip card {card_label(action.cards[-1])}"
    if k == "upcard":
        return f"Undone: up-card {card_label(action.cards[0])}"
    if k in HIDDEN_KINDS:
        if k == "hand":
            name = seats[action.seat]
            return fitting(seats, f"Undone: {name}'s hand scan", f"Undone: {name}'s scan", "Undone: a hand scan")
        return f"Undone: {HIDDEN_KINDS[k]}"
    if k == "bid" and who:
        return f"Undone: {who}'s bid {action.value}"
    if k == "seventh":  # the bidder's, named on the line under it ("P2 bid 16: set trump")
        return "Undone: 7th card call"
    if k in ("pass", "accept", "call") and who:
        return f"Undone: {who}'s {k}"
    if k == "name" and who:  # towers, the second round: who named which suit
        return f"Undone: {who} named {SUIT_SYMBOLS[action.value]}"
    if k == "for2":  # the bidder's, who need not be the player to act once it is taken back
        return "Undone: for 2"
    if k == "pair" and action.seat is not None:
        return f"Undone: {seats[action.seat]}'s pair"
    seat = f" {seats[action.seat]}" if action.seat is not None else ""
    return f"Undone: {k}{seat}"


OLED_W = 128  # the screen's line in pixels (screen.W, which needs Pillow to import)


def fitting(seats, *choices):
    """The first of ``choices`` that fits the OLED's line as it is drawn (long names of ``seats``
    shortened), measured in pixels: a count of characters let "Undone: MMMM+WWWW's claim" (132
    pixels) through. The last choice when none does."""
    from assistant.box.font import text_width
    for words in choices:
        if text_width(shortened({"prompt": words}, None, seats)[0]["prompt"]) <= OLED_W:
            return words
    return choices[-1]


def short_side(side):
    """A side's name ("Wilhelmina+Wolfgang") as the OLED shows it ("Wilh.+Wolf.")."""
    return "+".join(short_name(n) for n in side.split("+"))


def build_view(table):
    m = table.match
    alert = table.alert
    if table.menu is not None:
        title, items, sel = table.menu
        game = m.game if m is not None else table.default_game
        seats = m.seats if m is not None else tuple(f"P{i + 1}" for i in range(GAMES[game]))
        labels = tuple(label for label, _ in items)
        if any(short_name(n) != n for n in seats):  # "Claim: Wilhelmina's renege" ran off the OLED
            labels = tuple(shortened({"prompt": label}, None, seats)[0]["prompt"] for label in labels)
        return View(game=game, seats=seats, phase="menu", alert=alert,
                    menu=Menu(title, labels, sel), **under_menu(table))
    fields, alert, seats = public_fields(table, alert)
    return View(game=m.game, seats=seats, alert=alert, **fields)


def public_fields(table, alert):
    """``(fields, alert, seats)`` of the match for the screen: its desk's fields, the "no reader"
    mark, and long names shortened (in the alert too)."""
    m = table.match
    fields = desk(m.game).fields(table)
    if not table.reader_ok:  # its alert may be cleared with Back; the mark stays until it is back
        fields["extra"] = (*fields.get("extra", ()), "no reader")
    seats = m.seats
    if any(short_name(n) != n for n in seats):  # players' names: one rule shortens them on the OLED
        fields, alert, seats = shortened(fields, alert, seats)
    return fields, alert, seats


# what stays in view above an open menu: the score and the details (the OLED rewrites only the menu)
UNDER_MENU = ("score", "dealer", "hand_size", "trump", "bidder", "bid", "target", "for_two", "double",
              "tricks", "points", "trick_no", "extra")


def under_menu(table):
    """The match's score and details for a menu's view; nothing without a match."""
    if table.match is None:
        return {}
    fields = public_fields(table, None)[0]
    return {k: fields[k] for k in UNDER_MENU if k in fields}


def shortened(fields, alert, seats):
    """Every long seat name, in the prompt, the notes and the alert, by :func:`short_name`."""
    import re
    names = sorted((n for n in seats if short_name(n) != n), key=len, reverse=True)
    pattern = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, names)) + r")(?![\w])")
    cut = lambda text: pattern.sub(lambda m: short_name(m.group(1)), text)  # noqa: E731
    fields = dict(fields, prompt=cut(fields.get("prompt", "")),
                  extra=tuple(cut(x) for x in fields.get("extra", ())))
    if alert is not None:
        alert = Alert(alert.kind, cut(alert.text), alert.cause)
    return fields, alert, tuple(short_name(n) for n in seats)
