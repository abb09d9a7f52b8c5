"""The table in play, for the Now page: the OLED's own view model, built from the journal.

The web process holds no table: it rebuilds the match in play from the journal's rows and asks
the table code for its :class:`~assistant.box.view.View` (``table_view.build_view``), the same
public information the OLED shows (a face-down trump is "hidden", a scan is a count, a towers
discard is never named). Only the View's fields go out, never the engine.
"""
from assistant.rules.cards import SUITS, card_label, card_name
from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.rules.scenario import ScenarioError, parse_action


def view_of(rec, lines, journal=None):
    """The View of a match in play from its journal lines. ``journal`` (read-only) gives the
    table its settings (deal scan), as the box's own table reads them."""
    from assistant.box.table import Table
    match = Match(rec.game, rec.seats, rec.options)
    for n, line in enumerate(lines, 1):
        try:
            match.apply(parse_action(line.split(), rec.game, match.seats, n))
        except (ScenarioError, Refused):
            break
    table = Table(journal, {}, game=rec.game, match=match)  # never applies: nothing is written
    return table.view()


def _card(c):
    return {"name": card_name(c), "label": card_label(c)}


def public(view):
    """The View as JSON: every field the screen may show, cards by name and label."""
    trump = view.trump if view.trump in (None, "hidden") else SUITS[view.trump]
    return {
        "game": view.game, "seats": list(view.seats), "sides": list(view.side_names()),
        "phase": view.phase, "prompt": view.prompt.split("\n") if view.prompt else [],
        "score": list(view.score),
        "dealer": None if view.dealer is None else view.seats[view.dealer],
        "turn": None if view.turn is None else view.seats[view.turn],
        "hand_size": view.hand_size, "trump": trump,
        "up_card": None if view.up_card is None else _card(view.up_card),
        "turned_down": None if view.turned_down is None else SUITS[view.turned_down],
        "bidder": None if view.bidder is None else view.seats[view.bidder],
        "bid": view.bid, "target": view.target, "for_two": view.for_two, "double": view.double,
        "tricks": list(view.tricks), "points": list(view.points),
        "trick": [{"seat": view.seats[s], **_card(c)} for s, c in view.trick],
        "trick_no": view.trick_no,
        "flipped": [{"seat": view.seats[s], **_card(c)} for s, c in view.flipped],
        "winner": [view.seats[s] for s in view.winner], "extra": list(view.extra),
    }
