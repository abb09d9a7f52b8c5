"""T6 T8 T9 Scoring: a hand's sweep, for-2 result or majority, towers won, the match won at 5,
and a renege penalty that wins a tower, replacing the hand's own result once it was scored."""
from assistant.rules.game import HandResult
from assistant.rules.towers.pack import FLIP, MATCH_OVER, TOWERS_TO_WIN, UP_CARD


class Scoring:
    """The hand's result (T6), towers and the match (T8), penalties (T9)."""
    __slots__ = ()

    def _hand_played_out(self):
        """T6 and T9: score the hand, unless a false accusation replaces its result."""
        self.hand_over = True
        accusation = self.book.false_accusation()
        if accusation is not None:
            self._penalty(1 - accusation.accuser_side, "false accusation", replaces=True)
            return
        self.last_result = (tuple(self.score), self.dealer, self.hand_size)
        bidder = self.bidder
        taken = self.tricks[bidder]
        what, side, value = self._hand_result(taken)
        self._outcome = (HandResult, self.hand_no, bidder, what, "played out", side, value, taken)
        if side is not None:
            self._win_towers(side, value)
        else:  # the tower goes on: the side with the majority deals the next, smaller hand
            self.dealer = bidder if what == "majority" else 1 - bidder
            self.hand_size -= 1
            self.known = [None, None]
            self.phase = UP_CARD
            self.to_act = None
        self.last_result += (self.phase is FLIP or self.phase is MATCH_OVER,)

    def _hand_result(self, taken):
        """T6, in its order: (what, the seat that wins towers or None, how many towers)."""
        bidder, size, for_two = self.bidder, self.hand_size, self.for_two
        majority = size // 2 + 1
        if taken == size:
            return ("for-2 sweep" if for_two else "sweep"), bidder, 2 if for_two else 1
        if taken == 0:
            return ("for-2 zero" if for_two else "sweep"), 1 - bidder, 2 if for_two else 1
        if for_two and taken < majority:
            return "for-2 short", 1 - bidder, 1
        return ("majority" if taken >= majority else "minority"), None, 0

    def _win_towers(self, seat, count):
        self.score[seat] += count
        if self.score[seat] >= TOWERS_TO_WIN:
            self.winner = seat
            self.phase = MATCH_OVER
            self.to_act = None
            self.dealer = None
            self.known = [None, None]
        else:
            self._new_tower()

    def _penalty(self, seat, why, replaces=False):
        """A claim or a settled accusation: ``seat`` wins one tower and the tower ends (T9).

        After the hand's own result (or an earlier penalty, D5) was scored, the penalty replaces
        it; it is kept in ``last_result`` as a result a later penalty of the hand replaces."""
        self.hand_over = True
        result = self.last_result
        before = (result[0], result[2]) if result is not None else (tuple(self.score), self.hand_size)
        self._settle(seat, why, 1, replaces or result is not None)
        self._apply_penalty(seat, result)
        self.last_result = (before[0], None, before[1], True)

    def _apply_penalty(self, seat, result):
        if result is not None:
            score, dealer, size, tower_ended = result
            self.score = list(score)
            self.winner = None
            if tower_ended:
                self.score[seat] += 1
                if self.score[seat] >= TOWERS_TO_WIN:
                    self.winner, self.phase, self.to_act, self.dealer = seat, MATCH_OVER, None, None
                    self.hand_size = size  # the figures of the last hand played
                elif self.phase is MATCH_OVER:
                    self._new_tower()
                return
            self._win_towers(seat, 1)
            if self.phase is MATCH_OVER:
                self.hand_size = size
            return
        self._win_towers(seat, 1)

    def _before_final_trick(self):
        final = self.hand_size - 1
        return self.done < final or (self.done == final and not self.trick)
