"""Twenty-Nine at the table: what a tap means, the choices under the buttons, the prompts and the
words for what happened (rulings N2–N11 and the house rules).

One of the two per-game modules behind :mod:`assistant.box.table_view` (the other is
:mod:`assistant.box.table_towers`); the table never asks which game it plays.
Only public information reaches a prompt: the face-down trump card, scanned
cards and hands are never named (the trump shows as "hidden").
"""
from assistant.rules.cards import KING, QUEEN, SUIT_SYMBOLS, card, card_label
from assistant.rules.game import HandResult, Penalty
from assistant.rules.match import engine_class
from assistant.rules.scenario import Action
from assistant.box.words import (choice_line, failed_words, flip_fields, hidden_play_refusal, open_claims,
                                 pad_words, scan_elsewhere_words)
from assistant.box.view import TRUMP_HIDDEN

GAME = "twenty-nine"
RULES = engine_class(GAME)                # the engine's class: its title, seats, sides and house rules
TITLE, SEATS = RULES.title, RULES.players
HAND, ACCUSE = "round", "accuse"  # words for the screen
SIDE_OF = RULES.side_of                  # P1+P3 (side 0), P2+P4 (side 1)
FIRST_FOUR, SECOND_FOUR = 4, 4
OPTION_WORDS = {  # house-rule labels in words, not config keys
    "trick_trumps": ("Trumps count", {"whole": "whole trick", "after-call": "after call"}),
    "pair": ("Pair (K+Q)", {}),
    "double": ("Double", {}),
    "scoring": ("Scoring", {"seed": "first to 6", "pagat": "pagat (+6/-6)"}),  # "seed": our word, not the table's
    "two_point_bid": ("2 points from bid", {}),
}


side_name = RULES.name_side              # "Ann+Cleo"


def side_of(seat):
    return SIDE_OF[seat]


def option_label(key, value):
    title, words = OPTION_WORDS[key]
    return f"{title}: {words.get(value, value)}"


def rules_in_play(options):
    """Short words for the house rules switched on, e.g. ["pair", "double"]."""
    short = {"trick_trumps": "after-call trumps", "pair": "pair", "double": "double",
             "scoring": "pagat scoring", "two_point_bid": "2 pts from 21"}
    return [short[k] for k in options]


# -- deal scan -------------------------------------------------------------------------------

def scan_target(e, seat):
    """How many cards ``seat`` scans this round, or 0 when its hand is already given."""
    if e.given[seat]:
        return 0
    return 7 if seat == e.bidder else 8


def scan_window(e):
    """Hands are scanned once trump is set and before the first lead."""
    return e.phase == "play" and not e.trick and e.trick_no == 0


def scan_problem(table, seat, c):
    """Why card ``c`` cannot be scanned into ``seat``'s hand now, or None (the card is not named)."""
    e = table.match.engine
    names = table.match.seats
    bit = 1 << c
    if e.played & bit:
        return "That card was already played this round"
    if e.is_trump_card(c) and seat == e.bidder:  # compared here only: never said which card it is
        return f"That card is already counted: {names[seat]}'s trump card completes the hand"
    if (any(other != seat and c in cards for other, cards in table.scan.cards.items())
            or any(other != seat and e.known[other] & bit for other in range(SEATS)) or e.is_trump_card(c)):
        return scan_elsewhere_words(names[seat])
    return None


def hand_with_hidden(e, seat, cards):
    """The hand line for a scan: the bidder's face-down card completes their eight (N4)."""
    return tuple(cards) + ((e.hidden_trump_card(),) if seat == e.bidder else ())


def centre_tap_words(e, seats):
    """What a card on the centre pad during a deal scan would be: the first lead."""
    return f"lead of {seats[e.to_act]}"


# -- taps ------------------------------------------------------------------------------------

def tap(table, pad_seat, c):
    e = table.match.engine
    names = table.match.seats
    if e.phase == "trump":
        # N4: the bidder sets the card; the seventh card is dealt (by the dealer) face down, so the
        # dealer's pad takes it too. The centre pad, where there is one, takes either.
        allowed = {None, e.bidder} | ({e.dealer} if e.seventh else set())
        if pad_seat not in allowed:
            where = pad_words(table.pads, names, sorted(allowed - {None}, key=lambda s: s != e.dealer))
            table.alert_refused(f"The trump card goes on {where}", "wrong-pad")
            return
        table.apply(Action("trump", cards=(c,)))
    elif e.phase == "play":
        if not table.in_turn(e, pad_seat):
            return
        if e.is_trump_card(c) and not e.revealed:  # refused in words that do not hint at trump
            table.alert_refused(hidden_play_refusal(names[e.to_act]), "hidden-card")
            return
        table.apply(Action("play", cards=(c,)))
    else:
        table.alert_refused("No card is wanted now: " + e.waiting_for(), "not-now")


