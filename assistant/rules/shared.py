"""What both rules engines share, written once: the engine base :class:`Rules` (dispatching
actions, the rule after the match ends (S2), the black-jack flip (T1, N2), claims and accusations
(T9, N11), a penalty settling a hand, snapshots and copies), and the pieces it uses: :class:`Flip`,
choosing the claimant of a renege penalty, settling an accusation. Each engine keeps only what
differs. The refusal is :class:`assistant.rules.game.Refused`, imported here for the modules that
import it from here."""
from assistant.rules.cards import BLACK_JACKS, card_label, card_name
from assistant.rules.game import Action, Game, Penalty, Phase, Refused
from assistant.rules.renege import RenegeBook

FLIP, MATCH_OVER = Phase.FLIP, Phase.MATCH_OVER


class Flip:
    """Cards turned face up one per player, alternating, until the first black jack.

    >>> from assistant.rules.cards import parse_card
    >>> f = Flip(2)
    >>> f.turn(None, [parse_card(c) for c in ("JH", "KS", "QD")])
    >>> f.turn(None, [parse_card("JC")]); f.dealer
    1
    """

    __slots__ = ("players", "start", "count", "seen", "dealer", "last")

    def __init__(self, players):
        self.players = players
        self.start = None
        self.count = 0
        self.seen = set()
        self.dealer = None
        self.last = {}  # seat -> the last card turned to that seat (public: for the screen)

    def check(self, seat, cards, pack, seats):
        """Refuse a flip line that does not go on the flip (``seats``: the seats' names)."""
        if not cards:
            raise Refused("not-an-action", "'flip' takes the cards turned, like 'flip P1 9H KS JC'")
        if self.dealer is not None:
            raise Refused("flip-over", "the flip is over: the dealer is already found")
        if seat is not None and self.start is not None:
            expected = (self.start + self.count) % self.players
            if seat != expected:
                raise Refused("flip-order", f"the flip goes on with {seats[expected]}, not {seats[seat]}")
        seen, turned = self.seen, set()
        for i, c in enumerate(cards):
            if type(c) is not int or c not in pack:
                if type(c) is not int or not 0 <= c < 32:
                    raise Refused("not-an-action", "'flip' takes the cards turned, like 'flip P1 9H KS JC'")
                raise Refused("not-in-pack", f"{card_label(c)} is not in this game's pack")
            if c in seen or c in turned:
                raise Refused("card-seen", f"{card_label(c)} was already turned in this flip")
            turned.add(c)
            if c in BLACK_JACKS and i != len(cards) - 1:
                raise Refused("flip-order", f"the flip ended at {card_label(c)}: no cards are turned after the first black jack")

    def turn(self, seat, cards):
        if self.start is None:
            self.start = seat if seat is not None else 0
        for c in cards:
            self.seen.add(c)
            self.last[(self.start + self.count) % self.players] = c
            if c in BLACK_JACKS:
                self.dealer = (self.start + self.count) % self.players
            self.count += 1

    def actions(self, pack):
        """The flips :meth:`check` accepts, one card at a time, with and without a seat."""
        seats = [None] + (list(range(self.players)) if self.start is None
                          else [(self.start + self.count) % self.players])
        return [Action("flip", seat=s, cards=(c,)) for s in seats for c in pack if c not in self.seen]

    def copy(self):
        new = Flip(self.players)
        new.start, new.count, new.dealer = self.start, self.count, self.dealer
        new.seen, new.last = set(self.seen), dict(self.last)
        return new

    def snapshot(self):
        return (self.start, self.count, frozenset(self.seen), self.dealer)


HEARD_AFTER_MATCH = ("claim", "accuse")  # after the match ends, only these are still heard (S2)


def flipped(deck):
    """The cards a flip turns from ``deck``, in order: up to the first black jack, which ends it
    (T1, N2). The bots flip with it from a shuffled pack.

    >>> from assistant.rules.cards import parse_card
    >>> [card_name(c) for c in flipped([parse_card(c) for c in ("9H", "KS", "JC", "QD")])]
    ['9H', 'KS', 'JC']
    """
    end = next((i for i, c in enumerate(deck) if c in BLACK_JACKS), len(deck) - 1)
    return tuple(deck[:end + 1])


