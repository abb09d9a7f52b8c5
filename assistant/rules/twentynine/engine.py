"""The Twenty-Nine engine: the state of one match, what it accepts now, what it shows.

Four seats in play order, partnerships P1+P3 (side 0) and P2+P4 (side 1).
``TwentyNine.apply`` takes scenario actions and either changes the state or
raises :class:`Refused` having changed nothing (every check comes first).

What the engine knows of a hand is ``known[seat]`` (:mod:`.hands`). Hidden information:
while trump is hidden no message, exception or ``state()`` names the face-down card or its
suit.

It implements the game interface of :mod:`assistant.rules.game`; what both games share is
:class:`assistant.rules.shared.Rules`; the rules of each part of the rulebook are in the
modules this class is made of (see the package :mod:`assistant.rules.twentynine`).

Public attributes (read by the table and the bots; the engine alone writes them):
``seats`` (names), ``phase`` (a :class:`Phase`: FLIP, AUCTION, TRUMP_CARD, PLAY,
ROUND_OVER = the round is over and the next auction is awaited, MATCH_OVER),
``to_act`` (seat index or None), ``dealer`` (index or None during the flip;
after a round ends it is already the next round's dealer), ``hand_no``
(rounds begun), ``round_open`` (a round has begun and its play has not ended),
``high`` / ``active`` (the auction: highest bid so far, seats still in),
``bid`` (set when the auction ends), ``bidder`` (the highest bidder so far, then
the contract holder), ``target`` (the bid moved by a pair), ``seventh``,
``revealed``, ``trump_suit`` (suit index once revealed, else None),
``trump_set`` (a face-down card is set), ``caller`` (the seat that called
in the current trick), ``call`` ((seat, trick) of the round's call), ``trick`` (list of (seat, card)), ``trick_no`` (tricks
completed this round), ``tricks`` (per seat), ``points`` (per side),
``winners`` (trick winners of the round), ``played`` (bitmask of cards played
this round), ``known`` (bitmask per seat, see above: hidden information),
``left`` (cards each seat has still to play), ``plays`` (cards each seat has
played), ``given`` (seats with a ``hand`` line this round), ``next_known`` /
``next_given`` (hand lines given between rounds, for the next deal),
``multiplier`` (1, 2 doubled, 4 redoubled), ``pair_seat``, ``score`` (per
side), ``winner`` (side or None), ``pre_score`` (the score before the last
round's result, which a later penalty replaces), ``result`` (how the last round
was scored), ``book`` (the RenegeBook). The face-down card itself is
``_trump_card``: hidden, never for display. ``can_finish()`` (N10) and
``claimable_sides()`` (N11) answer the table's buttons.
"""
from assistant.rules.cards import SUITS
from assistant.rules.game import Action, Refused, Waiting
from assistant.rules.renege import RenegeBook
from assistant.rules.shared import Flip, Rules
from assistant.rules.twentynine.auction import Auction
from assistant.rules.twentynine.hands import Hands
from assistant.rules.twentynine.house_rules import HouseRules
from assistant.rules.twentynine.pack import (AUCTION, FLIP, HIGH_BID, LOW_BID, OPTIONS, PLAY,
                                             ROUND_OVER, SIDE_OF, SUIT_MASK, TRUMP_CARD)
from assistant.rules.twentynine.scoring import Scoring
from assistant.rules.twentynine.trump_card import TrumpCard
from assistant.rules.twentynine.tricks import Tricks


