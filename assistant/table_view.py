"""What the screen shows for the table's state: the View, the choices under the buttons.

Everything that differs between the games (prompts, choices, what a tap means,
the words for results) lives in one module per game, :mod:`assistant.table_towers`
and :mod:`assistant.table_twentynine`, which answer the same questions; ``desk``
picks the module for a match. Only public information goes into the View: the
face-down trump is "hidden", scans appear as counts, the towers discard is never
named. A prompt is one or more lines joined by newlines, each drawn unbroken.
"""
from .cards import card_label
from .view import Menu, View

HIDDEN_KINDS = {"trump": "the trump card", "discard": "the discard", "hand": "a scanned hand"}


def desk(game):
    """The per-game table module for ``game``."""
    if game == "towers":
        from . import table_towers
        return table_towers
    from . import table_twentynine
    return table_twentynine


def hand_open(engine):
    """A hand (round) has begun and its play has not ended."""
    return not engine.hand_over if hasattr(engine, "hand_over") else engine.round_open


def side_name(match, side):
    return desk(match.game).side_name(match.seats, side)


def choices_for(table):
    """The (label, Action or None) pairs the buttons choose from now; OK applies the selected one
    (None: the harmless choice, nothing happens)."""
    return desk(table.match.game).choices(table)


def choice_line(table, who):
    """``who < label >`` for the selected choice (one line, never broken)."""
    options = choices_for(table)
    if not options:
        return who
    label = options[table.cursor % len(options)][0]
    return f"{who} < {label} >" if len(options) > 1 else f"{who}: OK = {label}"


def flip_fields(e, seats):
    """The flip (T1, N2): the cards turned so far, and whose turn the next card is."""
    f = e.flip
    nxt = None if f.start is None else (f.start + f.count) % len(seats)
    where = "tap one card each" if nxt is None else f"next card to {seats[nxt]}"
    return dict(phase="flip", flipped=tuple(sorted(f.last.items())), turn=nxt,
                prompt=f"Flip for the deal:\n{where}")


def hidden_play_refusal(who):
    """The refusal for a card that is out of play: the same words whatever the card, so they never
    hint that it is the face-down trump card."""
    return f"{who} cannot play that card: it is not in play now"


def undone_words(action, actor, seats):
    """What an undo took back, in words that name only public cards."""
    who = seats[actor] if actor is not None else None
    k = action.kind
    if k == "play" and who:
        return f"Undone: {who}'s {card_label(action.cards[0])}"
    if k == "flip":
        return f"Undone: flip card {card_label(action.cards[-1])}"
    if k == "upcard":
        return f"Undone: up-card {card_label(action.cards[0])}"
    if k in HIDDEN_KINDS:
        target = HIDDEN_KINDS[k] if k != "hand" else f"{seats[action.seat]}'s scanned hand"
        return f"Undone: {target}"
    if k == "bid" and who:
        return f"Undone: {who}'s bid {action.value}"
    if k in ("pass", "accept", "call", "seventh") and who:
        return f"Undone: {who}'s {dict(seventh='seventh card call').get(k, k)}"
    seat = f" {seats[action.seat]}" if action.seat is not None else ""
    return f"Undone: {k}{seat}"


def build_view(table):
    m = table.match
    alert = table.alert
    if table.menu is not None:
        title, items, sel = table.menu
        game = m.game if m is not None else table.default_game
        seats = m.seats if m is not None else (("P1", "P2") if game == "towers" else ("P1", "P2", "P3", "P4"))
        return View(game=game, seats=seats, phase="menu", alert=alert,
                    menu=Menu(title, tuple(label for label, _ in items), sel))
    fields = desk(m.game).fields(table)
    if not table.reader_ok:  # its alert may be cleared with Back; the mark stays until it is back
        fields["extra"] = (*fields.get("extra", ()), "no reader")
    return View(game=m.game, seats=m.seats, alert=alert, **fields)
