"""Towers at the table: what a tap means, the choices under the buttons, the prompts and the words
for what happened (rulings T1–T9).

One of the two per-game modules behind :mod:`assistant.box.table_view` (the other is
:mod:`assistant.box.table_twentynine`). The discard is face down: never named.
"""
from assistant.rules.cards import SUIT_SYMBOLS
from assistant.rules.game import Penalty
from assistant.rules.match import engine_class
from assistant.rules.scenario import Action
from assistant.box.words import choice_line, failed_words, flip_fields, open_claims, scan_elsewhere_words

GAME = "towers"
RULES = engine_class(GAME)                # the engine's class: its title, seats and house rules
TITLE, SEATS = RULES.title, RULES.players
HAND, ACCUSE = "hand", "accuses"  # words for the screen


side_name = RULES.name_side              # one player a side


def side_of(seat):
    return seat


def option_label(key, value):
    return f"{key}: {value}"


def rules_in_play(options):
    return []


# -- deal scan -------------------------------------------------------------------------------

def scan_target(e, seat):
    """How many cards ``seat`` scans this hand, or 0 when its hand is already known."""
    return 0 if e.known[seat] is not None else e.hand_size


def scan_window(e):
    """Hands are scanned after the deal and before the up-card is turned."""
    return e.phase == "upcard"


def scan_problem(table, seat, c):
    """Why card ``c`` cannot be scanned into ``seat``'s hand now, or None."""
    e = table.match.engine
    names = table.match.seats
    other = 1 - seat
    if c in table.scan.cards.get(other, ()) or (e.known[other] is not None and c in e.known[other]):
        return scan_elsewhere_words(names[seat])
    return None


def hand_with_hidden(e, seat, cards):
    return tuple(cards)


def centre_tap_words(e, seats):
    """What a card on the centre pad during a deal scan would be: the up-card."""
    return "up-card"


# -- taps ------------------------------------------------------------------------------------

def tap(table, pad_seat, c):
    e = table.match.engine
    if e.phase == "upcard":
        table.apply(Action("upcard", cards=(c,)))
    elif e.phase == "trump2":  # name a suit by tapping any card of it
        table.apply(Action("name", value=c >> 3))
    elif e.phase == "trump1":
        table.alert_refused(f"{table.match.seats[e.to_act]}: accept or pass first (buttons)", "not-now")
    elif e.phase == "play":
        if e.discard_open and pad_seat == e.dealer and pad_seat != e.to_act:
            table.apply(Action("discard", cards=(c,)))
        elif table.in_turn(e, pad_seat):
            table.apply(Action("play", cards=(c,)))
    else:  # the match is over: a tap did nothing and said nothing (S2: claims go by the menu)
        table.alert_refused("No card is wanted now: " + e.waiting_for(), "not-now")


# -- the choices under the buttons -----------------------------------------------------------

def choices(table):
    """(label, Action or None) pairs from the engine's legal actions (None: the harmless one)."""
    legal = [a for a in table.match.engine.legal_actions() if a.seat is None]
    kinds = {a.kind for a in legal}
    if "accept" in kinds:
        return [("Accept", Action("accept")), ("Pass", Action("pass"))]
    if "name" in kinds:
        return ([(f"Name {SUIT_SYMBOLS[a.value]}", a) for a in legal if a.kind == "name"]
                + [("Pass", a) for a in legal if a.kind == "pass"])
    if "for2" in kinds:
        return [("no", None), ("For 2", Action("for2"))]  # T4: a stray OK never doubles the stake
    return []


def menu_items(table):
    return []


def tricks_done(e):
    return e.done


# -- what happened ---------------------------------------------------------------------------