class TwentyNine(Auction, TrumpCard, Hands, Tricks, Scoring, HouseRules, Rules):
    """One match of Twenty-Nine; see the module docstring for what it exposes. Its rules are
    in the modules of this package, one part of the rulebook each."""

    game, title = "twenty-nine", "Twenty-Nine"  # the scenario's name, the name for people
    players = 4
    partnerships = True   # P1+P3 (side 0) and P2+P4 (side 1)
    has_auction, has_for_two = True, False  # bids (N3), no for 2
    side_of = SIDE_OF
    OPTIONS = OPTIONS     # the house rules: key -> values, the default first
    pack = range(32)
    hand_word = "round"
    claim_words = {  # a claim refused (shared.claimant_side)
        "none": "no renege by the other side has been proven this round",
        "both": "both sides hold a proven renege: say who claims (claim SEAT)",
        "settled": "this round's renege penalty is already settled",
        "named": "{seat} has no proven renege by the other side to claim this round"}
    __slots__ = (
        "seats", "after_call", "pair_on", "double_on", "pagat", "two_point",
        "flip", "book", "phase", "to_act", "dealer", "hand_no", "round_open",
        "high", "active", "bid", "bidder", "target", "seventh", "_trump_card",
        "trump_set", "revealed", "trump_suit", "reveal_trick", "reveal_pos", "caller", "call",
        "trick", "trick_no", "tricks", "points", "winners", "played", "known", "given",
        "left", "plays", "next_known", "next_given", "multiplier", "doubler", "redoubler",
        "pair_seat", "score", "winner", "pre_score", "result", "_outcome")

    def __init__(self, seats=("P1", "P2", "P3", "P4"), options=None):
        options = dict(options or {})
        self._check_options(options)
        if len(seats) != 4:
            raise Refused("bad-seat", "Twenty-Nine has four seats")
        self.seats = tuple(seats)
        self.after_call = options.get("trick_trumps") == "after-call"
        self.pair_on = options.get("pair") == "on"
        self.double_on = options.get("double") == "on"
        self.pagat = options.get("scoring") == "pagat"
        self.two_point = int(options.get("two_point_bid", "20"))
        self.flip = Flip(4)
        self.book = RenegeBook(side_of=SIDE_OF)
        self.phase = FLIP
        self.to_act = None
        self.dealer = None
        self.hand_no = 0
        self.round_open = False
        self.score = [0, 0]
        self.winner = None
        self.pre_score = (0, 0)
        self.result = None
        self._outcome = None
        self.next_known = [0, 0, 0, 0]
        self.next_given = [False] * 4
        self._reset_auction()
        self._reset_round()

    def _reset_round(self):
        self.bid = None
        self.bidder = None
        self.target = None
        self.seventh = False
        self._trump_card = None
        self.trump_set = False
        self.revealed = False
        self.trump_suit = None
        self.reveal_trick = None
        self.reveal_pos = 0
        self.caller = None
        self.call = None  # (seat, 1-based trick) of the round's call for trump, kept all round
        self.trick = []
        self.trick_no = 0
        self.tricks = [0, 0, 0, 0]
        self.points = [0, 0]
        self.winners = []
        self.played = 0
        self.known = [0, 0, 0, 0]
        self.given = [False] * 4
        self.left = [8, 8, 8, 8]
        self.plays = [0, 0, 0, 0]
        self.multiplier = 1
        self.doubler = None
        self.redoubler = None
        self.pair_seat = None

    @staticmethod
    def name_side(seats, side):
        """A side in words, from the seats' names (the table's may be players' names)."""
        return f"{seats[side]}+{seats[side + 2]}"

    def side_name(self, side):
        return self.name_side(self.seats, side)

    def waiting_for(self):
        """What the table must do next: a :class:`Waiting` (plain words, and as data)."""
        p, seat = self.phase, self.to_act
        if p == FLIP:
            return Waiting("the table is flipping for the first dealer", None, ("flip",))
        if p in (AUCTION, ROUND_OVER):
            kinds = ("bid",) if self.high < HIGH_BID else ()
            if not (self.high == 0 and sum(self.active) == 1):
                kinds += ("pass",)
            return Waiting(f"{self.name(seat)} to {' or '.join(kinds) or 'bid or pass'}", seat, kinds)
        if p == TRUMP_CARD:
            kinds = ("trump",) if self.seventh else ("trump", "seventh")
            return Waiting(f"{self.name(self.bidder)} to set the trump card face down", self.bidder, kinds)
        if p == PLAY:
            return Waiting(f"{self.name(seat)} to play", seat, ("play",))
        return Waiting(self._over_words(), None, ())

    def legal_actions(self):
        """Every action the rules accept now (see :mod:`assistant.rules.game` for flips and hands)."""
        p, s = self.phase, self.to_act
        out = []
        if p == FLIP:
            out += self.flip.actions(range(32))
        elif p in (AUCTION, ROUND_OVER):
            out += [Action("bid", value=n) for n in range(max(self.high + 1, LOW_BID), HIGH_BID + 1)]
            if not (self.high == 0 and sum(self.active) == 1):
                out.append(Action("pass"))
        elif p == TRUMP_CARD:
            if not self.seventh:
                out.append(Action("seventh"))
            out += self._card_actions("trump", self._check_trump, s, range(32))
            out += self._doubles()
        elif p == PLAY:
            if not self.revealed and self.trick and not self.known[s] & SUIT_MASK[self.trick[0][1] >> 3]:
                out.append(Action("call"))
            out += self._card_actions("play", self._check_play, s, range(32))
            if self.can_finish():
                out.append(Action("finish"))
            out += self._doubles()
            if self.pair_on:
                if self._ok(self._check_pair, s):
                    out.append(Action("pair"))
                out += [Action("pair", seat=t) for t in range(4) if self._ok(self._check_pair, t)]
        return out + self._heard_actions()

    def _doubles(self):
        """The double (or redouble) each seat of the side that may make it now could make."""
        if not (self.double_on and self.multiplier < 4 and self._doubling_open()):
            return []
        kind, side = (("double", 1 - SIDE_OF[self.bidder]) if self.multiplier == 1
                      else ("redouble", SIDE_OF[self.bidder]))
        return [Action(kind)] + [Action(kind, seat=t) for t in range(4) if SIDE_OF[t] == side]

    @property
    def hand_open(self):
        """A round has begun (its first bid or pass) and its play has not ended."""
        return self.round_open

    def _actor(self, a):
        s = a.seat
        if s is None:
            return self.to_act
        s = self._seat(a)
        if s != self.to_act:
            raise Refused("not-your-turn", f"it is {self.name(self.to_act)}'s turn, not {self.name(s)}'s")
        return s

    @staticmethod
    def _one_card(a):
        cards = a.cards
        if len(cards) != 1 or type(cards[0]) is not int or not 0 <= cards[0] < 32:
            raise Refused("not-an-action", f"'{a.kind}' takes one card of the Twenty-Nine pack")
        return cards[0]

    def _flip_now(self):
        raise Refused("flip-over", "the flip is over: the first dealer was found (the deal then passes on)")

    def _dealer_found(self):
        self.phase = AUCTION
        self.to_act = (self.dealer + 1) % 4

    def _before_final_trick(self):
        return self.trick_no < 7 or not self.trick

    def state(self):
        """The replay JSON (scenario format) plus the phase and the auction."""
        names = self.seats
        if self.revealed:
            trump = SUITS[self.trump_suit]
        elif self.trump_set or self.seventh:  # the seventh card: set and hidden before it is dealt
            trump = "hidden"
        else:
            trump = None
        return {
            "game": "twenty-nine",
            "seats": list(names),
            "score": list(self.score),
            "winner": None if self.winner is None else [names[self.winner], names[self.winner + 2]],
            "dealer": None if self.dealer is None else names[self.dealer],
            "tricks": list(self.tricks),
            "points": list(self.points),
            "trump": trump,
            "reneges": self._reneges_state(),
            "phase": self.phase.value,
            "hand": self.hand_no,
            "to_act": None if self.to_act is None else names[self.to_act],
            "bid": self.bid,
            "bidder": None if self.bidder is None else names[self.bidder],
            "target": self.target,
            "double": self.multiplier,
            "pair": None if self.pair_seat is None else names[self.pair_seat],
            "result": self.result,
        }
