"""N5 N6 N7 Play: following suit, the caller's duty to trump, the trick's winner.

A play is checked (``_check_play``, which ``legal_actions`` asks too), recorded
(``_record_play``: what it shows or fails to show, for the renege book), then the trick is
ended (``_end_trick``)."""
from assistant.rules.cards import card_label
from assistant.rules.game import Refused, not_held_words
from assistant.rules.twentynine.pack import BIT, CARD_POINTS, CARD_POWER, PLAY, SIDE_OF, SUIT_MASK, suit_words


class Tricks:
    """Cards played to tricks (N5), the trick's winner (N6), the last trick (N7, N8)."""
    __slots__ = ()

    def _do_play(self, a):
        if self.phase is not PLAY:
            self._expect(PLAY, what="a play")
        s = self._actor(a)
        cards = a.cards
        if len(cards) != 1 or type(cards[0]) is not int or not 0 <= cards[0] < 32:
            raise Refused("not-an-action", "'play' takes one card of the Twenty-Nine pack")
        c = cards[0]
        fail_led, fail_trump = self._check_play(s, c)
        if self._record_play(s, c, fail_led, fail_trump):
            return  # a proven accusation ended the round
        if len(self.trick) < 4:
            self.to_act = (s + 1) % 4
        else:
            self._end_trick()

    def _check_play(self, s, c):
        """Refuse the card, or say what it fails to show: (the led suit, or None; trump, or None)."""
        bit = BIT[c]
        if self.played & bit:
            raise Refused("card-seen", f"{card_label(c)} was already played this round")
        known = self.known[s]
        who = self.name(s)
        # the face-down trump card and the known hands are hidden: one wording, naming no card
        if c == self._trump_card and not self.revealed:
            raise Refused("card-elsewhere", not_held_words(who))
        if not known & bit:
            if self._elsewhere(s, bit):
                raise Refused("card-elsewhere", not_held_words(who))
            if known.bit_count() >= self.left[s]:
                raise Refused("not-held", not_held_words(who))
        suit = c >> 3
        trick = self.trick
        led = trick[0][1] >> 3 if trick else None
        fail_led = fail_trump = None
        if led is not None and suit != led:
            if s != self.caller and known & SUIT_MASK[led]:
                raise Refused("must-follow", f"{who} must follow {suit_words(led)}")
            fail_led = led
        if s == self.caller:
            if suit == led and c != self._trump_card:
                raise Refused("called", f"{who} called for trump, declaring no {suit_words(led)}: "
                              f"undo the call to play {card_label(c)} (D9)")
            t = self.trump_suit
            if suit != t:
                trumps = known & SUIT_MASK[t]
                if t == led:  # D7: N11 refuses the caller's trumps here, all but the trump card (D6)
                    trumps &= BIT[self._trump_card]
                if trumps:
                    raise Refused("must-trump", f"{who} called for trump and must play a trump ({suit_words(t)})")
                if t != led:
                    fail_trump = t
        return fail_led, fail_trump

    def _record_play(self, s, c, fail_led, fail_trump):
        """Record an accepted card and what it shows or fails to show; True if it proved an
        accusation, which ends the round at once (N11/T9: before the trick is scored)."""
        book = self.book
        trick_no = self.trick_no + 1
        known = self.known[s]
        full = known.bit_count() >= self.left[s]
        proven = book.shown(s, c, c >> 3, trick_no) if book.failures else ()
        # A full known hand is refused any failure at once, but for one: a call made before the
        # hand line while holding the led suit (N11: a false call). That failure stands.
        if fail_led is not None and (not full or known & SUIT_MASK[fail_led]):
            excluded = self._trump_card if s == self.bidder and not self.revealed else None
            book.failed(s, fail_led, trick_no, excluded)
        if fail_trump is not None and not full:
            book.failed(s, fail_trump, trick_no, None)
        bit = BIT[c]
        self.played |= bit
        self.known[s] = known & ~bit
        self.left[s] -= 1
        self.plays[s] += 1
        self.trick.append((s, c))
        if proven and book.accusations:
            acc = book.accusation_proven(s)
            if acc is not None:
                self._penalty(acc.accuser_side, "accusation proven")
                return True
        self._deduce_last_hand()  # a hand known by its count (a pair's K and Q) may complete three
        return False

    def _end_trick(self):
        trick = self.trick
        w = self._trick_winner(trick)
        side = SIDE_OF[w]
        self.tricks[w] += 1
        pts = CARD_POINTS
        self.points[side] += (pts[trick[0][1]] + pts[trick[1][1]]
                              + pts[trick[2][1]] + pts[trick[3][1]])
        self.trick_no += 1
        self.winners.append(w)
        self.trick = []
        self.caller = None
        self.to_act = w
        if self.trick_no == 8:
            self.points[side] += 1  # N8: the last trick
            self._end_hand("played out")
        elif self.trick_no == 7 and not self.revealed:
            self._reveal(0)  # N7: never called, revealed as the eighth trick begins

    def _trick_winner(self, trick):
        """N6: the highest trump if trump is revealed (option: only those after the call), else
        the highest card of the suit led."""
        led = trick[0][1] >> 3
        power = CARD_POWER
        if self.revealed and self.trump_suit != led:
            t = self.trump_suit
            start = self.reveal_pos if self.after_call and self.reveal_trick == self.trick_no else 0
            best = None
            for i in range(start, 4):
                s, c = trick[i]
                if c >> 3 == t and (best is None or power[c] > power[best[1]]):
                    best = (s, c)
            if best is not None:
                return best[0]
        best = trick[0]
        for s, c in trick[1:]:
            if c >> 3 == led and power[c] > power[best[1]]:
                best = (s, c)
        return best[0]
