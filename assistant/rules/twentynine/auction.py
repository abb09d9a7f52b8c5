"""N3 The auction: after four cards each, bid higher or pass; a pass is out for the round.

The first auction action begins a round (the last round's claims lapse, N11)."""
from assistant.rules.game import Refused
from assistant.rules.twentynine.pack import AUCTION, HIGH_BID, LOW_BID, ROUND_OVER, TRUMP_CARD


class Auction:
    """Bids and passes (N3) of :class:`~assistant.rules.twentynine.TwentyNine`."""
    __slots__ = ()

    def _reset_auction(self):
        self.high = 0
        self.active = [True] * 4

    def _do_bid(self, a):
        self._expect(AUCTION, ROUND_OVER, what="a bid")
        s = self._actor(a)
        n = a.value
        if type(n) is not int or not LOW_BID <= n <= HIGH_BID:
            raise Refused("bid-range", f"bids run from {LOW_BID} to {HIGH_BID}, not {n}")
        if n <= self.high:
            raise Refused("bid-too-low", f"a bid must be higher than {self.high}")
        if not self.round_open:
            self._begin_round()
        self.high = n
        self.bidder = s
        self._next_bidder(s)

    def _do_pass(self, a):
        self._expect(AUCTION, ROUND_OVER, what="a pass")
        s = self._actor(a)
        if self.high == 0 and sum(self.active) == 1:
            raise Refused("dealer-must-bid", f"the first three passed: {self.name(s)} deals and must bid at least {LOW_BID}")
        if not self.round_open:
            self._begin_round()
        self.active[s] = False
        self._next_bidder(s)

    def _next_bidder(self, s):
        active = self.active
        if self.high and sum(active) == 1:
            self.bid = self.target = self.high
            self.phase = TRUMP_CARD
            self.to_act = self.bidder
            return
        s = (s + 1) % 4
        while not active[s]:
            s = (s + 1) % 4
        self.to_act = s

    def _begin_round(self):
        """The first auction action: a round begins, the last round's claims lapse (N11)."""
        self._reset_round()
        self.hand_no += 1
        self.book.start_hand(self.hand_no)
        self.round_open = True
        self.phase = AUCTION
        self.result = None
        self._outcome = None
        self.known = self.next_known
        self.given = self.next_given
        self.next_known = [0, 0, 0, 0]
        self.next_given = [False] * 4