# -- the choices under the buttons -----------------------------------------------------------

def choices(table):
    """(label, Action or None) pairs from the engine's legal actions; None is the harmless choice,
    listed first where the other would raise the stakes or reveal something (a stray OK does
    nothing)."""
    legal = [a for a in table.match.engine.legal_actions() if a.seat is None]
    kinds = {a.kind for a in legal}
    if kinds & {"bid", "pass"}:
        return ([(f"Bid {a.value}", a) for a in legal if a.kind == "bid"]
                + [("Pass", a) for a in legal if a.kind == "pass"])
    if "seventh" in kinds:
        return [("card face down", None), ("Seventh card", Action("seventh"))]
    if "call" in kinds:
        return [("play a card", None), ("Call trump", Action("call"))]
    return []


def forced_bid(e):
    """N3: the first three passed; the dealer must bid."""
    return e.to_act == e.dealer and not e.high and sum(e.active) == 1


# -- menu items ------------------------------------------------------------------------------

def menu_items(table):
    """The game's own menu items: finish (always while a contract is open, refused with the
    reason when it cannot be), double/redouble in their window, pair for the seats that may."""
    m = table.match
    e = m.engine
    names = m.seats
    items = []
    if e.phase == "play":
        items.append(("Finish round", lambda: _finish(table)))
    legal = e.legal_actions()
    bs = SIDE_OF[e.bidder] if e.bidder is not None else 0
    if Action("double") in legal:
        items.append((f"Double: {side_name(names, 1 - bs)}", lambda: table.apply(Action("double"))))
    if Action("redouble") in legal:
        items.append((f"Redouble: {side_name(names, bs)}", lambda: table.apply(Action("redouble"))))
    # the seats the rules would accept by what the table knows, each naming the cards it shows
    # (17.7); never by a scanned hand, which would tell everyone who holds the K and Q
    pair = [seat for seat in range(4) if e.pair_open(seat)]
    if pair:
        t = e.trump_suit
        kq = f"{card_label(card(t, KING))} {card_label(card(t, QUEEN))}"
        for seat in pair:
            items.append((f"Pair: {names[seat]} shows {kq}", lambda s=seat: declare_pair(table, s)))
    return items


def declare_pair(table, seat):
    """The menu's pair for ``seat``. Once the box knows hands by a deal scan, the K and Q are shown
    on the reader first (:func:`show_tap`): the rules' answer to a pair chosen from the menu alone
    would tell the table what a scanned hand holds (anyone could choose any seat's pair to learn
    it), while a tapped card is one the table has seen."""
    e = table.match.engine
    if not any(e.given):
        table.apply(Action("pair", seat=seat))
        return
    t = e.trump_suit
    table.showing = (seat, frozenset({card(t, KING), card(t, QUEEN)}))


def show_tap(table, pad_seat, c):
    """A card tapped while a pair is being shown: the K or Q of trump on the declarer's pad (or
    the centre pad); the pair is declared once both are shown."""
    seat, wanted = table.showing
    names = table.match.seats
    if pad_seat not in (None, seat):
        where = pad_words(table.pads, names, [seat])
        table.alert_refused(f"{names[seat]}'s pair is shown on {where} (Back: not now)", "wrong-pad")
        return
    if c not in wanted:
        table.alert_refused(f"{card_label(c)} is not {show_words(table)} (Back: not now)", "not-the-pair")
        return
    if table.alert is not None and table.alert.kind == "refused":
        table.alert = None  # shown: an earlier refusal no longer stands over it (as a scanned card)
    if len(wanted) > 1:
        table.showing = (seat, wanted - {c})
        return
    table.showing = None
    table.apply(Action("pair", seat=seat))


def show_words(table):
    """The cards still to show, e.g. "K♥ Q♥" or "Q♥"."""
    _, wanted = table.showing
    t = table.match.engine.trump_suit
    return " ".join(card_label(c) for c in (card(t, KING), card(t, QUEEN)) if c in wanted)


