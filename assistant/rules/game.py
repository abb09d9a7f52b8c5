"""The one game interface: what both rules engines answer, documented in one place.

Everything above the rules (the table, the screen words, replay, the bots) asks these
questions and never "which game is this?":

``apply(action)``
    Apply one scenario action, or raise :class:`Refused` having changed nothing.
``legal_actions()``
    Every action the rules accept now, as scenario :class:`~assistant.rules.scenario.Action`
    values: an action is accepted if and only if it is listed (python-chess's
    ``legal_moves``). Two kinds carry several cards and are not listed card by card:
    a ``flip`` is listed one card at a time (a flip of several cards is accepted when
    each of its cards would be, in turn), and a ``hand`` line (every card dealt to a
    seat) is listed by seat only, as ``Action("hand", seat=s)`` with no cards: a hand
    line for that seat is possible now, and the engine checks the cards.
    The list follows everything the engine knows, hidden information included (a
    face-down trump card, a towers discard, scanned hands: such a card is missing from
    the plays). Show the table its kinds and its non-card choices (bids, suits, seats,
    accept or pass); never a list of its cards.
``waiting_for()``
    A :class:`Waiting`: plain words for what the table must do next, that also carry
    the same as data (who acts, which action kinds are awaited).
``phase``
    A :class:`Phase`, named from the rulebook; it is a string too, so ``state()``'s JSON
    keeps its words.
``game``, ``title``, ``players``, ``partnerships``, ``side_of``, ``OPTIONS``, ``has_auction``, ``has_for_two``
    Class attributes: the scenario's name of the game and its name for people, the number
    of seats, whether sides are partnerships, the side of each seat, the house rules
    (key -> values, the default first; empty when the game has none), whether the game has
    an auction of bids (then ``bid`` and ``bidder`` are read), whether it has for 2 (then
    ``for_two``).
``seats``, ``state()`` (the replay JSON), ``snapshot()`` (hashable, for comparisons),
``copy()`` (an independent engine in the same state).
``hand_open``
    A hand (towers) or round (Twenty-Nine) has begun and its play has not ended.
``outcome``
    How the last hand or round was scored: a :class:`HandResult` by its own play, or a
    :class:`Penalty` (a claim or an accusation, which replaces that result); None while a
    hand is open.
``match_end``
    A :class:`MatchEnd` once a player or side has won, else None.

Sides: towers has one player a side, so a side is a seat (0 or 1); Twenty-Nine's sides
are 0 (P1+P3) and 1 (P2+P4).

>>> from assistant.rules.towers import Towers
>>> from assistant.rules.scenario import Action
>>> from assistant.rules.cards import parse_card
>>> t = Towers()
>>> t.phase is Phase.FLIP, t.phase == "flip"
(True, True)
>>> t.apply(Action("flip", cards=(parse_card("9C"),)))  # no black jack: the flip goes on
>>> len(t.legal_actions())  # 23 cards left, each as "flip CARD" and "flip P2 CARD"
46
>>> try:
...     t.apply(Action("accept"))
... except Refused as e:
...     print(e.code, "/", e)
not-now / accepting the up-card is not possible now: the table is flipping for the first dealer of the tower
"""
from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class Action:
    """One game action, as a scenario line says it (scenario format: the ``scenario`` module reads
    and writes them). ``seat`` is a 0-based seat index, or None for 'whoever is to act'."""
    kind: str
    seat: int | None = None
    cards: tuple = ()
    value: int | None = None  # a bid, or a suit index for ``name``

    @property
    def card(self):
        return self.cards[0]


class Phase(StrEnum):
    """Where a match stands, by the rulebook's names; the value is the word in ``state()``."""
    FLIP = "flip"              # T1, N2: the black-jack flip for the dealer
    UP_CARD = "upcard"         # towers T2/T3: the dealer deals and turns the up-card
    ROUND_ONE = "trump1"       # towers T3: accept the up-card's suit or pass
    ROUND_TWO = "trump2"       # towers T3: name a suit (not the turned-down one) or pass
    AUCTION = "bidding"        # Twenty-Nine N3: bid or pass
    TRUMP_CARD = "trump"       # Twenty-Nine N4: the bidder sets the trump card or calls the seventh
    PLAY = "play"              # T7, N5: tricks
    ROUND_OVER = "end"         # Twenty-Nine: the round is scored, the next auction awaited
    MATCH_OVER = "over"        # T8, N9: a player or side has won


