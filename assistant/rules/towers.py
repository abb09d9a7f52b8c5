"""The towers rules engine: pure, rulings T1–T9 over seed 000.

Two players, a 24-card bower pack, hands of 7 cards down to 1 within a tower,
first to 5 towers. It implements the game interface of :mod:`assistant.rules.game`:
``apply`` takes scenario actions and either changes the state or raises
:class:`Refused` (with a code) having changed nothing; ``legal_actions()``,
``waiting_for()``, ``outcome``, ``match_end``, ``state()``, ``copy()``. Each
action is a check then a record (play: ``_check_play``, the record, then
``_finish_trick`` at the end of a trick); ``legal_actions`` asks the same checks.

Public attributes the table and the bots read:
``phase`` (a :class:`Phase`: FLIP, UP_CARD, ROUND_ONE, ROUND_TWO, PLAY, MATCH_OVER), ``to_act``,
``dealer``, ``hand_size``, ``hand_no``, ``up_card``, ``turned_down``, ``trump``,
``bidder``, ``for_two``, ``picked_up``, ``discard_open``, ``trick`` (list of
(seat, card)), ``tricks``, ``score``, ``winner``, ``hand_over``, ``book``
(the :class:`RenegeBook`), ``known`` (per seat: set of cards still held, or None);
``holds(seat, suit)`` says whether the engine is sure a seat holds a suit (sure holdings).
"""
from assistant.rules.cards import (SUIT_SYMBOLS, SUIT_NAMES, SUITS, TOWERS_PACK, card_name, effective_suit,
                    left_bower, right_bower)
from assistant.rules.renege import RenegeBook
from assistant.rules.game import Action, HandResult, Phase, Refused, Waiting
from assistant.rules.shared import Flip, Rules
# the phases as module names: a name is faster to read than an Enum attribute
FLIP, UP_CARD, ROUND_ONE, ROUND_TWO, PLAY, MATCH_OVER = (
    Phase.FLIP, Phase.UP_CARD, Phase.ROUND_ONE, Phase.ROUND_TWO, Phase.PLAY, Phase.MATCH_OVER)

TOWERS_TO_WIN = 5
OPTIONS = {}  # towers has no house rules yet
NO, MAYBE, SURE = 0, 1, 2  # what the engine knows of a holding (``Towers.holds``)
FIRST_HAND = 7


def _power_table():
    """power[trump][card]: higher wins; trump cards (bowers first) above every plain card."""
    table = []
    for trump in range(4):
        row = [0] * 32
        for c in TOWERS_PACK:
            rank = c & 7
            if c == right_bower(trump):
                row[c] = 100
            elif c == left_bower(trump):
                row[c] = 99
            elif c >> 3 == trump:
                row[c] = 60 - rank
            else:
                row[c] = 10 - rank
        table.append(row)
    return table


POWER = _power_table()
PACK = sorted(TOWERS_PACK)
EFFECTIVE = [[effective_suit(c, t) for c in range(32)] for t in range(4)]


def suit_words(suit):
    return f"{SUIT_NAMES[suit]} {SUIT_SYMBOLS[suit]}"