def _finish(table):
    e = table.match.engine
    if Action("finish") in e.legal_actions():
        table.apply(Action("finish"))
        return
    names = table.match.seats
    bs = SIDE_OF[e.bidder]
    table.alert_refused(f"Not yet: {side_name(names, bs)} need {e.target - e.points[bs]} more "
                        f"of {e.target}, and can still make it", "contract-open")


def tricks_done(e):
    return e.trick_no


# -- what happened ---------------------------------------------------------------------------

def renege_words(table, new):
    """N11 alert words for reneges just proven; a caller's failure to trump says so (N5)."""
    m = table.match
    r = new[-1]
    if m.engine.call == (r.seat, r.trick) and r.suit == m.engine.trump_suit:
        tricks = ", ".join(str(x.trick) for x in new)
        return f"{m.seats[r.seat]} did not trump after calling (trick{'s' if len(new) > 1 else ''} {tricks})"
    return failed_words(m.seats, new)


def outcome_lines(e, names, replaced):
    """The words for the engine's typed outcome of the last round (N9-N11)."""
    out = e.outcome
    gained = [a - p for a, p in zip(e.score, e.pre_score)]
    award = ", ".join(f"{side_name(names, s)} {g:+d}" for s, g in enumerate(gained) if g) or "no points"
    bs = SIDE_OF[e.bidder]
    bid = f"{names[e.bidder]} bid {e.bid}"
    if isinstance(out, HandResult):  # the card points the bidding side took, against its bid
        first = bid + (", finished" if out.how == "finished" else "")
        took = f"{out.taken} of {e.target} (pair)" if e.target != e.bid else f"{out.taken} points"
        return [first, f"{out.what.capitalize()}: {took}", award]
    if out.why == "claim":
        first = f"Claim: {_offender(e, names)}'s renege"
    elif out.why == "accusation proven":
        first = f"Accused {_offender(e, names)}: renege proven"
    else:
        first = f"False accusation of {_falsely_accused(e, names)}"
    if replaced:
        return [first, "replaces the result:", award]
    return [first, award]


def _offender(e, names):
    """Whose renege the penalty settled: one of the side it went against (D5: the other side may
    hold one proven later in the round)."""
    mine = [r for r in e.book.proven if r.hand == e.hand_no and SIDE_OF[r.seat] != e.outcome.side]
    return names[mine[-1].seat] if mine else "a"


def _falsely_accused(e, names):
    for a in e.book.accusations:
        return names[a.accused]
    return "a player"


def action_note(table, action, actor):
    """One line on what an accepted action did, where the screen would not say it otherwise."""
    m = table.match
    e = m.engine
    names = m.seats
    if action.kind == "call" and e.revealed:
        return f"{names[actor]} called: trump {SUIT_SYMBOLS[e.trump_suit]}"
    if action.kind == "pair" and e.pair_seat is not None:
        return f"Pair {names[e.pair_seat]}: {side_name(names, SIDE_OF[e.bidder])} need {e.target}"
    if action.kind == "play" and e.revealed and e.reveal_trick == 7 and e.trick_no == 7 and not e.trick:
        # N7: never called, trump is turned up as the eighth trick begins: the bidder is told
        return f"{names[e.bidder]} turns up trump: {card_label(e.revealed_trump_card())}"
    return None


# -- the view --------------------------------------------------------------------------------