def claimant_side(book, named_side, over, words, named=None):
    """T9, N11: the side that takes a claim's penalty, or None for a claim heard after the match
    without effect (S2). ``named_side``: the side of the seat the claim names,
    or None; ``words``: the engine's refusals, keys ``none``, ``named`` (``{seat}`` stands for
    ``named``, the seat's name), ``both`` and, where the engine says it apart, ``settled``.

    >>> from assistant.rules.renege import RenegeBook
    >>> book = RenegeBook(side_of=(0, 1)); book.start_hand(1)
    >>> book.failed(seat=1, suit=2, trick=1); _ = book.shown(seat=1, card=17, suit=2, trick=2)
    >>> claimant_side(book, None, False, {}), claimant_side(book, 1, True, {})
    (0, None)
    """
    sides = [s for s in (0, 1) if book.claimable(s)]
    if over and (not sides or (named_side is not None and named_side not in sides)):
        return None
    if named_side is not None and named_side in sides:
        return named_side
    if named_side is None and len(sides) == 1:
        return sides[0]
    if named_side is None and sides:
        raise Refused("say-claimant", words["both"])
    if book.settled and "settled" in words:
        raise Refused("settled", words["settled"])
    if named_side is None:
        raise Refused("no-renege", words["none"])
    raise Refused("no-renege", words["named"].format(seat=named))


def claim_actions(book, side_of, over):
    """The claims :func:`claimant_side` accepts, as actions, with and without a seat."""
    sides = [s for s in (0, 1) if book.claimable(s)]
    seats = range(len(side_of))
    if over:  # heard, with or without effect
        return ([Action("claim")] if len(sides) < 2 else []) + [Action("claim", seat=t) for t in seats]
    return (([Action("claim")] if len(sides) == 1 else [])
            + [Action("claim", seat=t) for t in seats if side_of[t] in sides])


def settle_accusation(book, accused, accuser_side, hand_open, before_final):
    """T9, N11: what an accusation does. "proven": a renege by the accused in this hand is proven
    and unsettled, the penalty is due now; "pending": recorded, settled as the hand goes on;
    None: no effect (the hand is over, and no renege of the accused is proven and not yet
    penalised: D5)."""
    if book.unpenalised_against(accused):
        return "proven"
    if hand_open:
        book.accuse(accuser_side, accused, before_final)
        return "pending"
    return None


