"""What both rules engines share: the refusal, and the black-jack flip (rulings T1, N2)."""
from .cards import BLACK_JACKS, card_name


class Refused(Exception):
    """An action the rules do not allow now; ``str()`` says why in plain words.

    Engines check everything before they change anything, so a refused action
    leaves the state exactly as it was.
    """


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
            raise Refused("the flip is over: the dealer is already found")
        if seat is not None and self.start is not None:
            expected = (self.start + self.count) % self.players
            if seat != expected:
                raise Refused(f"the flip goes on with P{expected + 1}, not P{seat + 1}")
        seen = set(self.seen)
        for i, c in enumerate(cards):
            if c not in pack:
                raise Refused(f"{card_name(c)} is not in this game's pack")
            if c in seen:
                raise Refused(f"{card_name(c)} was already turned in this flip")
            seen.add(c)
            if c in BLACK_JACKS and i != len(cards) - 1:
                raise Refused(f"the flip ended at {card_name(c)}: no cards are turned after the first black jack")

    def turn(self, seat, cards):
        if self.start is None:
            self.start = seat if seat is not None else 0
        for c in cards:
            self.seen.add(c)
            self.last[(self.start + self.count) % self.players] = c
            if c in BLACK_JACKS:
                self.dealer = (self.start + self.count) % self.players
            self.count += 1

    def snapshot(self):
        return (self.start, self.count, frozenset(self.seen), self.dealer)