def fields(table):
    """The View's fields for the phase the match is in (public information only)."""
    m = table.match
    e = m.engine
    names = m.seats
    between = e.phase in ("end", "over") or (e.phase == "bidding" and not e.round_open)
    # S4: the seventh card called is a face-down trump at once, before the dealer deals it
    trump = e.trump_suit if e.revealed else (TRUMP_HIDDEN if e.trump_set or e.seventh else None)
    f = dict(score=tuple(e.score), dealer=e.dealer, turn=e.to_act)
    extra = []
    if e.pair_seat is not None and not between:  # D1: the last round's pair goes with its trump
        extra.append(f"pair {names[e.pair_seat]}")
    if e.book.accusations and e.round_open:
        extra.append("accused " + ",".join(names[a.accused] for a in e.book.accusations))
    if not between:  # the last round's trump and points go once the round is over (17.10)
        f.update(trump=trump, bidder=e.bidder, bid=e.bid if e.bid is not None else (e.high or None),
                 target=e.target,
                 double=e.multiplier, points=tuple(e.points) if e.phase == "play" else ())
    p = e.phase
    if p == "over":
        w = e.winner
        last = table.result or (outcome_lines(e, names, isinstance(e.outcome, Penalty) and e.outcome.replaces
                                              and e.outcome.why != "false accusation")
                                if e.outcome is not None else [])
        won = side_name(names, w)
        from assistant.box.table_view import fitting  # table_view loads this module: not at its top
        # "Wilh.+Wolf. win the match!" is 2 pixels too wide for the OLED: the "!" goes, and more
        lines = [fitting(names, f"{won} win the match!", f"{won} win the match", f"{won} win!"), *last]
        lines += open_claims(m) or ["OK: menu, new match"]
        return dict(f, phase="match-over", winner=(w, w + 2), dealer=None, prompt="\n".join(lines))
    if table.result is not None and p == "end":
        nxt = f"Next: {names[e.dealer]} deals {FIRST_FOUR} each"
        return dict(f, phase="hand-over", prompt="\n".join([*table.result, nxt]))
    if p == "flip":
        return dict(f, **flip_fields(e, names, table.note))
    note = [table.note] if table.note else []
    if p in ("bidding", "end"):
        dealer = names[e.dealer]
        if forced_bid(e):
            first = f"All passed: {dealer} must bid"
        elif e.high:
            first = f"{names[e.bidder]} bid {e.high}"
        else:
            first = f"{dealer} deals {FIRST_FOUR} each"
        bid_fields = dict(bid=e.high or None, bidder=e.bidder if e.high else None, trump=None, target=None,
                          points=(), double=1, extra=tuple(extra))
        return dict(f, **bid_fields, phase="bidding",
                    prompt="\n".join([*note, first, choice_line(choices(table), table.cursor, names[e.to_act])]))
    if p == "trump":
        bidder, dealer = names[e.bidder], names[e.dealer]
        if e.seventh:
            where = pad_words(table.pads, names, [e.dealer, e.bidder])
            return dict(f, phase="seventh", turn=e.dealer, extra=tuple(extra), prompt="\n".join([
                *note, f"{dealer} deals {SECOND_FOUR} more each:", f"{bidder}'s 7th card face down",
                f"on {where}"]))
        return dict(f, phase="trump-card", extra=tuple(extra), prompt="\n".join([
            *note, f"{bidder} bid {e.bid}: set trump", choice_line(choices(table), table.cursor, bidder)]))
    trick = dict(trick=tuple(e.trick), trick_no=e.trick_no + 1, extra=tuple(extra))
    first_lead = not e.trick and e.trick_no == 0
    deal_more = f"{names[e.dealer]} deals {SECOND_FOUR} more each"
    if table.scan.active():
        return dict(f, phase="scan", **trick, prompt="\n".join([*note, deal_more, *table.scan.prompt()]))
    who = names[e.to_act]
    if first_lead:
        lines = [deal_more]
        bs = SIDE_OF[e.bidder]
        if e.multiplier > 1:
            lines.append(f"{side_name(names, 1 - bs)} doubled")  # the menu says the side, not who
        if e.multiplier == 4:
            lines.append(f"{side_name(names, bs)} redoubled")
        if m.options.get("double") == "on" and e.multiplier == 1:
            lines.append(f"{side_name(names, 1 - bs)} may double (menu)")
        elif m.options.get("double") == "on" and e.multiplier == 2:
            lines.append(f"Redouble: {side_name(names, bs)} (menu)")
        lines.append(f"{who} leads")
        if note and len(lines) > 3:  # four lines on the OLED: an undo's note stays, the deal goes
            lines.pop(0)
        return dict(f, phase="double" if m.options.get("double") == "on" else "lead", **trick,
                    prompt="\n".join([*note, *lines][-4:]))
    if table.showing is not None:
        who = names[table.showing[0]]
        return dict(f, phase="play", **trick, prompt="\n".join(
            [f"Pair: {who} taps {show_words(table)}", "Back: not now"]))
    last = table.last_trick
    if last is not None and not e.trick:
        cards, winner, no = last
        return dict(f, phase="play", turn=winner, trick=cards, trick_no=no, extra=tuple(extra),
                    prompt="\n".join([f"{names[winner]} takes trick {no}", *note]))
    if note:
        return dict(f, phase="play", **trick, prompt=note[0])
    opts = choices(table)
    prompt = choice_line(opts, table.cursor, who) if opts else f"{who} to play"
    return dict(f, phase="play", **trick, prompt=prompt)
