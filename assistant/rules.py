"""What both rules engines share: the black-jack flip (rulings T1, N2); the refusal is
:class:`assistant.game.Refused`, imported here for the modules that import it from here."""
from .cards import BLACK_JACKS, card_name
from .game import Refused


class Flip:
    """Cards turned face up one per player, alternating, until the first black jack.

    >>> from assistant.cards import parse_card
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
