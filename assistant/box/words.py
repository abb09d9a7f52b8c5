"""Words and screen fields both games' table modules share: the flip, a renege alert, an open
claim, the selected choice, the refusal of a card out of play."""
from assistant.rules.cards import SUIT_SYMBOLS
from assistant.rules.game import not_held_words


def flip_fields(e, seats, note=None):
    """The flip (T1, N2): the cards turned so far, and whose turn the next card is; ``note`` (what
    an undo took back) above."""
    f = e.flip
    nxt = None if f.start is None else (f.start + f.count) % len(seats)
    where = "tap one card each" if nxt is None else f"next card to {seats[nxt]}"
    return dict(phase="flip", flipped=tuple(sorted(f.last.items())), turn=nxt,
                prompt="\n".join([*([note] if note else []), "Flip for the deal:", where]))


def pad_words(pads, names, seats):
    """Where the cards of ``seats`` go on a box with ``pads``: each seat's own pad, the centre for a
    seat without one ("P3's or P1's pad", "the centre pad" on a box with P1, P2 and centre)."""
    where = [f"{names[s]}'s" if f"P{s + 1}" in pads else "the centre" for s in seats]
    return " or ".join(dict.fromkeys(where)) + " pad"


def choice_line(options, cursor, who):
    """``who < label >`` for the selected one of ``options`` (one line, never broken)."""
    if not options:
        return who
    label = options[cursor % len(options)][0]
    return f"{who} < {label} >" if len(options) > 1 else f"{who}: OK = {label}"


def choice_parts(line):
    """``(who, label)`` of a line ``choice_line`` wrote with the brackets (the OLED's sign that Left
    and Right change the choice), else None: the web page shows the choice without them.

    >>> choice_parts("Ann for 2? < no >"), choice_parts("Ann to play")
    (('Ann for 2?', 'no'), None)
    """
    who, sep, rest = line.rpartition(" < ")
    return (who, rest[:-2]) if sep and who and rest.endswith(" >") and len(rest) > 2 else None


def failed_words(seats, new):
    """A renege alert: who failed to follow what, at which trick(s) (one card may prove several)."""
    r = new[-1]
    suit = f" {SUIT_SYMBOLS[r.suit]}" if r.suit is not None else ""
    tricks = ", ".join(str(x.trick) for x in new)
    return f"{seats[r.seat]} failed to follow{suit} (trick{'s' if len(new) > 1 else ''} {tricks})"


def open_claims(match):
    """Lines for a claim still open after the hand (it lapses when the next one begins)."""
    e = match.engine
    out = []
    for side in (0, 1):
        for r in e.book.claimable(side)[-1:]:
            # broken after "can claim", so that each line fits the OLED with any names (shortened
            # to 5): "Wilh.+Wolf. can claim" / "Maxi.'s renege: hold OK"
            out += [f"{e.side_name(side)} can claim", f"{match.seats[r.seat]}'s renege: hold OK"]
    return out


def scan_elsewhere_words(who):
    """A deal scan's refusal of a card another hand holds: scanned or known there, or the face-down
    trump card. One wording, naming neither the card nor the hand, so that it never tells which
    card lies face down or what another player holds."""
    return f"That card cannot be in {who}'s hand: another hand holds it"


def hidden_play_refusal(who):
    """The refusal for a card that is out of play: the rules' words for any card not in ``who``'s
    hand, so they never hint that it is the face-down trump card."""
    return not_held_words(who)
