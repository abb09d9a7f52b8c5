"""T6 T8 T9 Scoring: a hand's sweep, for-2 result or majority, towers won, the match won at 5,
and a renege penalty that wins a tower, replacing the hand's own result once it was scored."""
from assistant.rules.game import HandResult
from assistant.rules.towers.pack import FLIP, MATCH_OVER, TOWERS_TO_WIN, UP_CARD


class Scoring:
    """The hand's result (T6), towers and the match (T8), penalties (T9)."""
    __slots__ = ()

    def _score_hand(self, how):
        """T6: the hand's own result. ``last_result`` keeps the score and the hand size before it,
        and whether it ended the tower, for a penalty that replaces it (T9)."""
        self.hand_over = True
        before = (tuple(self.score), self.hand_size)
        bidder = self.bidder
        taken = self.tricks[bidder]
        what, side, value = self._hand_result(taken)
        self._outcome = (HandResult, self.hand_no, bidder, what, how, side, value, taken)
        if side is not None:
            self._win_towers(side, value)
        else:  # the tower goes on: the side with the majority deals the next, smaller hand
            self.dealer = bidder if what == "majority" else 1 - bidder
            self.hand_size -= 1
            self.known = [None, None]
            self.phase = UP_CARD
            self.to_act = None
        self.last_result = before + (self.phase is FLIP or self.phase is MATCH_OVER,)

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

    def _penalty_value(self):
        return 1  # T9: one tower

    def _score_penalty(self, seat, why, value, replaces):
        """T9: ``seat`` wins one tower and the tower ends. A penalty that replaces the hand's result
        (or an earlier penalty, D5) starts again from the score before it, and may undo the match
        end; it is kept in ``last_result`` as a result a later penalty of the hand replaces."""
        self.hand_over = True
        score, size, tower_ended = self.last_result if replaces else (tuple(self.score), self.hand_size, False)
        self.score = list(score)
        self.winner = None
        if not tower_ended:
            self._win_towers(seat, 1)
        else:  # the replaced result already ended the tower: the next one's flip goes on
            self.score[seat] += 1
            if self.score[seat] >= TOWERS_TO_WIN:
                self.winner, self.phase, self.to_act, self.dealer = seat, MATCH_OVER, None, None
            elif self.phase is MATCH_OVER:
                self._new_tower()
        if self.phase is MATCH_OVER:
            self.hand_size = size  # the figures of the last hand played
        self.last_result = (score, size, True)

    def _before_final_trick(self):
        final = self.hand_size - 1
        return self.done < final or (self.done == final and not self.trick)