def outcome_lines(e, names, replaced):
    """The words for the engine's typed outcome of the last hand (T6, T9)."""
    out = e.outcome
    award = f"{names[out.side]} +{out.value} tower{'s' if out.value != 1 else ''}" if out.side is not None else ""
    if isinstance(out, Penalty):
        # the offender: the seat the penalty went against (D5: the other may hold one proven later)
        proven = [r for r in e.book.proven if r.hand == out.hand and r.seat != out.side]
        who = names[proven[-1].seat] if proven else "a player"
        first = {"claim": f"Claim: {who}'s renege", "accusation proven": f"Accused {who}: renege proven"
                 }.get(out.why, "False accusation")
        return [first, "replaces the hand:", award] if replaced else [first, award]
    first = f"{names[out.bidder]} took {out.taken} of {sum(e.tricks)}" + (" (for 2)" if e.for_two else "")
    return [first, award] if award else [first]


def action_note(table, action, actor):
    return None


def renege_words(table, new):
    return failed_words(table.match.seats, new)


# -- the view --------------------------------------------------------------------------------

def fields(table):
    m = table.match
    e = m.engine
    names = m.seats
    f = dict(score=tuple(e.score), dealer=e.dealer, turn=e.to_act, hand_size=e.hand_size,
             trump=e.trump, bidder=e.bidder, for_two=e.for_two, tricks=tuple(e.tricks))
    extra = []
    if e.book.accusations and not e.hand_over:
        extra.append("accused " + ",".join(names[a.accused] for a in e.book.accusations))
    f["extra"] = tuple(extra)
    p = e.phase
    note = [table.note] if table.note else []
    if p == "over":
        last = table.result or (outcome_lines(e, names, isinstance(e.outcome, Penalty) and e.outcome.replaces)
                                if e.outcome is not None else [])
        lines = [f"{names[e.winner]} wins the match!", *last,
                 *(open_claims(m) or ["OK: menu, new match"])]
        return dict(f, phase="match-over", winner=(e.winner,), prompt="\n".join(lines))
    deal = f"{names[e.dealer]} deals {e.hand_size} each" if e.dealer is not None else ""
    if table.result is not None and p in ("flip", "upcard") and not table.scan.cards:
        nxt = "Next: flip for the deal" if p == "flip" else f"Next: {deal}"
        return dict(f, phase="hand-over", prompt="\n".join([*table.result, nxt]))
    if p == "flip":
        return dict(f, **flip_fields(e, names, table.note))
    if p == "upcard":
        if table.scan.active():
            return dict(f, phase="scan", prompt="\n".join([*note, deal, *table.scan.prompt()]))
        return dict(f, phase="upcard", prompt="\n".join([*note, deal, "then tap the up-card"]))
    if p in ("trump1", "trump2"):
        return dict(f, phase=p, up_card=e.up_card if p == "trump1" else None, turned_down=e.turned_down,
                    prompt="\n".join([*note, choice_line(choices(table), table.cursor, names[e.to_act])]))
    leader = names[e.to_act]
    trick = dict(trick=tuple(e.trick), trick_no=e.done + 1)
    if e.discard_open and not e.trick:
        # for 2 may be declared before the discard too: shown once Left/Right moves to it, never
        # taken unseen (Right then OK declared it with the screen unchanged)
        options = choices(table)
        last = (f"on {names[e.dealer]}'s pad; {leader} leads" if not options or options[table.cursor % len(options)][1] is None
                else choice_line(options, table.cursor, f"{names[e.bidder]} for 2?"))
        return dict(f, phase="discard", **trick, prompt="\n".join([*note, f"{names[e.dealer]}: discard face down", last]))
    if not e.trick and e.done == 0 and not e.for_two:
        return dict(f, phase="for2", **trick, prompt="\n".join(
            [*note, f"{leader} leads;", choice_line(choices(table), table.cursor, f"{names[e.bidder]} for 2?")]))
    last = table.last_trick
    if last is not None and not e.trick:
        cards, winner, no = last
        return dict(f, phase="play", turn=winner, trick=cards, trick_no=no,
                    prompt=f"{names[winner]} takes trick {no}")
    if note:
        return dict(f, phase="play", **trick, prompt=note[0])
    return dict(f, phase="play", **trick, prompt=f"{leader} to play")
