"""The house rules (options, off by default): double and redouble, the pair.

``trick_trumps``, ``scoring`` and ``two_point_bid`` change a figure where it is used
(:mod:`~assistant.rules.twentynine.tricks`, :mod:`~assistant.rules.twentynine.scoring`)."""
from assistant.rules.cards import KING, QUEEN, card, card_label
from assistant.rules.game import Refused
from assistant.rules.twentynine.pack import BIT, HIGH_BID, LOW_BID, PLAY, SIDE_OF, TRUMP_CARD


class HouseRules:
    """Doubling (double=on) and the pair (pair=on)."""
    __slots__ = ()

    def _doubling_open(self):
        """Trump is set (a card face down, or the seventh card called: S4) and nothing is led."""
        if self.phase is TRUMP_CARD:
            return self.seventh
        return self.phase is PLAY and not self.trick_no and not self.trick

    def _before_first_lead(self, what):
        if not self._doubling_open():
            raise Refused("too-late", f"{what} only after trump is set and before the first lead")

    def _do_double(self, a):
        if not self.double_on:
            raise Refused("option-off", "doubling is not played here (option double=on)")
        self._before_first_lead("a player of the other side may double")
        if self.multiplier > 1:
            raise Refused("already", "the round is already doubled")
        s = self._side_seat(a, 1 - SIDE_OF[self.bidder], "double")
        self.multiplier = 2
        self.doubler = s

    def _do_redouble(self, a):
        if not self.double_on:
            raise Refused("option-off", "doubling is not played here (option double=on)")
        self._before_first_lead("the bidding side may redouble")
        if self.multiplier == 1:
            raise Refused("not-now", "only a doubled round can be redoubled")
        if self.multiplier == 4:
            raise Refused("already", "the round is already redoubled")
        s = self._side_seat(a, SIDE_OF[self.bidder], "redouble")
        self.multiplier = 4
        self.redoubler = s

    def _side_seat(self, a, side, what):
        s = self._seat(a)
        if s is None:
            s = self.to_act
            while SIDE_OF[s] != side:
                s = (s + 1) % 4
        elif SIDE_OF[s] != side:
            who = "the bidding side" if what == "redouble" else "the side that did not bid"
            raise Refused("wrong-side", f"only a player of {who} may {what}")
        return s

    def _do_pair(self, a):
        if not self.pair_on:
            raise Refused("option-off", "the pair is not played here (option pair=on)")
        s = self._seat(a)
        if s is None:
            s = self.to_act
        self._check_pair(s)
        side = SIDE_OF[s]
        t = self.trump_suit
        kq = BIT[card(t, KING)] | BIT[card(t, QUEEN)]
        self.known[s] |= kq
        self.pair_seat = s
        self._deduce_last_hand()
        step = -4 if side == SIDE_OF[self.bidder] else 4
        self.target = min(HIGH_BID, max(LOW_BID, self.target + step))

    def pair_open(self, s):
        """Whether seat ``s`` may be offered the pair by what the whole table knows: every check
        of :meth:`_check_pair` but the hands the box knows (a deal scan, a sure holding), which a
        menu offering the pair only to the seats that hold it would show to everyone."""
        try:
            self._check_pair_public(s)
        except Refused:
            return False
        return True

    def _check_pair(self, s):
        self._check_pair_public(s)
        t = self.trump_suit
        kq = BIT[card(t, KING)] | BIT[card(t, QUEEN)]
        for c in (card(t, KING), card(t, QUEEN)):
            if not self.known[s] & BIT[c]:  # where else it is stays unsaid: a known hand is hidden
                if self._elsewhere(s, BIT[c]):
                    raise Refused("card-elsewhere", f"{self.name(s)} does not hold {card_label(c)}")
                if self._full(s):
                    raise Refused("not-held", f"{self.name(s)} does not hold {card_label(c)}")
        if (self.known[s] | kq).bit_count() > self.left[s]:
            raise Refused("not-held", f"{self.name(s)} cannot hold both: too few cards are left")

    def _check_pair_public(self, s):
        if not self.pair_on:
            raise Refused("option-off", "the pair is not played here (option pair=on)")
        self._expect(PLAY, what="declaring the pair")
        if not self.revealed:
            raise Refused("not-now", "the pair is declared only once trump is revealed")
        if self.pair_seat is not None:
            raise Refused("already", f"{self.name(self.pair_seat)} already declared the pair")
        side = SIDE_OF[s]
        if not any(SIDE_OF[w] == side for w in self.winners[self.reveal_trick:]):
            raise Refused("needs-trick", f"{self.side_name(side)} must win a trick after trump is revealed "
                          "before declaring the pair")
        t = self.trump_suit
        for c in (card(t, KING), card(t, QUEEN)):
            if self.played & BIT[c]:
                raise Refused("card-seen", f"{card_label(c)} was already played this round")
        shown = self.revealed_trump_card()  # turned up for all to see: it is the bidder's (N4)
        if shown in (card(t, KING), card(t, QUEEN)) and s != self.bidder:
            raise Refused("card-elsewhere", f"{self.name(s)} does not hold {card_label(shown)}")
        if self.left[s] < 2:
            raise Refused("not-held", f"{self.name(s)} cannot hold both: too few cards are left")
