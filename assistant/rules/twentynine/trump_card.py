"""N4 The trump card, set face down or the seventh card; N5 the call for trump; N7 the reveal.

While trump is hidden no message names the face-down card or its suit."""
from assistant.rules.game import Refused, not_held_words
from assistant.rules.twentynine.pack import BIT, PLAY, SUIT_MASK, TRUMP_CARD, suit_words


class TrumpCard:
    """The face-down trump card (N4), the call (N5) and the reveal (N5, N7)."""
    __slots__ = ()

    def revealed_trump_card(self):
        return self._trump_card if self.revealed else None

    def is_trump_card(self, c):
        """Whether ``c`` is the card set aside as trump: compared only, never shown while hidden."""
        return self._trump_card is not None and c == self._trump_card

    def hidden_trump_card(self):
        """The face-down card itself, for the bidder's own hand line (the journal, where hidden
        cards live) and the bidder's bot: never for a screen, a page or a message."""
        return self._trump_card

    def _do_seventh(self, a):
        self._expect(TRUMP_CARD, what="calling the seventh card")
        self._actor(a)
        if self.seventh:
            raise Refused("already", f"{self.name(self.bidder)} already called the seventh card")
        self.seventh = True

    def _do_trump(self, a):
        self._expect(TRUMP_CARD, what="setting the trump card")
        s = self._actor(a)
        c = self._one_card(a)
        self._check_trump(s, c)
        bit = BIT[c]
        self._trump_card = c
        self.trump_set = True
        self.known[s] &= ~bit
        self.left[s] = 7
        self.phase = PLAY
        self.to_act = (self.dealer + 1) % 4
        self._deduce_last_hand()

    def _check_trump(self, s, c):
        bit = BIT[c]
        if self.given[s]:
            if not self.known[s] & bit:
                raise Refused("not-held", not_held_words(self.name(s)))
        elif self._elsewhere(s, bit):  # the words for any card not held (docs/rules.md, At the table)
            raise Refused("card-elsewhere", not_held_words(self.name(s)))

    def _do_call(self, a):
        self._expect(PLAY, what="a call for trump")
        s = self._actor(a)
        if self.revealed:
            raise Refused("cannot-call", "trump is already revealed")
        if not self.trick:
            raise Refused("cannot-call", f"{self.name(s)} leads: only a player who cannot follow may call for trump")
        led = self.trick[0][1] >> 3
        if self.known[s] & SUIT_MASK[led]:
            raise Refused("cannot-call", f"{self.name(s)} can follow {suit_words(led)}, so may not call for trump")
        self.caller = s
        self.call = (s, self.trick_no + 1)
        self._reveal(len(self.trick))

    def _reveal(self, pos):
        """Trump turns face up; the card joins the bidder's hand (N4, N5, N7)."""
        self.revealed = True
        self.trump_suit = self._trump_card >> 3
        self.reveal_trick = self.trick_no
        self.reveal_pos = pos
        self.known[self.bidder] |= BIT[self._trump_card]
        self.left[self.bidder] += 1
        self._deduce_last_hand()
