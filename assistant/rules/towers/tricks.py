"""T7 Play: following suit (the left bower belongs to trump), the trick's winner.

A play is checked (``_check_play``, which ``legal_actions`` asks too), recorded
(``_record_play``: what it shows or fails to show, for the renege book), then the trick is
ended (``_finish_trick``)."""
from assistant.rules.cards import TOWERS_PACK, card_label
from assistant.rules.game import Refused, not_held_words
from assistant.rules.towers.pack import EFFECTIVE, MAYBE, PLAY, POWER, SURE, suit_words


class Tricks:
    """Cards played to tricks and the trick's winner (T7)."""
    __slots__ = ()

    def _do_play(self, a):
        if self.phase is not PLAY:
            self._expect(PLAY, what="playing a card")
        seat, c = self.to_act, a.card
        failed = self._check_play(seat, c)
        if self._record_play(seat, c, failed):
            return  # a proven accusation ended the hand
        if len(self.trick) == 2:
            self._finish_trick()
        else:
            self.to_act = 1 - seat

    def _record_play(self, seat, c, failed):
        """Record an accepted card and what it shows or fails to show; True if it proved an
        accusation, which ends the hand at once (T9: before the trick is scored)."""
        self.discard_open = False
        self.played.add(c)
        if self.known[seat] is not None:
            self.known[seat].discard(c)
        self.trick.append((seat, c))
        book = self.book
        trick_no = self.done + 1
        if failed is not None:
            book.failed(seat, failed, trick_no)
        if book.failures and book.shown(seat, c, EFFECTIVE[self.trump][c], trick_no):
            accusation = book.accusation_proven(seat)
            if accusation is not None:
                self._penalty(accusation.accuser_side, "accusation proven")
                return True
        return False

    def _check_play(self, seat, c):
        """Refuse the card, or return the suit it fails to follow (None if it follows or
        the seat surely holds none of the led suit)."""
        if c not in TOWERS_PACK:
            raise Refused("not-in-pack", f"{card_label(c)} is not in the towers pack")
        if c in self.played:
            raise Refused("card-seen", f"{card_label(c)} was already played this hand")
        if c == self.up_card:
            if not self.picked_up:
                raise Refused("card-elsewhere", f"{card_label(c)} was the up-card, turned down: it is out of play")
            if seat != self.dealer:
                raise Refused("card-elsewhere", f"{card_label(c)} was picked up by {self.name(self.dealer)}")
        # the discard is face down and a known hand is hidden: one wording, naming no card
        if c == self.discard:
            raise Refused("card-elsewhere", not_held_words(self.seats[seat]))
        hand = self.known[seat]
        if hand is not None:
            if c not in hand:
                raise Refused("not-held", not_held_words(self.seats[seat]))
        else:
            other = self.known[1 - seat]
            if other is not None and c in other:
                raise Refused("card-elsewhere", not_held_words(self.seats[seat]))
            if c != self.up_card and self._last_card_is_the_up_card(seat):
                raise Refused("not-held", not_held_words(self.seats[seat]))
        if not self.trick:
            return None
        effective = EFFECTIVE[self.trump]
        led = effective[self.trick[0][1]]
        if effective[c] == led:
            return None
        held = self.holds(seat, led)
        if held == SURE:
            raise Refused("must-follow", f"{self.seats[seat]} must follow {suit_words(led)}")
        return led if held == MAYBE else None

    def _last_card_is_the_up_card(self, seat):
        """S1: the dealer surely holds the picked-up up-card (the discard recorded as another
        card); with one card left to play, it is the only card they hold."""
        left = self.hand_size - self.done - any(s == seat for s, _ in self.trick)
        return left == 1 and self.holds(seat, self.trump) == SURE and self.known[seat] is None

    def _finish_trick(self):
        (s1, c1), (s2, c2) = self.trick
        t = self.trump
        e1, e2 = EFFECTIVE[t][c1], EFFECTIVE[t][c2]
        power = POWER[t]
        second_wins = (e2 == t and e1 != t) or (e2 == e1 and power[c2] > power[c1])
        winner = s2 if second_wins else s1
        self.tricks[winner] += 1
        self.done += 1
        self.trick = []
        self.to_act = winner
        if self.done == self.hand_size:
            self._end_hand("played out")
