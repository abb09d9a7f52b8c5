"""The Twenty-Nine rules engine: pure, seed 001 with rulings N1–N11 and their options.

Four seats in play order, partnerships P1+P3 (side 0) and P2+P4 (side 1).
``TwentyNine.apply`` takes scenario actions and either changes the state or
raises :class:`Refused` having changed nothing (every check comes first).

A set of cards is an int bitmask (bit ``c`` for card ``c``), so hands, the
played cards and "can this seat follow" are a few integer operations.

What the engine knows of a hand is ``known[seat]``: cards known to be in the
seat's playable hand and not yet played (from a ``hand`` line, a declared pair,
or the trump card that joined the bidder's hand). When the known cards are as
many as the cards the seat has left, the hand is fully known: a card outside
it is refused. A seat that can follow by what is known must follow (refused at
once, the T9 correction); otherwise a play that does not follow is a *failure*
in the :class:`RenegeBook`, proven if the seat later shows that suit.

Hidden information: while trump is hidden no message, exception or ``state()``
names the face-down card or its suit.

It implements the game interface of :mod:`assistant.rules.game` (``legal_actions()``,
``waiting_for()``, ``outcome``, ``match_end``, ``copy()``, coded refusals). A play
is checked (``_check_play``, which ``legal_actions`` asks too), recorded
(``_record_play``), then the trick is ended (``_end_trick``).

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
in the current trick), ``trick`` (list of (seat, card)), ``trick_no`` (tricks
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

>>> from assistant.rules.scenario import Action
>>> from assistant.rules.cards import parse_card
>>> t = TwentyNine()
>>> t.apply(Action("flip", cards=(parse_card("JS"),)))  # N2: P1 deals, P2 speaks first
>>> t.apply(Action("pass")); t.apply(Action("pass")); t.apply(Action("pass"))
>>> t.apply(Action("pass"))
Traceback (most recent call last):
  ...
assistant.rules.game.Refused: the first three passed: P1 deals and must bid at least 16
"""
from assistant.rules.cards import KING, QUEEN, SUIT_SYMBOLS, SUITS, card, card_name
from assistant.rules.renege import RenegeBook
from assistant.rules.game import Action, HandResult, Phase, Refused, Waiting
from assistant.rules.shared import Flip, Rules
# the phases as module names: a name is faster to read than an Enum attribute
FLIP, AUCTION, TRUMP_CARD, PLAY, ROUND_OVER, MATCH_OVER = (
    Phase.FLIP, Phase.AUCTION, Phase.TRUMP_CARD, Phase.PLAY, Phase.ROUND_OVER, Phase.MATCH_OVER)

POINTS = (1, 0, 0, 3, 1, 2, 0, 0)   # N8, by rank index A K Q J 10 9 8 7
POWER = (5, 3, 2, 7, 4, 6, 1, 0)    # N6: J 9 A 10 K Q 8 7
CARD_POINTS = tuple(POINTS[c & 7] for c in range(32))
CARD_POWER = tuple(POWER[c & 7] for c in range(32))
SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))
BIT = tuple(1 << c for c in range(32))
LOW_BID, HIGH_BID, TOTAL, GAME = 16, 29, 29, 6
SIDE_OF = (0, 1, 0, 1)
# The house rules (rulings, options): key -> values, the default first. The scenario format's
# ``option`` lines and the config's [game] keys are read against this table.
OPTIONS = {
    "trick_trumps": ("whole", "after-call"),
    "pair": ("off", "on"),
    "double": ("off", "on"),
    "scoring": ("seed", "pagat"),
    "two_point_bid": ("20", "21"),
}


def suit_words(suit):
    return SUIT_SYMBOLS[suit]


