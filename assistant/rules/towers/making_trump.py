"""T2 T3 T4 Making trump: the deal and the up-card, round one (accept or pass) with the
dealer's pick-up and face-down discard, round two (name a suit but the turned-down one),
and for 2 before the first lead."""
from assistant.rules.cards import TOWERS_PACK, card_label
from assistant.rules.game import Refused, not_held_words
from assistant.rules.towers.pack import PLAY, ROUND_ONE, ROUND_TWO, UP_CARD, suit_words


class MakingTrump:
    """The up-card, the two rounds of making trump, the discard and for 2."""
    __slots__ = ()

    def _do_upcard(self, a):
        self._expect(UP_CARD, what="turning the up-card")
        c = a.card
        if c not in TOWERS_PACK:
            raise Refused("not-in-pack", f"{card_label(c)} is not in the towers pack")
        for hand in self.known:
            if hand is not None and c in hand:
                raise Refused("card-elsewhere", f"{card_label(c)} was dealt to a player: it cannot be the up-card")
        self._reset_hand_figures()
        self.hand_no += 1
        self.book.start_hand(self.hand_no)
        self.hand_over = False
        self.last_result = None
        self._outcome = None
        self.up_card = c
        self.phase = ROUND_ONE
        self.to_act = 1 - self.dealer

    def _do_accept(self, a):
        self._expect(ROUND_ONE, what="accepting the up-card")
        self.bidder = self.to_act
        self.trump = self.up_card >> 3
        self.picked_up = True
        self.discard_open = True
        dealer_hand = self.known[self.dealer]
        if dealer_hand is not None:
            dealer_hand.add(self.up_card)
            self.uncertain = True
        self._start_play()

    def _do_pass(self, a):
        self._expect(ROUND_ONE, ROUND_TWO, what="passing")
        if self.phase is ROUND_TWO and self.to_act == self.dealer:
            raise Refused("dealer-must-name", f"{self.name(self.dealer)} deals and must name trump "
                          f"(any suit but {suit_words(self.turned_down)})")
        if self.to_act == self.dealer:  # both passed round one: the up-card is turned down
            self.turned_down = self.up_card >> 3
            self.phase = ROUND_TWO
        self.to_act = 1 - self.to_act

    def _do_name(self, a):
        if self.phase is ROUND_ONE:
            raise Refused("not-now", "a suit is named only after both players pass the up-card")
        self._expect(ROUND_TWO, what="naming trump")
        if a.value == self.turned_down:
            raise Refused("turned-down", f"{suit_words(a.value)} was turned down: name another suit")
        self.bidder = self.to_act
        self.trump = a.value
        self._start_play()

    def _start_play(self):
        self.phase = PLAY
        self.to_act = 1 - self.dealer

    def _do_discard(self, a):
        self._expect(PLAY, what="a discard")
        c = a.card
        self._check_discard(c)
        hand = self.known[self.dealer]
        self.discard_open = False
        self.discard = c
        if hand is not None:
            hand.discard(c)
            self.uncertain = False

    def _check_discard(self, c):
        if not self.discard_open:
            raise Refused("not-now", "only the dealer who picked up the up-card discards, once, before the first lead")
        if c not in TOWERS_PACK:
            raise Refused("not-in-pack", f"{card_label(c)} is not in the towers pack")
        hand = self.known[self.dealer]
        if hand is not None and c not in hand:
            raise Refused("not-held", not_held_words(self.name(self.dealer)))
        if hand is None and self.known[1 - self.dealer] is not None and c in self.known[1 - self.dealer]:
            raise Refused("card-elsewhere", not_held_words(self.name(self.dealer)))

    def _do_for2(self, a):
        self._expect(PLAY, what="declaring for 2")
        if self.done or self.trick:
            raise Refused("too-late", "for 2 is declared before the first lead")
        if self.for_two:
            raise Refused("already", f"{self.name(self.bidder)} already declared for 2")
        self.for_two = True
