"""N8 N9 N10 N11 Scoring: the contract made or missed, the early finish, a renege penalty
replacing the round's result, the match won at 6 (or, scoring=pagat, lost at -6)."""
from assistant.rules.game import HandResult, Refused
from assistant.rules.twentynine.pack import GAME, MATCH_OVER, PLAY, ROUND_OVER, SIDE_OF, TOTAL


class Scoring:
    """The round's value and result, penalties, the match's end."""
    __slots__ = ()

    def round_value(self):
        """N9 with the options: 1, or 2 from the two-point bid, times the double (N11 penalties too)."""
        if self.bid is None:
            return 0
        return (2 if self.bid >= self.two_point else 1) * self.multiplier

    def can_finish(self):
        """N10: the contract is already made, or already out of reach."""
        if self.phase is not PLAY:
            return False
        bs = SIDE_OF[self.bidder]
        return self.points[bs] >= self.target or TOTAL - self.points[1 - bs] < self.target

    def claimable_sides(self):
        """Sides that may claim now (a proven, unsettled renege by the other side this round)."""
        if self.hand_no == 0:
            return []
        return [side for side in (0, 1) if self.book.claimable(side)]

    def _do_finish(self, a):
        self._expect(PLAY, what="finishing the round")
        if not self.can_finish():
            bs = SIDE_OF[self.bidder]
            raise Refused("contract-open", f"the contract is still open: {self.side_name(bs)} has {self.points[bs]} "
                          f"of {self.target} and {self.side_name(1 - bs)} has {self.points[1 - bs]}")
        self._end_hand("finished")

    def _award(self, side, value):
        """Give ``side`` the value; under scoring=pagat only the bidding side's score moves."""
        if self.pagat:
            bs = SIDE_OF[self.bidder]
            self.score[bs] += value if side == bs else -value
        else:
            self.score[side] += value

    def _score_hand(self, how):
        """The round's play is over: N9, made or missed, scored from ``pre_score``."""
        bs = SIDE_OF[self.bidder]
        value = self.round_value()
        self.pre_score = tuple(self.score)
        made = self.points[bs] >= self.target
        self._award(bs if made else 1 - bs, value)
        self.result = ("made" if made else "missed") + f" ({how})"
        self._outcome = (HandResult, self.hand_no, self.bidder, "made" if made else "missed", how,
                         bs if made else 1 - bs, value, self.points[bs])
        self._close_round()

    def _penalty_value(self):
        return self.round_value()  # N11: the round value, doubling included

    def _score_penalty(self, side, why, value, replaces):
        """N11: the aggrieved side scores the round value. During the round it ends the round now;
        once the round's own result was scored (``replaces``), it takes that result's place."""
        if replaces:
            self.score = list(self.pre_score)
        else:
            self.pre_score = tuple(self.score)
        self._award(side, value)
        self.result = why
        if replaces:
            self._check_winner()
        else:
            self._close_round()

    def _close_round(self):
        self.round_open = False
        self.trick = []
        self.caller = None
        self.dealer = (self.dealer + 1) % 4  # N2: the deal passes to the right
        self._reset_auction()
        self.phase = ROUND_OVER
        self._check_winner()

    def _check_winner(self):
        sc = self.score
        win = None
        for side in (0, 1):
            if sc[side] >= GAME:
                win = side
            elif self.pagat and sc[side] <= -GAME:
                win = 1 - side
        self.winner = win
        if win is not None:
            self.phase = MATCH_OVER
            self.to_act = None
        else:
            if self.phase is MATCH_OVER:
                self.phase = ROUND_OVER
            self.to_act = (self.dealer + 1) % 4