class Towers(Rules):
    """The state of one towers match; see the module docstring for what it exposes."""

    game, title = "towers", "Towers"  # the scenario's name, the name for people
    players = 2
    partnerships = False  # one player a side: a side is a seat
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

    # -- set-up of towers and hands -------------------------------------------------

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

    def side_name(self, side):
        return self.seats[side]  # one player a side

    # -- the action interface -------------------------------------------------------

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
        return Waiting(f"the match is over: {self.name(self.winner)} won", None, ())

    # -- what the rules accept now ----------------------------------------------------

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
            out += [Action("play", cards=(c,)) for c in PACK if self._ok(self._check_play, self.to_act, c)]
        return out + self._heard_actions()

    def _hand_line_open(self, seat):
        """Whether a hand line for ``seat`` may be given now (its cards are checked apart)."""
        return (self.known[seat] is None
                and not (self.phase is PLAY and self._has_played(seat)))

    @property
    def hand_open(self):
        """A hand has begun (its up-card is turned) and its play has not ended."""
        return not self.hand_over

    def _flip_now(self):
        self._expect(FLIP, what="a flip")

    def _dealer_found(self):
        self.phase = UP_CARD

    def _do_hand(self, a):
        seat, cards = a.seat, a.cards
        if self.phase is FLIP:
            raise Refused("no-hand", "no hand is dealt yet: finish the flip first")
        if self.known[seat] is not None:
            raise Refused("hand-given", f"{self.name(seat)}'s hand is already known this hand")
        if self.phase is PLAY and self._has_played(seat):
            raise Refused("hand-given", f"{self.name(seat)}'s hand must be given before their first play")
        if len(cards) != self.hand_size:
            raise Refused("hand-size", f"{self.name(seat)} was dealt {self.hand_size} cards, not {len(cards)}")
        other = self.known[1 - seat] or ()
        live = self.phase is not UP_CARD  # before the up-card the hand is the next one
        seen = set()
        for c in cards:
            if c not in TOWERS_PACK:
                raise Refused("not-in-pack", f"{card_name(c)} is not in the towers pack")
            if c in seen:
                raise Refused("card-seen", f"{card_name(c)} is listed twice")
            seen.add(c)
            if c in other or (live and (c in self.played or c == self.up_card)):
                raise Refused("card-elsewhere", f"{card_name(c)} cannot be in {self.name(seat)}'s hand: it is elsewhere")
            if live and c == self.discard and seat != self.dealer:  # face down: not named
                raise Refused("card-elsewhere", f"one of those cards cannot be in {self.name(seat)}'s hand: "
                              "it is out of play this hand")
        hand = set(cards)
        if live and seat == self.dealer and self.picked_up:
            if self.discard is not None and self.discard not in hand and self.discard != self.up_card:
                raise Refused("not-held", f"{self.name(seat)} discarded a card that is not in this hand")
            hand.add(self.up_card)
            if self.discard is not None:
                hand.discard(self.discard)
            else:
                self.uncertain = True
        self.known[seat] = hand

    def _has_played(self, seat):
        # the non-dealer leads the first trick; after that every player has played
        return self.done > 0 or any(s == seat for s, _ in self.trick)

    def _do_upcard(self, a):
        self._expect(UP_CARD, what="turning the up-card")
        c = a.card
        if c not in TOWERS_PACK:
            raise Refused("not-in-pack", f"{card_name(c)} is not in the towers pack")
        for hand in self.known:
            if hand is not None and c in hand:
                raise Refused("card-elsewhere", f"{card_name(c)} was dealt to a player: it cannot be the up-card")
        self._reset_hand_figures()
        self.hand_no += 1
        self.book.start_hand(self.hand_no)
        self.hand_over = False
        self.last_result = None
        self._outcome = None
        self.up_card = c
        self.phase = ROUND_ONE
        self.to_act = 1 - self.dealer

    def _do_accept(self, a):
        self._expect(ROUND_ONE, what="accepting the up-card")
        self.bidder = self.to_act
        self.trump = self.up_card >> 3
        self.picked_up = True
        self.discard_open = True
        dealer_hand = self.known[self.dealer]
        if dealer_hand is not None:
            dealer_hand.add(self.up_card)
            self.uncertain = True
        self._start_play()

    def _do_pass(self, a):
        self._expect(ROUND_ONE, ROUND_TWO, what="passing")
        if self.phase is ROUND_TWO and self.to_act == self.dealer:
            raise Refused("dealer-must-name", f"{self.name(self.dealer)} deals and must name trump "
                          f"(any suit but {suit_words(self.turned_down)})")
        if self.to_act == self.dealer:  # both passed round one: the up-card is turned down
            self.turned_down = self.up_card >> 3
            self.phase = ROUND_TWO
        self.to_act = 1 - self.to_act

    def _do_name(self, a):
        if self.phase is ROUND_ONE:
            raise Refused("not-now", "a suit is named only after both players pass the up-card")
        self._expect(ROUND_TWO, what="naming trump")
        if a.value == self.turned_down:
            raise Refused("turned-down", f"{suit_words(a.value)} was turned down: name another suit")
        self.bidder = self.to_act
        self.trump = a.value
        self._start_play()

    def _start_play(self):
        self.phase = PLAY
        self.to_act = 1 - self.dealer

    def _do_discard(self, a):
        self._expect(PLAY, what="a discard")
        c = a.card
        self._check_discard(c)
        hand = self.known[self.dealer]
        self.discard_open = False
        self.discard = c
        if hand is not None:
            hand.discard(c)
            self.uncertain = False

    def _check_discard(self, c):
        if not self.discard_open:
            raise Refused("not-now", "only the dealer who picked up the up-card discards, once, before the first lead")
        if c not in TOWERS_PACK:
            raise Refused("not-in-pack", f"{card_name(c)} is not in the towers pack")
        hand = self.known[self.dealer]
        if hand is not None and c not in hand:
            raise Refused("not-held", f"{self.name(self.dealer)} does not hold {card_name(c)}")
        if hand is None and self.known[1 - self.dealer] is not None and c in self.known[1 - self.dealer]:
            raise Refused("card-elsewhere", f"{card_name(c)} is not in {self.name(self.dealer)}'s hand")

    def _do_for2(self, a):
        self._expect(PLAY, what="declaring for 2")
        if self.done or self.trick:
            raise Refused("too-late", "for 2 is declared before the first lead")
        if self.for_two:
            raise Refused("already", f"{self.name(self.bidder)} already declared for 2")
        self.for_two = True

    # -- play -------------------------------------------------------------------------

    def _do_play(self, a):
        if self.phase is not PLAY:
            self._expect(PLAY, what="playing a card")
        seat, c = self.to_act, a.card
        failed = self._check_play(seat, c)
        # the card is accepted from here on
        self.discard_open = False
        self.played.add(c)
        if self.known[seat] is not None:
            self.known[seat].discard(c)
        self.trick.append((seat, c))
        eff = EFFECTIVE[self.trump][c]
        trick_no = self.done + 1
        if failed is not None:
            self.book.failed(seat, failed, trick_no)
        if self.book.failures and self.book.shown(seat, c, eff, trick_no):
            accusation = self.book.accusation_proven(seat)
            if accusation is not None:  # T9: settled as the card is played, before the trick is scored
                self._penalty(accusation.accuser_side, "accusation proven")
                return
        if len(self.trick) == 2:
            self._finish_trick()
        else:
            self.to_act = 1 - seat

    def holds(self, seat, suit):
        """Whether ``seat`` holds a card of effective ``suit``: SURE, NO or MAYBE.

        Sure holdings (S1): a known hand, or the up-card the dealer
        picked up once the discard was recorded as another card, until it is played.
        With an unrecorded discard one card of the dealer's known hand is in doubt."""
        trump = self.trump
        hand = self.known[seat]
        if hand is not None:
            held = sum(1 for x in hand if EFFECTIVE[trump][x] == suit)
            if held >= (2 if (self.uncertain and seat == self.dealer) else 1):
                return SURE
            return MAYBE if held else NO
        if (seat == self.dealer and suit == trump and self.picked_up and self.discard is not None
                and self.discard != self.up_card and self.up_card not in self.played):
            return SURE
        return MAYBE

    def _check_play(self, seat, c):
        """Refuse the card, or return the suit it fails to follow (None if it follows or
        the seat surely holds none of the led suit)."""
        if c not in TOWERS_PACK:
            raise Refused("not-in-pack", f"{card_name(c)} is not in the towers pack")
        if c in self.played:
            raise Refused("card-seen", f"{card_name(c)} was already played this hand")
        if c == self.up_card:
            if not self.picked_up:
                raise Refused("card-elsewhere", f"{card_name(c)} was the up-card, turned down: it is out of play")
            if seat != self.dealer:
                raise Refused("card-elsewhere", f"{card_name(c)} was picked up by {self.name(self.dealer)}")
        if c == self.discard:  # the discard is face down: the refusal does not name it
            raise Refused("card-elsewhere", "that card is out of play this hand")
        hand = self.known[seat]
        if hand is not None:
            if c not in hand:
                raise Refused("not-held", f"{self.seats[seat]} was not dealt {card_name(c)}")
        else:
            other = self.known[1 - seat]
            if other is not None and c in other:
                raise Refused("card-elsewhere", f"{card_name(c)} was dealt to the other player")
        if not self.trick:
            return None
        effective = EFFECTIVE[self.trump]
        led = effective[self.trick[0][1]]
        if effective[c] == led:
            return None
        held = self.holds(seat, led)
        if held == SURE:
            raise Refused("must-follow", f"{self.seats[seat]} must follow {suit_words(led)}")
        return led if held == MAYBE else None

    def _finish_trick(self):
        (s1, c1), (s2, c2) = self.trick
        t = self.trump
        e1, e2 = EFFECTIVE[t][c1], EFFECTIVE[t][c2]
        power = POWER[t]
        second_wins = (e2 == t and e1 != t) or (e2 == e1 and power[c2] > power[c1])
        winner = s2 if second_wins else s1
        self.tricks[winner] += 1
        self.done += 1
        self.trick = []
        self.to_act = winner
        if self.done == self.hand_size:
            self._hand_played_out()

    def _hand_played_out(self):
        """T6 and T9: score the hand, unless a false accusation replaces its result."""
        self.hand_over = True
        accusation = self.book.false_accusation()
        if accusation is not None:
            self._penalty(1 - accusation.accuser_side, "false accusation", replaces=True)
            return
        self.last_result = (tuple(self.score), self.dealer, self.hand_size)
        bidder, size = self.bidder, self.hand_size
        defender = 1 - bidder
        taken = self.tricks[bidder]
        majority = size // 2 + 1
        for2 = "for-2 " if self.for_two else ""
        if taken == size:
            what, side, value = for2 + "sweep", bidder, 2 if self.for_two else 1
        elif taken == 0:
            what, side, value = ("for-2 zero" if self.for_two else "sweep"), defender, 2 if self.for_two else 1
        elif self.for_two and taken < majority:
            what, side, value = "for-2 short", defender, 1
        else:
            what, side, value = ("majority" if taken >= majority else "minority"), None, 0
        self._outcome = (HandResult, self.hand_no, bidder, what, "played out", side, value, taken)
        if side is not None:
            self._win_towers(side, value)
        else:
            self.dealer = bidder if taken >= majority else defender
            self.hand_size = size - 1
            self.known = [None, None]
            self.phase = UP_CARD
            self.to_act = None
        self.last_result += (self.phase is FLIP or self.phase is MATCH_OVER,)

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

    def _penalty(self, seat, why, replaces=False):
        """A claim or a settled accusation: ``seat`` wins one tower and the tower ends (T9).

        After the hand's own result (or an earlier penalty, D5) was scored, the penalty replaces
        it; it is kept in ``last_result`` as a result a later penalty of the hand replaces."""
        self.hand_over = True
        result = self.last_result
        before = (result[0], result[2]) if result is not None else (tuple(self.score), self.hand_size)
        self._settle(seat, why, 1, replaces or result is not None)
        self._apply_penalty(seat, result)
        self.last_result = (before[0], None, before[1], True)

    def _apply_penalty(self, seat, result):
        if result is not None:
            score, dealer, size, tower_ended = result
            self.score = list(score)
            self.winner = None
            if tower_ended:
                self.score[seat] += 1
                if self.score[seat] >= TOWERS_TO_WIN:
                    self.winner, self.phase, self.to_act, self.dealer = seat, MATCH_OVER, None, None
                    self.hand_size = size  # the figures of the last hand played
                elif self.phase is MATCH_OVER:
                    self._new_tower()
                return
            self._win_towers(seat, 1)
            if self.phase is MATCH_OVER:
                self.hand_size = size
            return
        self._win_towers(seat, 1)

    # -- claims and accusations (T9): shared.Rules ---------------------------------------

    def _before_final_trick(self):
        final = self.hand_size - 1
        return self.done < final or (self.done == final and not self.trick)

    # -- reading the state --------------------------------------------------------------

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
            "reneges": [{"seat": names[r.seat], "hand": r.hand, "trick": r.trick}
                        for r in self.book.proven],
            "phase": self.phase.value,
            "to_act": None if self.to_act is None else names[self.to_act],
            "bidder": None if self.bidder is None else names[self.bidder],
            "for2": self.for_two,
            "hand": self.hand_no,
        }
