"""A seedable random Twenty-Nine player that holds the true cards.

The bot is the whole table: it turns the flip, shuffles and deals (four each,
the auction, then four more), bids, sets the trump card or calls the seventh,
and plays legal cards for every seat from their real hands. It reads only what
the engine shows the table, plus ``engine.known`` to stay within what a real
table could do unnoticed: a deliberate renege (``renege_rate``) is injected
only where the engine cannot refuse it at once, so each is counted in
``injected`` and logged in ``injected_log`` as (seat, hand, trick), the same
triple the engine reports when it proves one. With ``known_hands`` it gives a
``hand`` line for every seat before each auction (then no renege can be
injected: the engine refuses them all at once).

The bot never finishes a round early while one of its reneges of that round is
unproven, so with no claims and no accusations every injected renege is proven
by the end of its round.

>>> from assistant.rules.twentynine import TwentyNine
>>> engine, bot = TwentyNine(), TwentyNineBot(seed=1)
>>> n = play_match(engine, bot)
>>> engine.winner is not None
True
"""
import random

from assistant.rules.cards import KING, QUEEN, card
from assistant.rules.scenario import Action
from assistant.rules.shared import flipped
from assistant.rules.twentynine import BIT, SIDE_OF, SUIT_MASK, cards_of


class TwentyNineBot:
    """``next_action(engine)`` gives the table's next action, or None once the match is over."""

    scans_hands = False  # at the simulated table the bot does not tap hands:
    no_scan = "Twenty-Nine scans come after the trump card"

    @classmethod
    def at_table(cls, seed, renege_rate, known_hands=False):
        """The bot the simulated table plays with: claims and accusations come from the table."""
        return cls(seed, renege_rate=renege_rate, claim_rate=0.0, accuse_rate=0.0)

    def __init__(self, seed=None, renege_rate=0.0, known_hands=False, claim_rate=0.05,
                 accuse_rate=0.0, finish_rate=0.3, call_rate=0.5, seventh_rate=0.2,
                 bid_rate=0.4, double_rate=0.2, pair_rate=0.7):
        self.rng = random.Random(seed)
        self.renege_rate = renege_rate
        self.known_hands = known_hands
        self.claim_rate = claim_rate
        self.accuse_rate = accuse_rate
        self.finish_rate = finish_rate
        self.call_rate = call_rate
        self.seventh_rate = seventh_rate
        self.bid_rate = bid_rate
        self.double_rate = double_rate
        self.pair_rate = pair_rate
        self.injected = 0          # deliberate reneges the engine accepted
        self.injected_log = []     # (seat, hand, trick) of each
        self.results = {}          # hand number -> engine.result once that round ended
        self.dealt = None          # the true eight cards of each seat, bitmasks
        self.sevenths = None       # each seat's seventh card (N4)
        self.dealt_for = None      # the hand number the deal is for
        self.shown = 0             # seats whose hand line was given (bits)
        self.asked = None          # (hand, {what}) decisions already made this round

    # -- the table's next action --------------------------------------------------------

    def next_action(self, engine):
        phase = engine.phase
        if phase == "over":
            return None
        if phase == "flip":
            return self._flip()
        if engine.hand_no:
            extra = self._claim_or_accuse(engine)
            if extra is not None:
                return extra
        if phase in ("bidding", "end"):
            if not engine.round_open and self.dealt_for != engine.hand_no + 1:
                self._deal(engine.hand_no + 1)
            if self.known_hands and self.shown != 15:
                seat = next(s for s in range(4) if not self.shown & (1 << s))
                self.shown |= 1 << seat
                return Action("hand", seat=seat, cards=tuple(cards_of(self.dealt[seat])))
            return self._auction(engine)
        if phase == "trump":
            return self._trump(engine)
        return self._play_phase(engine)

    def _flip(self):
        deck = list(range(32))
        self.rng.shuffle(deck)
        return Action("flip", cards=flipped(deck))

    def _deal(self, hand_no):
        deck = list(range(32))
        self.rng.shuffle(deck)
        first, second = deck[:16], deck[16:]
        self.dealt = [0, 0, 0, 0]
        self.sevenths = [0, 0, 0, 0]
        for s in range(4):
            four = second[4 * s:4 * s + 4]
            for c in first[4 * s:4 * s + 4] + four:
                self.dealt[s] |= BIT[c]
            self.sevenths[s] = four[2]  # the third card of their second four
        self.dealt_for = hand_no
        self.shown = 0

    def _auction(self, engine):
        rng = self.rng
        high = engine.high
        forced = high == 0 and sum(engine.active) == 1
        if high < 29 and (forced or rng.random() < self.bid_rate):
            low = max(16, high + 1)
            return Action("bid", value=rng.randint(low, min(29, low + 3)))
        return Action("pass")

    def _trump(self, engine):
        s = engine.bidder
        if engine.seventh:
            return Action("trump", cards=(self.sevenths[s],))
        if self.rng.random() < self.seventh_rate:
            return Action("seventh")
        return Action("trump", cards=(self.rng.choice(cards_of(self.dealt[s])),))

    # -- play ---------------------------------------------------------------------------

    def _once(self, engine, what):
        """True the first time ``what`` is asked in this round: a decision is made once."""
        if self.asked is None or self.asked[0] != engine.hand_no:
            self.asked = (engine.hand_no, set())
        if what in self.asked[1]:
            return False
        self.asked[1].add(what)
        return True

    def _play_phase(self, engine):
        rng = self.rng
        if engine.double_on and not engine.trick_no and not engine.trick:
            if engine.multiplier == 1 and self._once(engine, "double") and rng.random() < self.double_rate:
                return Action("double")
            if engine.multiplier == 2 and self._once(engine, "redouble") and rng.random() < self.double_rate:
                return Action("redouble")
        if engine.can_finish() and rng.random() < self.finish_rate and not self.unproven(engine):
            return Action("finish")
        seat = engine.to_act
        hand = self.dealt[seat] & ~engine.played
        tc = engine.hidden_trump_card()
        if seat == engine.bidder and not engine.revealed:
            hand &= ~BIT[tc]
        if engine.pair_on and engine.revealed and engine.pair_seat is None:
            t = engine.trump_suit
            kq = BIT[card(t, KING)] | BIT[card(t, QUEEN)]
            side = SIDE_OF[seat]
            if (hand & kq == kq and any(SIDE_OF[w] == side for w in engine.winners[engine.reveal_trick:])
                    and rng.random() < self.pair_rate):
                return Action("pair")
        trick = engine.trick
        if not trick:
            return self._play(rng.choice(cards_of(hand)))
        led = trick[0][1] >> 3
        known = engine.known[seat]
        if seat == engine.caller:  # N5: the caller must trump if able
            t = engine.trump_suit
            trumps = hand & SUIT_MASK[t]
            if trumps:
                others = hand & ~SUIT_MASK[t] & ~SUIT_MASK[led]
                if others and not known & SUIT_MASK[t] and rng.random() < self.renege_rate:
                    return self._renege(engine, seat, others)
                return self._play(rng.choice(cards_of(trumps)))
            return self._play(rng.choice(cards_of(hand)))
        follow = hand & SUIT_MASK[led]
        if follow:
            others = hand & ~follow
            if others and not known & SUIT_MASK[led] and rng.random() < self.renege_rate:
                return self._renege(engine, seat, others)
            return self._play(rng.choice(cards_of(follow)))
        if not engine.revealed and rng.random() < self.call_rate:
            return Action("call")
        return self._play(rng.choice(cards_of(hand)))

    @staticmethod
    def _play(c):
        return Action("play", cards=(c,))

    def _renege(self, engine, seat, cards):
        self.injected += 1
        self.injected_log.append((seat, engine.hand_no, engine.trick_no + 1))
        return self._play(self.rng.choice(cards_of(cards)))

    def unproven(self, engine):
        """Injected reneges of the current round the engine has not proven (yet)."""
        mine = [r for r in self.injected_log if r[1] == engine.hand_no]
        if not mine:
            return []
        proven = [(r.seat, r.hand, r.trick) for r in engine.book.proven if r.hand == engine.hand_no]
        for r in proven:
            if r in mine:
                mine.remove(r)
        return mine

    def _claim_or_accuse(self, engine):
        rng = self.rng
        if self.claim_rate and rng.random() < self.claim_rate:
            sides = engine.claimable_sides()
            if sides:
                side = rng.choice(sides)
                return Action("claim", seat=side if len(sides) == 2 else None)
        if self.accuse_rate and engine.round_open and rng.random() < self.accuse_rate:
            return Action("accuse", seat=rng.randrange(4))
        return None


def _engine(target):
    return getattr(target, "engine", target)


def play_match(target, bot, max_actions=100_000, on_action=None):
    """Let ``bot`` play a TwentyNine engine (or a Match) to the end of the match; returns the
    number of actions applied."""
    return _play_until(target, bot, max_actions, on_action, None)


def play_round(target, bot, max_actions=10_000, on_action=None):
    """Play on until the next round begins and ends (or the match is over)."""
    return _play_until(target, bot, max_actions, on_action, _engine(target).hand_no + 1)


def _play_until(target, bot, max_actions, on_action, hand):
    n = 0
    results = bot.results
    while n < max_actions:
        engine = _engine(target)
        if hand is not None and engine.hand_no >= hand and not engine.round_open:
            return n
        action = bot.next_action(engine)
        if action is None:
            return n
        target.apply(action)
        engine = _engine(target)
        if not engine.round_open and engine.hand_no:
            results[engine.hand_no] = engine.result
        if on_action is not None:
            on_action(action)
        n += 1
    raise RuntimeError("the match did not end within max_actions")