def cards_of(mask):
    """The cards of a bitmask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class TwentyNine(Rules):
    """One match of Twenty-Nine; see the module docstring for what it exposes."""

    game, title = "twenty-nine", "Twenty-Nine"  # the scenario's name, the name for people
    players = 4
    partnerships = True   # P1+P3 (side 0) and P2+P4 (side 1)
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
        "trump_set", "revealed", "trump_suit", "reveal_trick", "reveal_pos", "caller",
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

    def _reset_auction(self):
        self.high = 0
        self.active = [True] * 4

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

    # -- helpers -----------------------------------------------------------------------

    def side_name(self, side):
        return f"{self.seats[side]}+{self.seats[side + 2]}"

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

    def waiting_for(self):
        """What the table must do next: a :class:`Waiting` (plain words, and as data)."""
        p, seat = self.phase, self.to_act
        if p == FLIP:
            return Waiting("the table is flipping for the first dealer", None, ("flip",))
        if p in (AUCTION, ROUND_OVER):
            kinds = ("bid",) if self.high < HIGH_BID else ()
            if not (self.high == 0 and sum(self.active) == 1):
                kinds += ("pass",)
            return Waiting(f"{self.name(seat)} to bid or pass", seat, kinds)
        if p == TRUMP_CARD:
            kinds = ("trump",) if self.seventh else ("trump", "seventh")
            return Waiting(f"{self.name(self.bidder)} to set the trump card face down", self.bidder, kinds)
        if p == PLAY:
            return Waiting(f"{self.name(seat)} to play", seat, ("play",))
        return Waiting(f"the match is over: {self.side_name(self.winner)} won", None, ())

    # -- what the rules accept now ----------------------------------------------------

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
            out += [Action("trump", cards=(c,)) for c in range(32) if self._ok(self._check_trump, s, c)]
        elif p == PLAY:
            if not self.revealed and self.trick and not self.known[s] & SUIT_MASK[self.trick[0][1] >> 3]:
                out.append(Action("call"))
            out += [Action("play", cards=(c,)) for c in range(32) if self._ok(self._check_play, s, c)]
            if self.can_finish():
                out.append(Action("finish"))
            if self.double_on and not self.trick_no and not self.trick and self.multiplier < 4:
                kind, side = (("double", 1 - SIDE_OF[self.bidder]) if self.multiplier == 1
                              else ("redouble", SIDE_OF[self.bidder]))
                out += [Action(kind)] + [Action(kind, seat=t) for t in range(4) if SIDE_OF[t] == side]
            if self.pair_on:
                if self._ok(self._check_pair, s):
                    out.append(Action("pair"))
                out += [Action("pair", seat=t) for t in range(4) if self._ok(self._check_pair, t)]
        return out + self._heard_actions()

    def _hand_line_open(self, seat):
        """Whether a hand line for ``seat`` may be given now (its cards are checked apart)."""
        if not self.round_open:
            return not self.next_given[seat]
        return not self.given[seat] and not self.plays[seat]

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

    def _elsewhere(self, seat, bit):
        """Whether a card is known to be in another seat's hand."""
        known = self.known
        if not (known[0] | known[1] | known[2] | known[3]) & bit:
            return False  # known nowhere: the common case, without a loop
        return any(known[t] & bit for t in range(4) if t != seat)

    def _full(self, seat):
        return self.known[seat].bit_count() >= self.left[seat]

    # -- the action interface ----------------------------------------------------------

    def _flip_now(self):
        raise Refused("flip-over", "the flip is over: the first dealer was found (the deal then passes on)")

    def _dealer_found(self):
        self.phase = AUCTION
        self.to_act = (self.dealer + 1) % 4

    # -- N3 the auction ----------------------------------------------------------------

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

    # -- N4 the trump card -------------------------------------------------------------

    def _do_seventh(self, a):
        self._expect(TRUMP_CARD, what="calling the seventh card")
        self._actor(a)
        if self.seventh:
            raise Refused("already", f"{self.name(self.bidder)} already called the seventh card")
        self.seventh = True

    def _do_trump(self, a):
        self._expect(TRUMP_CARD, what="setting the trump card")
        s = self._actor(a)
        c = self._one_card(a)
        self._check_trump(s, c)
        bit = BIT[c]
        self._trump_card = c
        self.trump_set = True
        self.known[s] &= ~bit
        self.left[s] = 7
        self.phase = PLAY
        self.to_act = (self.dealer + 1) % 4

    def _check_trump(self, s, c):
        bit = BIT[c]
        if self.given[s]:
            if not self.known[s] & bit:
                raise Refused("not-held", f"that card is not in {self.name(s)}'s hand")
        elif self._elsewhere(s, bit):
            raise Refused("card-elsewhere", "that card is known to be in another hand")

    # -- hands -------------------------------------------------------------------------

    def _do_hand(self, a):
        if self.phase is FLIP:
            raise Refused("no-hand", "no hand is dealt yet: finish the flip first")
        s = self._seat(a, required=True)
        cards = a.cards
        if len(cards) != 8:
            raise Refused("hand-size", f"{self.name(s)} was dealt 8 cards, not {len(cards)}")
        mask = 0
        for c in cards:
            if type(c) is not int or not 0 <= c < 32:
                raise Refused("not-in-pack", f"{c!r} is not a card of the Twenty-Nine pack")
            if mask & BIT[c]:
                raise Refused("card-seen", f"{card_name(c)} is listed twice")
            mask |= BIT[c]
        if not self.round_open:  # between rounds: the hand of the next round
            if self.next_given[s]:
                raise Refused("hand-given", f"{self.name(s)}'s hand is already given for the next round")
            for t in range(4):
                if t != s and self.next_known[t] & mask:
                    c = cards_of(self.next_known[t] & mask)[0]
                    raise Refused("card-elsewhere", f"{card_name(c)} cannot be in {self.name(s)}'s hand: it was dealt to another player")
            self.next_known[s] = mask
            self.next_given[s] = True
            return
        if self.given[s]:
            raise Refused("hand-given", f"{self.name(s)}'s hand is already given this round")
        if self.plays[s]:
            raise Refused("hand-given", f"{self.name(s)}'s hand must be given before their first play of the round")
        tc = self._trump_card
        if tc is not None and s != self.bidder and mask & BIT[tc]:
            if not self.revealed:
                raise Refused("card-elsewhere", f"that hand cannot be {self.name(s)}'s: one of its cards is out of play this round")
            raise Refused("card-elsewhere", f"{card_name(tc)} cannot be in {self.name(s)}'s hand: it is the trump card")
        for c in cards:
            if self.played & BIT[c]:
                raise Refused("card-seen", f"{card_name(c)} cannot be in {self.name(s)}'s hand: it was already played")
            if self._elsewhere(s, BIT[c]):
                raise Refused("card-elsewhere", f"{card_name(c)} cannot be in {self.name(s)}'s hand: it was dealt to another player")
        if s == self.bidder and tc is not None and not mask & BIT[tc]:
            raise Refused("not-held", f"{self.name(s)}'s hand must include the face-down trump card")
        if self.known[s] & ~mask:
            raise Refused("not-held", f"that hand leaves out a card {self.name(s)} is known to hold")
        if s == self.bidder and tc is not None and not self.revealed:
            mask &= ~BIT[tc]
        self.known[s] = mask
        self.given[s] = True

    # -- N5 play -----------------------------------------------------------------------

    def _do_call(self, a):
        self._expect(PLAY, what="a call for trump")
        s = self._actor(a)
        if self.revealed:
            raise Refused("cannot-call", "trump is already revealed")
        if not self.trick:
            raise Refused("cannot-call", f"{self.name(s)} leads: only a player who cannot follow may call for trump")
        led = self.trick[0][1] >> 3
        if self.known[s] & SUIT_MASK[led]:
            raise Refused("cannot-call", f"{self.name(s)} can follow {suit_words(led)}, so may not call for trump")
        self.caller = s
        self._reveal(len(self.trick))

    def _reveal(self, pos):
        """Trump turns face up; the card joins the bidder's hand (N4, N5, N7)."""
        self.revealed = True
        self.trump_suit = self._trump_card >> 3
        self.reveal_trick = self.trick_no
        self.reveal_pos = pos
        self.known[self.bidder] |= BIT[self._trump_card]
        self.left[self.bidder] += 1

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
            raise Refused("card-seen", f"{card_name(c)} was already played this round")
        if c == self._trump_card and not self.revealed:
            raise Refused("card-elsewhere", "that card is out of play this round")
        known = self.known[s]
        who = self.name(s)
        if not known & bit:
            if self._elsewhere(s, bit):
                raise Refused("card-elsewhere", f"{card_name(c)} cannot be {who}'s: it is known to be in another hand")
            if known.bit_count() >= self.left[s]:
                raise Refused("not-held", f"{who} does not hold {card_name(c)}")
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
                              f"{card_name(c)} cannot be played now")
            t = self.trump_suit
            if suit != t:
                if known & SUIT_MASK[t]:
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
        if not full:
            if fail_led is not None:
                excluded = self._trump_card if s == self.bidder and not self.revealed else None
                book.failed(s, fail_led, trick_no, excluded)
            if fail_trump is not None:
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
            self._score_round("played out")
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

    # -- N9 N10 scoring ----------------------------------------------------------------

    def _do_finish(self, a):
        self._expect(PLAY, what="finishing the round")
        if not self.can_finish():
            bs = SIDE_OF[self.bidder]
            raise Refused("contract-open", f"the contract is still open: {self.side_name(bs)} has {self.points[bs]} "
                          f"of {self.target} and {self.side_name(1 - bs)} has {self.points[1 - bs]}")
        self._score_round("finished")

    def _award(self, side, value):
        """Give ``side`` the value; under scoring=pagat only the bidding side's score moves."""
        if self.pagat:
            bs = SIDE_OF[self.bidder]
            self.score[bs] += value if side == bs else -value
        else:
            self.score[side] += value

    def _score_round(self, how):
        """The round's play is over (N9): score it, then a false accusation replaces it (N11)."""
        bs = SIDE_OF[self.bidder]
        value = self.round_value()
        self.pre_score = tuple(self.score)
        made = self.points[bs] >= self.target
        self._award(bs if made else 1 - bs, value)
        self.result = ("made" if made else "missed") + f" ({how})"
        self._outcome = (HandResult, self.hand_no, self.bidder, "made" if made else "missed", how,
                                  bs if made else 1 - bs, value, self.points[bs])
        acc = self.book.false_accusation()
        if acc is not None:
            self.score = list(self.pre_score)
            self._award(SIDE_OF[acc.accused], value)
            self.result = "false accusation"
            self._settle(SIDE_OF[acc.accused], "false accusation", value, True)
        self._close_round()

    def _penalty(self, side, how, replaces=False):
        """A renege penalty (N11): the aggrieved side scores the round value. During the round it
        ends the round now; once the round's own result was scored (``replaces``), it takes that
        result's place (N11, T9)."""
        value = self.round_value()
        if replaces:
            self.score = list(self.pre_score)
        else:
            self.pre_score = tuple(self.score)
        self._award(side, value)
        self.result = how
        self._settle(side, how, value, replaces)
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

    # -- N11 reneges -------------------------------------------------------------------

    # claims and accusations: shared.Rules

    def _before_final_trick(self):
        return self.trick_no < 7 or not self.trick

    # -- options -----------------------------------------------------------------------

    def _before_first_lead(self, what):
        if self.phase is not PLAY or self.trick_no or self.trick:
            raise Refused("too-late", f"{what} only after trump is set and before the first lead")

    def _do_double(self, a):
        if not self.double_on:
            raise Refused("option-off", "doubling is not played here (option double=on)")
        self._before_first_lead("a player of the other side may double")
        if self.multiplier > 1:
            raise Refused("already", "the round is already doubled")
        s = self._side_seat(a, 1 - SIDE_OF[self.bidder], "double")
        self.multiplier = 2
        self.doubler = s

    def _do_redouble(self, a):
        if not self.double_on:
            raise Refused("option-off", "doubling is not played here (option double=on)")
        self._before_first_lead("the bidding side may redouble")
        if self.multiplier == 1:
            raise Refused("not-now", "only a doubled round can be redoubled")
        if self.multiplier == 4:
            raise Refused("already", "the round is already redoubled")
        s = self._side_seat(a, SIDE_OF[self.bidder], "redouble")
        self.multiplier = 4
        self.redoubler = s

    def _side_seat(self, a, side, what):
        s = self._seat(a)
        if s is None:
            s = self.to_act
            while SIDE_OF[s] != side:
                s = (s + 1) % 4
        elif SIDE_OF[s] != side:
            who = "the bidding side" if what == "redouble" else "the side that did not bid"
            raise Refused("wrong-side", f"only a player of {who} may {what}")
        return s

    def _do_pair(self, a):
        if not self.pair_on:
            raise Refused("option-off", "the pair is not played here (option pair=on)")
        s = self._seat(a)
        if s is None:
            s = self.to_act
        self._check_pair(s)
        side = SIDE_OF[s]
        t = self.trump_suit
        kq = BIT[card(t, KING)] | BIT[card(t, QUEEN)]
        self.known[s] |= kq
        self.pair_seat = s
        step = -4 if side == SIDE_OF[self.bidder] else 4
        self.target = min(HIGH_BID, max(LOW_BID, self.target + step))

    def _check_pair(self, s):
        if not self.pair_on:
            raise Refused("option-off", "the pair is not played here (option pair=on)")
        self._expect(PLAY, what="declaring the pair")
        if not self.revealed:
            raise Refused("not-now", "the pair is declared only once trump is revealed")
        if self.pair_seat is not None:
            raise Refused("already", f"{self.name(self.pair_seat)} already declared the pair")
        side = SIDE_OF[s]
        if not any(SIDE_OF[w] == side for w in self.winners[self.reveal_trick:]):
            raise Refused("needs-trick", f"{self.side_name(side)} must win a trick after trump is revealed "
                          "before declaring the pair")
        t = self.trump_suit
        kq = BIT[card(t, KING)] | BIT[card(t, QUEEN)]
        for c in (card(t, KING), card(t, QUEEN)):
            if self.played & BIT[c]:
                raise Refused("card-seen", f"{card_name(c)} was already played this round")
            if not self.known[s] & BIT[c]:
                if self._elsewhere(s, BIT[c]):
                    raise Refused("card-elsewhere", f"{card_name(c)} is known to be in another hand")
                if self._full(s):
                    raise Refused("not-held", f"{self.name(s)} does not hold {card_name(c)}")
        if (self.known[s] | kq).bit_count() > self.left[s]:
            raise Refused("not-held", f"{self.name(s)} cannot hold both: too few cards are left")

    # -- output ------------------------------------------------------------------------

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
            "reneges": [{"seat": names[r.seat], "hand": r.hand, "trick": r.trick}
                        for r in self.book.proven],
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
