"""The towers engine: the state of one match, what it accepts now, what it shows.

It implements the game interface of :mod:`assistant.rules.game`: ``apply`` takes scenario
actions and either changes the state or raises :class:`Refused` (with a code) having changed
nothing; ``legal_actions()``, ``waiting_for()``, ``outcome``, ``match_end``, ``state()``,
``copy()``. What both games share is :class:`assistant.rules.shared.Rules`; the rules of each
part of the rulebook are in the modules this class is made of (see the package
:mod:`assistant.rules.towers`). Each action is a check then a record; ``legal_actions`` asks
the same checks.

Public attributes the table and the bots read:
``phase`` (a :class:`Phase`: FLIP, UP_CARD, ROUND_ONE, ROUND_TWO, PLAY, MATCH_OVER), ``to_act``,
``dealer``, ``hand_size``, ``hand_no``, ``up_card``, ``turned_down``, ``trump``,
``bidder``, ``for_two``, ``picked_up``, ``discard_open``, ``trick`` (list of
(seat, card)), ``tricks``, ``score``, ``winner``, ``hand_over``, ``book``
(the :class:`RenegeBook`), ``known`` (per seat: set of cards still held, or None);
``holds(seat, suit)`` says whether the engine is sure a seat holds a suit (sure holdings).
"""
from assistant.rules.cards import SUITS, TOWERS_PACK
from assistant.rules.game import Action, Waiting
from assistant.rules.renege import RenegeBook
from assistant.rules.shared import Flip, Rules
from assistant.rules.towers.hands import Hands
from assistant.rules.towers.making_trump import MakingTrump
from assistant.rules.towers.pack import (FIRST_HAND, FLIP, OPTIONS, PACK, PLAY, ROUND_ONE,
                                         ROUND_TWO, UP_CARD)
from assistant.rules.towers.scoring import Scoring
from assistant.rules.towers.tricks import Tricks


class Towers(MakingTrump, Hands, Tricks, Scoring, Rules):
    """The state of one towers match; see the module docstring for what it exposes. Its rules
    are in the modules of this package, one part of the rulebook each."""

    game, title = "towers", "Towers"  # the scenario's name, the name for people
    players = 2
    partnerships = False  # one player a side: a side is a seat
    has_auction, has_for_two = False, True  # trump is made by accepting or naming (T3); for 2 (T4)
    side_of = (0, 1)
    OPTIONS = OPTIONS     # no house rules
    pack = TOWERS_PACK
    hand_word = "hand"
    claim_words = {  # a claim refused (shared.claimant_side)
        "none": "there is no proven renege to claim in this hand",
        "both": "both players hold a proven renege: say who claims (claim SEAT)",
        "named": "{seat} has no unpenalised proven renege by the opponent to claim in this hand"}
    __slots__ = (
        "seats", "score", "winner", "hand_no", "book", "phase", "flip", "dealer", "hand_size",
        "to_act", "known", "up_card", "turned_down", "trump", "bidder", "for_two", "picked_up",
        "discard_open", "discard", "uncertain", "passes", "trick", "tricks", "done", "played",
        "hand_over", "last_result", "_outcome")

    def __init__(self, seats=("P1", "P2"), options=None):
        self._check_options(dict(options or {}))
        self.seats = tuple(seats)
        self.score = [0, 0]
        self.winner = None
        self.hand_no = 0
        self.book = RenegeBook(side_of=(0, 1))
        self._new_tower()
        self._reset_hand_figures()
        self.hand_over = True
        self.last_result = None
        self._outcome = None  # how the last hand was scored: HandResult, Penalty or None

    def _new_tower(self):
        self.phase = FLIP
        self.flip = Flip(2)
        self.dealer = None
        self.hand_size = FIRST_HAND
        self.to_act = None
        self.known = [None, None]

    def _reset_hand_figures(self):
        self.up_card = None
        self.turned_down = None
        self.trump = None
        self.bidder = None
        self.for_two = False
        self.picked_up = False
        self.discard_open = False
        self.discard = None
        self.uncertain = False  # the dealer's known hand still holds an unrecorded discard
        self.passes = 0
        self.trick = []
        self.tricks = [0, 0]
        self.done = 0           # tricks completed this hand
        self.played = set()

    @staticmethod
    def name_side(seats, side):
        """A side in words, from the seats' names (the table's may be players' names)."""
        return seats[side]  # one player a side

    def side_name(self, side):
        return self.name_side(self.seats, side)

    def waiting_for(self):
        """What the table must do next: a :class:`Waiting` (plain words, and as data)."""
        p, seat = self.phase, self.to_act
        if p == FLIP:
            return Waiting("the table is flipping for the first dealer of the tower", None, ("flip",))
        if p == UP_CARD:
            return Waiting(f"{self.name(self.dealer)} deals {self.hand_size} each and turns the up-card",
                           None, ("upcard",))
        if p == ROUND_ONE:
            return Waiting(f"{self.name(seat)} accepts or passes the up-card", seat, ("accept", "pass"))
        if p == ROUND_TWO:
            if seat == self.dealer:
                return Waiting(f"{self.name(seat)} names trump", seat, ("name",))
            return Waiting(f"{self.name(seat)} names trump or passes", seat, ("name", "pass"))
        if p == PLAY:
            return Waiting(f"{self.name(seat)} to play", seat, ("play",))
        return Waiting(self._over_words(), None, ())

    def legal_actions(self):
        """Every action the rules accept now (see :mod:`assistant.rules.game` for flips and hands)."""
        p = self.phase
        out = []
        if p == FLIP:
            out += self.flip.actions(PACK)
        elif p == UP_CARD:
            out += [Action("upcard", cards=(c,)) for c in PACK
                    if not any(h is not None and c in h for h in self.known)]
        elif p == ROUND_ONE:
            out += [Action("accept"), Action("pass")]
        elif p == ROUND_TWO:
            if self.to_act != self.dealer:
                out.append(Action("pass"))
            out += [Action("name", value=s) for s in range(4) if s != self.turned_down]
        elif p == PLAY:
            if self.discard_open:
                out += [Action("discard", cards=(c,)) for c in PACK if self._ok(self._check_discard, c)]
            if not self.done and not self.trick and not self.for_two:
                out.append(Action("for2"))
            out += self._card_actions("play", self._check_play, self.to_act, PACK)
        return out + self._heard_actions()

    @property
    def hand_open(self):
        """A hand has begun (its up-card is turned) and its play has not ended."""
        return not self.hand_over

    def _flip_now(self):
        self._expect(FLIP, what="a flip")

    def _dealer_found(self):
        self.phase = UP_CARD

    def state(self):
        names = self.seats
        return {
            "game": "towers",
            "seats": list(names),
            "score": list(self.score),
            "winner": None if self.winner is None else [names[self.winner]],
            "dealer": None if self.dealer is None else names[self.dealer],
            "hand_size": self.hand_size,
            "tricks": list(self.tricks),
            "trump": None if self.trump is None else SUITS[self.trump],
            "reneges": self._reneges_state(),
            "phase": self.phase.value,
            "to_act": None if self.to_act is None else names[self.to_act],
            "bidder": None if self.bidder is None else names[self.bidder],
            "for2": self.for_two,
            "hand": self.hand_no,
        }
