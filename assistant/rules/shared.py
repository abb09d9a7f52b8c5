"""What both rules engines share, written once: the black-jack flip (rulings T1, N2), choosing
the claimant of a renege penalty and settling an accusation (T9, N11), and what is still heard
after the match ends (S2). The refusal is :class:`assistant.rules.game.Refused`,
imported here for the modules that import it from here."""
from assistant.rules.cards import BLACK_JACKS, card_name
from assistant.rules.game import Action, Refused


class Flip:
    """Cards turned face up one per player, alternating, until the first black jack.

    >>> from assistant.rules.cards import parse_card
    >>> f = Flip(2)
    >>> f.turn(None, [parse_card(c) for c in ("JH", "KS", "QD")])
    >>> f.turn(None, [parse_card("JC")]); f.dealer
    1
    """

    __slots__ = ("players", "start", "count", "seen", "dealer", "last")

    def __init__(self, players):
        self.players = players
        self.start = None
        self.count = 0
        self.seen = set()
        self.dealer = None
        self.last = {}  # seat -> the last card turned to that seat (public: for the screen)

    def check(self, seat, cards, pack):
        if self.dealer is not None:
            raise Refused("flip-over", "the flip is over: the dealer is already found")
        if seat is not None and self.start is not None:
            expected = (self.start + self.count) % self.players
            if seat != expected:
                raise Refused("flip-order", f"the flip goes on with P{expected + 1}, not P{seat + 1}")
        seen = set(self.seen)
        for i, c in enumerate(cards):
            if c not in pack:
                raise Refused("not-in-pack", f"{card_name(c)} is not in this game's pack")
            if c in seen:
                raise Refused("card-seen", f"{card_name(c)} was already turned in this flip")
            seen.add(c)
            if c in BLACK_JACKS and i != len(cards) - 1:
                raise Refused("flip-order", f"the flip ended at {card_name(c)}: no cards are turned after the first black jack")

    def turn(self, seat, cards):
        if self.start is None:
            self.start = seat if seat is not None else 0
        for c in cards:
            self.seen.add(c)
            self.last[(self.start + self.count) % self.players] = c
            if c in BLACK_JACKS:
                self.dealer = (self.start + self.count) % self.players
            self.count += 1

    def copy(self):
        new = Flip(self.players)
        new.start, new.count, new.dealer = self.start, self.count, self.dealer
        new.seen, new.last = set(self.seen), dict(self.last)
        return new

    def snapshot(self):
        return (self.start, self.count, frozenset(self.seen), self.dealer)


HEARD_AFTER_MATCH = ("claim", "accuse")  # after the match ends, only these are still heard


def claimant_side(book, named_side, over, words):
    """T9, N11: the side that takes a claim's penalty, or None for a claim heard after the match
    without effect (S2). ``named_side``: the side of the seat the claim names,
    or None; ``words``: the engine's refusals, keys ``none``, ``named``, ``both`` and, where the
    engine says it apart, ``settled``.

    >>> from assistant.rules.renege import RenegeBook
    >>> book = RenegeBook(side_of=(0, 1)); book.start_hand(1)
    >>> book.failed(seat=1, suit=2, trick=1); _ = book.shown(seat=1, card=17, suit=2, trick=2)
    >>> claimant_side(book, None, False, {}), claimant_side(book, 1, True, {})
    (0, None)
    """
    sides = [s for s in (0, 1) if book.claimable(s)]
    if over and (not sides or (named_side is not None and named_side not in sides)):
        return None
    if named_side is not None and named_side in sides:
        return named_side
    if named_side is None and len(sides) == 1:
        return sides[0]
    if named_side is None and sides:
        raise Refused("say-claimant", words["both"])
    if book.settled and "settled" in words:
        raise Refused("settled", words["settled"])
    raise Refused("no-renege", words["none" if named_side is None else "named"])


def claim_actions(book, side_of, over):
    """The claims :func:`claimant_side` accepts, as actions, with and without a seat."""
    sides = [s for s in (0, 1) if book.claimable(s)]
    seats = range(len(side_of))
    if over:  # heard, with or without effect
        return ([Action("claim")] if len(sides) < 2 else []) + [Action("claim", seat=t) for t in seats]
    return (([Action("claim")] if len(sides) == 1 else [])
            + [Action("claim", seat=t) for t in seats if side_of[t] in sides])


def settle_accusation(book, accused, accuser_side, hand_open, before_final):
    """T9, N11: what an accusation does. "proven": a renege by the accused in this hand is proven
    and unsettled, the penalty is due now; "pending": recorded, settled as the hand goes on;
    None: no effect (the hand is over, and no renege of the accused is proven and not yet
    penalised: D5)."""
    if book.unpenalised_against(accused):
        return "proven"
    if hand_open:
        book.accuse(accuser_side, accused, before_final)
        return "pending"
    return None