class Rules(Game):
    """What both engines do alike, written once (an engine keeps only what differs).

    An engine class says ``players``, ``side_of``, ``pack``, ``hand_word`` ("hand" or
    "round") and ``claim_words`` (its refusals of a claim, see :func:`claimant_side`); it
    answers ``side_name(side)``, ``hand_open``, ``_hand_line_open(seat)``,
    ``_before_final_trick()``, ``_flip_now()`` (refuse a flip out of its phase),
    ``_dealer_found()``, ``_score_hand(how)``, ``_penalty_value()`` and
    ``_score_penalty(side, why, value, replaces)``. Its handlers are its
    ``_do_KIND`` methods, one per action kind, found once when the class is made.
    """
    __slots__ = ()
    _HANDLERS = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._HANDLERS = {n[4:]: getattr(cls, n) for n in dir(cls) if n.startswith("_do_")}

    # -- dispatching actions, and the rule after the match ends (S2) ------------------

    def apply(self, action):
        """Apply one scenario action, or raise Refused (plain words) having changed nothing."""
        kind = getattr(action, "kind", None)
        handler = self._HANDLERS.get(kind)
        if handler is None:
            raise Refused("not-an-action", f"'{getattr(action, 'kind', action)}' is not a {self.title} action")
        if self.phase is MATCH_OVER and kind not in HEARD_AFTER_MATCH:
            raise Refused("match-over", self._over_words())
        handler(self, action)

    def _over_words(self):
        return f"the match is over: {self.side_name(self.winner)} won"

    def _check_options(self, options):
        """Refuse an option the game does not know, or a value the option does not take."""
        if options and not self.OPTIONS:
            raise Refused("bad-option", f"{self.game} has no options")
        for k, v in options.items():
            if k not in self.OPTIONS:
                raise Refused("bad-option", f"unknown option {k!r} (known: {', '.join(self.OPTIONS)})")
            if v not in self.OPTIONS[k]:
                raise Refused("bad-option", f"option {k} takes {' or '.join(self.OPTIONS[k])}, not {v!r}")

    def name(self, seat):
        return self.seats[seat]

    def _seat(self, a, required=False):
        """The action's seat (None when it names none), or refuse a seat that is not one."""
        s = a.seat
        if s is None:
            if required:
                raise Refused("bad-seat", f"'{a.kind}' needs a seat")
            return None
        if type(s) is not int or not 0 <= s < self.players:
            raise Refused("bad-seat", f"{s!r} is not a seat in this game")
        return s

    @staticmethod
    def _card_actions(kind, check, seat, cards):
        """``kind`` actions for the cards that pass ``check(seat, card)`` (``legal_actions``)."""
        out = []
        for c in cards:
            try:
                check(seat, c)
            except Refused:
                continue
            out.append(Action(kind, cards=(c,)))
        return out

    @staticmethod
    def _ok(check, *args):
        """Whether ``check(*args)`` passes (``legal_actions`` asks the handlers' own checks)."""
        try:
            check(*args)
        except Refused:
            return False
        return True

    def _heard_actions(self):
        """The legal actions every phase shares: hand lines, claims, accusations."""
        p, seats = self.phase, range(self.players)
        out = []
        if p is not FLIP and p is not MATCH_OVER:
            out += [Action("hand", seat=s) for s in seats if self._hand_line_open(s)]
        if self.hand_no:
            out += claim_actions(self.book, self.side_of, p is MATCH_OVER)
            out += [Action("accuse", seat=s) for s in seats]
        return out

    # -- T1, N2 the black-jack flip ----------------------------------------------------

    def _do_flip(self, a):
        if self.phase is not FLIP:
            self._flip_now()
        seat = a.seat if a.seat is None else self._seat(a)
        cards = a.cards
        self.flip.check(seat, cards, self.pack, self.seats)
        self.flip.turn(seat, cards)
        if self.flip.dealer is not None:
            self.dealer = self.flip.dealer
            self._dealer_found()

    # -- T9, N11 claims and accusations ------------------------------------------------

    def _do_claim(self, a):
        seat = self._seat(a)
        if not self.hand_no:
            raise Refused("no-hand", f"no {self.hand_word} has begun: there is no renege to claim")
        side = claimant_side(self.book, None if seat is None else self.side_of[seat],
                             self.phase is MATCH_OVER, self.claim_words, None if seat is None else self.seats[seat])
        if side is not None:  # None: after the match, heard without effect (S2)
            self._penalty(side, "claim", replaces=not self.hand_open)

    def _do_accuse(self, a):
        accused = self._seat(a, required=True)
        if not self.hand_no:
            raise Refused("no-hand", f"no {self.hand_word} has begun: there is nothing to accuse")
        side = 1 - self.side_of[accused]
        if settle_accusation(self.book, accused, side, self.hand_open, self._before_final_trick()) == "proven":
            self._penalty(side, "accusation proven", replaces=not self.hand_open)

    def _end_hand(self, how):
        """The hand's play is over ("played out", or N10 "finished"): the engine scores the hand's
        own result, then a false accusation made before the final trick replaces it (T9, N11)."""
        self._score_hand(how)
        accusation = self.book.false_accusation()
        if accusation is not None:
            self._penalty(self.side_of[accusation.accused], "false accusation", replaces=True)

    def _penalty(self, side, why, replaces=False):
        """A renege penalty (T9, N11): ``side`` scores it. During the hand it ends the hand at once;
        once the hand's own result, or an earlier penalty (D5), was scored (``replaces``), it
        takes that result's place: the engine scores it from the score before that result.

        It settles the hand: the offending side's proven reneges are penalised (a claim or
        accusation about them has no more effect; one about the other side's still replaces
        this, D5), and the penalty is the hand's outcome."""
        value = self._penalty_value()
        self.book.penalise(None if why == "false accusation" else 1 - side)
        self._outcome = (Penalty, self.hand_no, side, why, value, replaces)
        self._score_penalty(side, why, value, replaces)

    # -- reading the state --------------------------------------------------------------

    def revealed_trump_card(self):
        """The card set aside as trump once it is face up (public from then on); None while it is
        hidden, and in a game without one."""
        return None

    def _reneges_state(self):
        """The proven reneges of the match, as ``state()`` gives them (scenario format)."""
        names = self.seats
        return [{"seat": names[r.seat], "hand": r.hand, "trick": r.trick} for r in self.book.proven]

    def snapshot(self):
        """Every field as a hashable tuple: equal snapshots mean equal states (undo, export)."""
        return tuple(_frozen(getattr(self, name)) for name in self.__slots__)

    def copy(self):
        """An independent engine in the same state."""
        new = object.__new__(type(self))
        for name in self.__slots__:
            setattr(new, name, _copied(getattr(self, name)))
        return new


def _frozen(v):
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(x) for x in v)
    if isinstance(v, set):
        return frozenset(v)
    if isinstance(v, (Flip, RenegeBook)):
        return v.snapshot()
    return v


def _copied(v):
    t = type(v)
    if t is list:
        return [_copied(x) for x in v]
    if t is set:
        return set(v)
    if t is Flip or t is RenegeBook:
        return v.copy()
    return v
