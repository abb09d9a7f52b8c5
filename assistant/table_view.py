"""What the screen shows for the table's state: the View, the choices under the buttons, results.

Only public information goes into the View: the face-down trump is "hidden",
scans appear as counts, the towers discard is never named.
"""
from .cards import SUIT_SYMBOLS
from .scenario import Action
from .view import TRUMP_HIDDEN, Menu, View


def hand_open(engine):
    """A hand (round) has begun and its play has not ended."""
    return not engine.hand_over if hasattr(engine, "hand_over") else engine.round_open


def side_name(match, side):
    s = match.seats
    return s[side] if match.game == "towers" else f"{s[side]}+{s[side + 2]}"


def choices_for(table):
    """The (label, Action) pairs the buttons choose from now; OK applies the selected one."""
    m = table.match
    e = m.engine
    if m.game == "towers":
        if e.phase == "trump1":
            return [("Accept", Action("accept")), ("Pass", Action("pass"))]
        if e.phase == "trump2":
            out = [(f"Name {SUIT_SYMBOLS[s]}", Action("name", value=s)) for s in range(4) if s != e.turned_down]
            if e.to_act != e.dealer:
                out.append(("Pass", Action("pass")))
            return out
        if e.phase == "play" and not e.trick and e.done == 0 and not e.for_two:
            return [("For 2", Action("for2"))]
        return []
    if e.phase in ("bidding", "end") and e.to_act is not None:
        low = e.high + 1 if e.high else 16
        out = [(f"Bid {n}", Action("bid", value=n)) for n in range(low, 30)]
        forced = e.to_act == e.dealer and not e.high  # the other three passed (N3)
        if not forced:
            out.append(("Pass", Action("pass")))
        return out
    if e.phase == "trump" and not e.seventh:
        return [("Seventh card", Action("seventh"))]
    if e.phase == "play" and not e.revealed and e.trick:
        return [("Call trump", Action("call"))]
    return []


def _choice_prompt(table, who):
    options = choices_for(table)
    if not options:
        return None
    label = options[table.cursor % len(options)][0]
    return f"{who} < {label} >" if len(options) > 1 else f"{who}: OK = {label}"


def result_words(match, before):
    """Words for a hand that just ended (shown until the next action), else None."""
    was_open, score = before
    e = match.engine
    if not was_open or hand_open(e):
        return None
    gained = [a - b for a, b in zip(e.score, score)]
    if match.game == "towers":
        parts = [f"{match.seats[s]} +{g} tower{'s' if g != 1 else ''}" for s, g in enumerate(gained) if g > 0]
        if parts:
            return ", ".join(parts)
        return f"{match.seats[e.bidder]} took {e.tricks[e.bidder]} of {sum(e.tricks)}"
    parts = [f"{side_name(match, s)} {g:+d}" for s, g in enumerate(gained) if g]
    how = e.result or "round over"
    return f"{how}: {', '.join(parts)}" if parts else how


def build_view(table):
    m = table.match
    alert = table.alert
    if table.menu is not None:
        title, items, sel = table.menu
        game = m.game if m is not None else table.default_game
        seats = m.seats if m is not None else (("P1", "P2") if game == "towers" else ("P1", "P2", "P3", "P4"))
        return View(game=game, seats=seats, phase="menu", alert=alert,
                    menu=Menu(title, tuple(label for label, _ in items), sel))
    if m.game == "towers":
        fields = _towers(table, m, m.engine)
    else:
        fields = _twentynine(table, m, m.engine)
    return View(game=m.game, seats=m.seats, alert=alert, **fields)


def _scan_prompt(table, seats):
    counts = [f"{m} {len(table.scans.get(s, []))}/{n}"
              for s, m in enumerate(seats) if (n := table.scan_target(s))]
    return "Scan hands: " + " ".join(counts)


def _towers(table, m, e):
    names = m.seats
    f = dict(score=tuple(e.score), dealer=e.dealer, turn=e.to_act, hand_size=e.hand_size,
             trump=e.trump, bidder=e.bidder, for_two=e.for_two, tricks=tuple(e.tricks))
    p = e.phase
    if p == "over":
        return dict(f, phase="match-over", winner=(e.winner,), prompt=f"{names[e.winner]} wins the match!")
    if table.result is not None and p in ("flip", "upcard") and not table.scans:
        nxt = "flip for the deal" if p == "flip" else f"{names[e.dealer]} deals {e.hand_size}"
        return dict(f, phase="hand-over", prompt=f"{table.result}. Next: {nxt}")
    if p == "flip":
        flipped = tuple(sorted(e.flip.last.items()))
        return dict(f, phase="flip", flipped=flipped, prompt="Flip for the deal: tap cards")
    if p == "upcard":
        if table._scanning_now():
            return dict(f, phase="scan", prompt=_scan_prompt(table, names))
        return dict(f, phase="upcard", prompt=f"{names[e.dealer]} deals {e.hand_size}: tap the up-card")
    if p in ("trump1", "trump2"):
        return dict(f, phase=p, up_card=e.up_card if p == "trump1" else None, turned_down=e.turned_down,
                    prompt=_choice_prompt(table, names[e.to_act]))
    leader = names[e.to_act]
    trick = dict(trick=tuple(e.trick), trick_no=e.done + 1)
    if e.discard_open and not e.trick:
        return dict(f, phase="discard", **trick,
                    prompt=f"{names[e.dealer]}: discard on your pad; {leader} leads")
    if not e.trick and e.done == 0 and not e.for_two:
        return dict(f, phase="for2", **trick, prompt=f"{leader} leads. OK: {names[e.bidder]} for 2")
    return dict(f, phase="play", **trick, prompt=f"{names[e.to_act]} to play")


def _twentynine(table, m, e):
    names = m.seats
    trump = e.trump_suit if e.revealed else (TRUMP_HIDDEN if e.trump_set else None)
    f = dict(score=tuple(e.score), dealer=e.dealer, turn=e.to_act, trump=trump, bidder=e.bidder,
             bid=e.target if e.bidder is not None else (e.high or None), double=e.multiplier,
             points=tuple(e.points))
    p = e.phase
    if p == "over":
        w = e.winner
        return dict(f, phase="match-over", winner=(w, w + 2),
                    prompt=f"{side_name(m, w)} win the match!")
    if table.result is not None and p == "end":
        return dict(f, phase="hand-over", prompt=f"{table.result}. Next: {names[e.to_act]} bids")
    if p == "flip":
        return dict(f, phase="flip", flipped=tuple(sorted(e.flip.last.items())),
                    prompt="Flip for the deal: tap cards")
    if p in ("bidding", "end"):
        return dict(f, phase="bidding", bid=e.high or None, bidder=None,
                    prompt=_choice_prompt(table, names[e.to_act]))
    if p == "trump":
        if e.seventh:
            return dict(f, phase="seventh", prompt=f"Pull {names[e.bidder]}'s 7th card: tap it face down")
        return dict(f, phase="trump-card", prompt=f"{names[e.bidder]}: tap trump face down, or OK: 7th card")
    trick = dict(trick=tuple(e.trick), trick_no=e.trick_no + 1)
    if table._scanning_now():
        return dict(f, phase="scan", prompt=_scan_prompt(table, names))
    who = names[e.to_act]
    if not e.trick and e.trick_no == 0 and m.options.get("double") == "on" and e.multiplier < 4:
        return dict(f, phase="double", **trick, prompt=f"{who} leads. Hold OK: double")
    hint = " (OK: call)" if choices_for(table) else ""
    return dict(f, phase="play", **trick, prompt=f"{who} to play{hint}")
