"""What the engine knows of each hand: ``hand`` lines (deal scan), and cards known elsewhere.

``known[seat]`` is the cards known to be in the seat's playable hand and not yet played; when
they are as many as the cards the seat has left, the hand is fully known. All 32 cards are
dealt, so once three hands are fully known in play, the fourth is too (S1: the box is sure)."""
from assistant.rules.cards import card_label
from assistant.rules.game import Refused
from assistant.rules.twentynine.pack import BIT, FLIP, PLAY, cards_of

ALL_CARDS = (1 << 32) - 1


class Hands:
    """Hand lines and what is known of each seat's cards."""
    __slots__ = ()

    def _do_hand(self, a):
        """A hand line: between rounds it is the next round's hand, else this round's."""
        if self.phase is FLIP:
            raise Refused("no-hand", "no hand is dealt yet: finish the flip first")
        s = self._seat(a, required=True)
        mask = self._hand_mask(s, a.cards)
        if not self.round_open:
            self._check_next_hand(s, mask)
            self.next_known[s] = mask
            self.next_given[s] = True
            return
        self._check_hand(s, mask, a.cards)
        tc = self._trump_card
        if s == self.bidder and tc is not None and not self.revealed:
            mask &= ~BIT[tc]  # the face-down card is not in the playable hand until revealed (N4)
        self.known[s] = mask
        self.given[s] = True
        self._deduce_last_hand()

    def _deduce_last_hand(self):
        """S1: in play, three fully known hands leave the fourth seat every card not yet played,
        not in those hands and not the face-down trump card (all 32 cards are dealt)."""
        if self.phase is not PLAY:
            return
        open_seats = [s for s in range(4) if not self._full(s)]
        if len(open_seats) != 1:
            return
        s = open_seats[0]
        rest = ALL_CARDS & ~self.played & ~(self.known[0] | self.known[1] | self.known[2] | self.known[3])
        if not self.revealed:
            rest &= ~BIT[self._trump_card]
        if (self.known[s] | rest).bit_count() == self.left[s]:
            self.known[s] |= rest

    def _hand_mask(self, s, cards):
        """The hand line's eight different cards of the pack, as a bitmask."""
        if len(cards) != 8:
            raise Refused("hand-size", f"{self.name(s)} was dealt 8 cards, not {len(cards)}")
        mask = 0
        for c in cards:
            if type(c) is not int or not 0 <= c < 32:
                raise Refused("not-in-pack", f"{c!r} is not a card of the Twenty-Nine pack")
            if mask & BIT[c]:
                raise Refused("card-seen", f"{card_label(c)} is listed twice")
            mask |= BIT[c]
        return mask

    def _check_next_hand(self, s, mask):
        if self.next_given[s]:
            raise Refused("hand-given", f"{self.name(s)}'s hand is already given for the next round")
        for t in range(4):
            if t != s and self.next_known[t] & mask:
                c = cards_of(self.next_known[t] & mask)[0]
                raise Refused("card-elsewhere", f"{card_label(c)} cannot be in {self.name(s)}'s hand: it was dealt to another player")

    def _check_hand(self, s, mask, cards):
        who = self.name(s)
        if self.given[s]:
            raise Refused("hand-given", f"{who}'s hand is already given this round")
        if self.plays[s]:
            raise Refused("hand-given", f"{who}'s hand must be given before their first play of the round")
        tc = self._trump_card
        if tc is not None and s != self.bidder and mask & BIT[tc]:
            if not self.revealed:
                raise Refused("card-elsewhere", f"that hand cannot be {who}'s: one of its cards is out of play this round")
            raise Refused("card-elsewhere", f"{card_label(tc)} cannot be in {who}'s hand: it is the trump card")
        for c in cards:
            if self.played & BIT[c]:
                raise Refused("card-seen", f"{card_label(c)} cannot be in {who}'s hand: it was already played")
            if self._elsewhere(s, BIT[c]):
                raise Refused("card-elsewhere", f"{card_label(c)} cannot be in {who}'s hand: it was dealt to another player")
        if s == self.bidder and tc is not None and not mask & BIT[tc]:
            raise Refused("not-held", f"{who}'s hand must include the face-down trump card")
        if self.known[s] & ~mask:
            raise Refused("not-held", f"that hand leaves out a card {who} is known to hold")

    def _hand_line_open(self, seat):
        """Whether a hand line for ``seat`` may be given now (its cards are checked apart)."""
        if not self.round_open:
            return not self.next_given[seat]
        return not self.given[seat] and not self.plays[seat]

    def _elsewhere(self, seat, bit):
        """Whether a card is known to be in another seat's hand."""
        known = self.known
        if not (known[0] | known[1] | known[2] | known[3]) & bit:
            return False  # known nowhere: the common case, without a loop
        return any(known[t] & bit for t in range(4) if t != seat)

    def _full(self, seat):
        return self.known[seat].bit_count() >= self.left[seat]