# Every refusal code, with what it means. Messages stay plain words for people and never
# name a hidden card; callers decide on the code, never on the words.
CODES = {
    "not-an-action": "the action is not one of this game's (or not a well-formed one)",
    "match-over": "the match is over: only a claim, an accusation or an undo is still heard (S2)",
    "not-now": "the action is not possible in this phase",
    "not-your-turn": "another seat is to act",
    "bad-seat": "no such seat, or the action needs one",
    "bad-option": "an unknown option or value, or options for a game that has none",
    "option-off": "the action belongs to a house rule that is not played here",
    "flip-over": "the flip already found the dealer",
    "flip-order": "the flip goes on with another seat, or no card is turned after a black jack",
    "not-in-pack": "the card is not in this game's pack",
    "card-seen": "the card was already turned, played or listed",
    "card-elsewhere": "the card is known to be in another hand, or out of play (never named when hidden)",
    "not-held": "the seat's known hand does not hold the card",
    "hand-given": "the seat's hand line was already given, or comes too late",
    "hand-size": "a hand line with the wrong number of cards",
    "must-follow": "the seat surely holds the led suit and must follow (T7, N5: the correction)",
    "must-trump": "a seat that called for trump holds trump and must play one (N5)",
    "called": "a seat that called for trump declared it cannot follow (N5, N11)",
    "cannot-call": "a call for trump is not allowed: a leader, a seat that can follow, trump revealed",
    "dealer-must-name": "towers T3: the dealer must name trump in round two",
    "dealer-must-bid": "Twenty-Nine N3: the first three passed, the dealer must bid",
    "turned-down": "towers T3: the turned-down suit cannot be named",
    "bid-range": "a bid outside 16..29",
    "bid-too-low": "a bid not higher than the highest so far",
    "already": "already done once (for 2, the seventh card, a double, the pair)",
    "too-late": "only before the first lead (for 2, double, redouble)",
    "wrong-side": "the action belongs to the other side",
    "needs-trick": "the pair needs a trick won by the side since trump was revealed",
    "contract-open": "N10: the round may be finished only when the contract is made or out of reach",
    "no-renege": "no proven, unsettled renege by the other side to claim in this hand",
    "settled": "this hand's renege penalty is already settled",
    "say-claimant": "both sides hold a proven renege: the claim must name the claimant",
    "no-hand": "no hand has begun yet",
    "nothing-to-undo": "there is no action to take back",
}


class Refused(Exception):
    """An action the rules do not allow now: ``code`` (one of :data:`CODES`) and plain ``words``.

    ``str()`` is the words. Engines check everything before they change anything, so a
    refused action leaves the state exactly as it was.

    >>> e = Refused("must-follow", "P2 must follow hearts ♥")
    >>> e.code, str(e)
    ('must-follow', 'P2 must follow hearts ♥')
    """

    def __init__(self, code, words):
        assert code in CODES, code
        super().__init__(words)
        self.code = code
        self.words = words


def not_held_words(who):
    """The refusal's words for a card ``who`` may not play because it is not theirs: not in their
    known hand, known to be in another, or face down out of play (the towers discard, the hidden
    Twenty-Nine trump card). One wording for all, naming no card, so that a refusal never tells
    which card lies hidden where.

    >>> not_held_words("Ann")
    'Ann does not hold that card'
    """
    return f"{who} does not hold that card"


class Waiting(str):
    """What the table must do next: plain words (it is the string) and the same as data.

    ``seat``: the seat that must act, or None when the table acts (a flip, a deal, an
    up-card) or nobody (the match is over); ``kinds``: the action kinds awaited.

    >>> w = Waiting("P2 to play", seat=1, kinds=("play",))
    >>> w, w.seat, w.kinds, "Now: " + w
    ('P2 to play', 1, ('play',), 'Now: P2 to play')
    """

    def __new__(cls, words, seat=None, kinds=()):
        self = super().__new__(cls, words)
        self.seat = seat
        self.kinds = tuple(kinds)
        return self


@dataclass(frozen=True, slots=True)
class HandResult:
    """A hand (towers) or round (Twenty-Nine) scored by its own play.

    ``what``: towers "sweep", "for-2 sweep", "for-2 zero", "for-2 short" (a tower won),
    "majority" or "minority" (the tower goes on); Twenty-Nine "made" or "missed".
    ``how``: "played out" or, Twenty-Nine N10, "finished". ``side`` scored ``value``
    (towers, games points); None when nobody scored (the tower goes on). ``taken``: the
    bidder's tricks (towers) or the bidding side's card points (Twenty-Nine).
    """
    hand: int
    bidder: int
    what: str
    how: str
    side: int | None
    value: int
    taken: int


@dataclass(frozen=True, slots=True)
class Penalty:
    """A renege penalty (T9, N11): ``side`` scores ``value`` for a ``why`` of "claim",
    "accusation proven" or "false accusation"; ``replaces`` is True when the hand's own
    result had been scored and this takes its place."""
    hand: int
    side: int
    why: str
    value: int
    replaces: bool


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """The match is won: ``winner`` is the side (towers: the seat), ``score`` the final score."""
    winner: int
    score: tuple


class Game:
    """What both engines share of the interface: the typed results read from their fields
    (the rules both engines share are :class:`assistant.rules.shared.Rules`).

    An engine keeps ``_outcome`` (None, or the result's class then its fields: built only
    when asked, so that scoring a hand costs no object), ``winner`` and ``score``, and
    answers ``phase`` and ``waiting_for()``.
    """
    __slots__ = ()

    @property
    def outcome(self):
        """How the last hand was scored: a HandResult, a Penalty, or None."""
        o = self._outcome
        return None if o is None else o[0](*o[1:])

    @property
    def match_end(self):
        """A MatchEnd once a player or side has won, else None."""
        return None if self.winner is None else MatchEnd(self.winner, tuple(self.score))

    def _expect(self, *phases, what):
        if self.phase not in phases:
            raise Refused("not-now", f"{what} is not possible now: {self.waiting_for()}")
