"""What the engine knows of each hand: ``hand`` lines (deal scan) and sure holdings (S1).

``known[seat]`` is the set of cards the seat still holds, or None when unknown; the up-card the
dealer picked up is known to be theirs once the discard was recorded as another card."""
from assistant.rules.cards import TOWERS_PACK, card_label
from assistant.rules.game import Refused
from assistant.rules.towers.pack import EFFECTIVE, FLIP, MAYBE, NO, PLAY, SURE, UP_CARD


class Hands:
    """Hand lines, and what the engine is sure each seat holds."""
    __slots__ = ()

    def _do_hand(self, a):
        """A hand line: before the up-card it is the coming hand's, else this hand's. The dealer
        who picked up holds the up-card, less the discard once it is recorded (S1)."""
        if self.phase is FLIP:
            raise Refused("no-hand", "no hand is dealt yet: finish the flip first")
        seat = self._seat(a, required=True)
        live = self.phase is not UP_CARD  # before the up-card the hand is the next one
        self._check_hand(seat, a.cards, live)
        hand = set(a.cards)
        if live and seat == self.dealer and self.picked_up:
            hand.add(self.up_card)
            if self.discard is not None:
                hand.discard(self.discard)
            else:
                self.uncertain = True
        self.known[seat] = hand

    def _check_hand(self, seat, cards, live):
        who = self.name(seat)
        if self.known[seat] is not None:
            raise Refused("hand-given", f"{who}'s hand is already known this hand")
        if self.phase is PLAY and self._has_played(seat):
            raise Refused("hand-given", f"{who}'s hand must be given before their first play")
        if len(cards) != self.hand_size:
            raise Refused("hand-size", f"{who} was dealt {self.hand_size} cards, not {len(cards)}")
        other = self.known[1 - seat] or ()
        seen = set()
        for c in cards:
            if c not in TOWERS_PACK:
                raise Refused("not-in-pack", f"{card_label(c)} is not in the towers pack")
            if c in seen:
                raise Refused("card-seen", f"{card_label(c)} is listed twice")
            seen.add(c)
            if c in other or (live and (c in self.played or c == self.up_card)):
                raise Refused("card-elsewhere", f"{card_label(c)} cannot be in {who}'s hand: it is elsewhere")
            if live and c == self.discard and seat != self.dealer:  # face down: not named
                raise Refused("card-elsewhere", f"one of those cards cannot be in {who}'s hand: "
                              "it is out of play this hand")
        if (live and seat == self.dealer and self.picked_up and self.discard is not None
                and self.discard not in seen and self.discard != self.up_card):
            raise Refused("not-held", f"{who} discarded a card that is not in this hand")

    def _has_played(self, seat):
        # the non-dealer leads the first trick; after that every player has played
        return self.done > 0 or any(s == seat for s, _ in self.trick)

    def _hand_line_open(self, seat):
        """Whether a hand line for ``seat`` may be given now (its cards are checked apart)."""
        return (self.known[seat] is None
                and not (self.phase is PLAY and self._has_played(seat)))

    def holds(self, seat, suit):
        """Whether ``seat`` holds a card of effective ``suit``: SURE, NO or MAYBE.

        Sure holdings (S1): a known hand, or the up-card the dealer
        picked up once the discard was recorded as another card, until it is played.
        With an unrecorded discard one card of the dealer's known hand is in doubt."""
        trump = self.trump
        hand = self.known[seat]
        if hand is not None:
            held = sum(1 for x in hand if EFFECTIVE[trump][x] == suit)
            if held >= (2 if (self.uncertain and seat == self.dealer) else 1):
                return SURE
            return MAYBE if held else NO
        if (seat == self.dealer and suit == trump and self.picked_up and self.discard is not None
                and self.discard != self.up_card and self.up_card not in self.played):
            return SURE
        return MAYBE
