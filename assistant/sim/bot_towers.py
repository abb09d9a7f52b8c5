"""A seedable random towers player that holds the true cards.

The bot is the whole table: it shuffles and deals, turns the flip and the
up-card, and plays legal cards for both players from their real hands, so its
actions are what a real table would produce. ``renege_rate`` makes it fail to
follow on purpose (counted in ``injected``); ``known_hands`` makes it give
``hand`` lines so the engine can refuse illegal cards at once.

>>> from assistant.rules.towers import Towers
>>> engine, bot = Towers(), TowersBot(seed=1)
>>> n = play_match(engine, bot)
>>> engine.winner is not None
True
"""
import random

from assistant.rules.cards import TOWERS_PACK
from assistant.rules.scenario import Action
from assistant.rules.shared import flipped
from assistant.rules.towers import EFFECTIVE, SURE

PACK = sorted(TOWERS_PACK)


class TowersBot:
    scans_hands = True  # at the simulated table with deal scan, the bot taps every hand

    @classmethod
    def at_table(cls, seed, renege_rate, known_hands=False):
        """The bot the simulated table plays with: claims and accusations come from the table."""
        return cls(seed, renege_rate=renege_rate, claim_rate=0.0, accuse_rate=0.0,
                   known_hands=known_hands, skip_discard_rate=0.0 if known_hands else 0.3)

    def __init__(self, seed=None, renege_rate=0.0, known_hands=False, claim_rate=0.5,
                 accuse_rate=0.0, for_two_rate=0.1, skip_discard_rate=0.3):
        self.rng = random.Random(seed)
        self.renege_rate = renege_rate
        self.known_hands = known_hands
        self.claim_rate = claim_rate
        self.accuse_rate = accuse_rate
        self.for_two_rate = for_two_rate
        self.skip_discard_rate = skip_discard_rate
        self.injected = 0      # deliberate failures to follow
        self.injected_log = [] # (seat, hand, trick) of each, as the engine reports a proven one
        self.hands = None      # the true hands of the deal in progress
        self.dealt_for = None  # hand number the deal is for
        self.shown = set()     # seats whose hand line was given this deal
        self.up_card = None
        self.declined = set()  # (hand, seat) that chose not to declare for 2

    def next_action(self, engine):
        rng = self.rng
        phase = engine.phase
        if phase == "over":
            return None
        if phase in ("flip", "upcard", "trump1", "trump2", "play") and engine.hand_no and rng.random() < 0.02:
            extra = self._claim_or_accuse(engine)
            if extra is not None:
                return extra
        if phase == "flip":
            deck = PACK[:]
            rng.shuffle(deck)
            return Action("flip", cards=flipped(deck))
        if phase == "upcard":
            if self.dealt_for != engine.hand_no + 1:
                self._deal(engine)
            if self.known_hands:
                for seat in (0, 1):
                    if seat not in self.shown:
                        self.shown.add(seat)
                        return Action("hand", seat=seat, cards=tuple(sorted(self.hands[seat])))
            return Action("upcard", cards=(self.up_card,))
        if phase == "trump1":
            if rng.random() < 0.35:
                self.hands[engine.dealer].add(self.up_card)
                return Action("accept")
            return Action("pass")
        if phase == "trump2":
            if engine.to_act == engine.dealer or rng.random() < 0.5:
                suits = [s for s in range(4) if s != engine.turned_down]
                return Action("name", value=rng.choice(suits))
            return Action("pass")
        return self._play_phase(engine)

    def _deal(self, engine):
        deck = PACK[:]
        self.rng.shuffle(deck)
        n = engine.hand_size
        self.hands = [set(deck[:n]), set(deck[n:2 * n])]
        self.up_card = deck[2 * n]
        self.dealt_for = engine.hand_no + 1
        self.shown = set()

    def _play_phase(self, engine):
        rng = self.rng
        dealer_hand = self.hands[engine.dealer]
        if engine.picked_up and len(dealer_hand) > engine.hand_size:
            discard = rng.choice(sorted(dealer_hand))
            dealer_hand.discard(discard)
            if rng.random() >= self.skip_discard_rate:
                return Action("discard", cards=(discard,))
        first_lead = not engine.trick and engine.done == 0
        key = (engine.hand_no, engine.bidder)
        if first_lead and not engine.for_two and key not in self.declined:
            self.declined.add(key)
            if rng.random() < self.for_two_rate:
                return Action("for2")
        seat = engine.to_act
        hand = self.hands[seat]
        trump = engine.trump
        cards = sorted(hand)
        if engine.trick:
            led = EFFECTIVE[trump][engine.trick[0][1]]
            follow = [c for c in cards if EFFECTIVE[trump][c] == led]
            if follow:
                others = [c for c in cards if EFFECTIVE[trump][c] != led]
                unsure = engine.known[seat] is None and engine.holds(seat, led) != SURE
                if others and unsure and rng.random() < self.renege_rate:
                    self.injected += 1
                    self.injected_log.append((seat, engine.hand_no, engine.done + 1))
                    follow = others
                cards = follow
        card = rng.choice(cards)
        hand.discard(card)
        return Action("play", cards=(card,))

    def failing_card(self, engine):
        """A card of the seat to play that does not follow the led suit although the seat can
        (deal scan: the box must refuse it at once, T9's correction), or None."""
        trump, hand = engine.trump, sorted(self.hands[engine.to_act])
        led = EFFECTIVE[trump][engine.trick[0][1]]
        others = [c for c in hand if EFFECTIVE[trump][c] != led]
        return others[0] if others and len(others) < len(hand) else None

    def _claim_or_accuse(self, engine):
        rng = self.rng
        for side in (0, 1):
            if engine.book.claimable(side) and rng.random() < self.claim_rate:
                return Action("claim", seat=side)
        if engine.phase == "play" and rng.random() < self.accuse_rate:
            return Action("accuse", seat=rng.randrange(2))
        return None


def play_match(engine, bot, max_actions=100_000, on_action=None):
    """Let ``bot`` play ``engine`` to the end of the match; returns the number of actions."""
    n = 0
    while n < max_actions:
        action = bot.next_action(engine)
        if action is None:
            return n
        engine.apply(action)
        if on_action is not None:
            on_action(action)
        n += 1
    raise RuntimeError("the match did not end")
