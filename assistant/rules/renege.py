"""Reneges: failures to follow, their proof from later plays, claims and accusations.

Shared by both games (rulings T9 and N11). The book only keeps the facts; the
game engine turns a settled penalty into towers or game points.

A *failure* is a play that did not follow the led suit (or, in Twenty-Nine, a
caller's play that did not trump). While hands are unknown it may be innocent.
It is *proven* when the same player later plays, in the same hand, a card of the
suit they failed to show, a card they already held at the failure (a card that
joined their hand since, the Twenty-Nine trump card, is no evidence). Each
failure is its own renege.

>>> book = RenegeBook(side_of=(0, 1))
>>> book.start_hand(1)
>>> book.failed(seat=1, suit=2, trick=1)
>>> [tuple(r) for r in book.shown(seat=1, card=17, suit=2, trick=3)]
[(1, 1, 1, 2)]
"""
from typing import NamedTuple


class Renege(NamedTuple):
    seat: int
    hand: int   # 1-based hand number in the match
    trick: int  # 1-based trick of the failure within that hand
    suit: int | None = None  # the suit the offender failed to show


class Accusation(NamedTuple):
    accuser_side: int
    accused: int
    before_final: bool  # made before the first card of the hand's final trick


class RenegeBook:
    """Everything the renege rules need, for the whole match."""

    __slots__ = ("side_of", "proven", "hand", "failures", "accusations", "settled", "penalised",
                 "penalties")

    def __init__(self, side_of):
        self.side_of = side_of
        self.proven = []       # every proven renege of the match, in order
        self.hand = 0          # the current hand: the last one begun
        self.failures = []     # [seat, suit, trick, excluded card] of the current hand, unproven
        self.accusations = []  # pending accusations of the current hand
        self.settled = False   # the current hand was settled by a penalty
        self.penalised = frozenset()  # proven reneges of the current hand already penalised (D5)
        self.penalties = 0     # penalties settled in the match, to tell a new one from an old one

    def start_hand(self, hand):
        """A hand begins: earlier failures can no longer be proven, earlier claims lapse."""
        self.hand = hand
        self.failures = []
        self.accusations = []
        self.settled = False
        self.penalised = frozenset()

    def failed(self, seat, suit, trick, excluded=None):
        """Record a play by ``seat`` that did not show ``suit``; ``excluded``: a card not yet held."""
        self.failures.append((seat, suit, trick, excluded))

    def shown(self, seat, card, suit, trick):
        """``seat`` plays ``card`` of effective ``suit``: return the reneges it proves."""
        if not self.failures:
            return ()
        found = [f for f in self.failures if f[0] == seat and f[1] == suit and f[3] != card]
        if not found:
            return ()
        self.failures = [f for f in self.failures if f not in found]
        new = [Renege(seat, self.hand, f[2], suit) for f in found]
        self.proven.extend(new)
        return new

    def claimable(self, claimant_side):
        """Proven reneges of the current hand against ``claimant_side`` (by the other side), not
        yet penalised (D5: each proven renege is penalised once)."""
        return [r for r in self.proven if r.hand == self.hand
                and self.side_of[r.seat] != claimant_side and r not in self.penalised]

    def proven_against(self, seat):
        return [r for r in self.proven if r.hand == self.hand and r.seat == seat]

    def unpenalised_against(self, seat):
        """Proven reneges of ``seat`` in the current hand that no penalty has settled yet."""
        return [r for r in self.proven_against(seat) if r not in self.penalised]

    def penalise(self, offending_side):
        """A penalty settles the hand (T9, N11); ``offending_side``: the side whose proven reneges
        of this hand it penalises (None for a false accusation, which penalises none)."""
        self.settled = True
        self.penalties += 1
        if offending_side is not None:
            self.penalised = self.penalised | {r for r in self.proven if r.hand == self.hand
                                               and self.side_of[r.seat] == offending_side}

    def accuse(self, accuser_side, accused, before_final):
        self.accusations.append(Accusation(accuser_side, accused, before_final))

    def accusation_proven(self, seat):
        """The first pending accusation of ``seat`` (now proven), removed; or None."""
        for a in self.accusations:
            if a.accused == seat:
                self.accusations.remove(a)
                return a
        return None

    def false_accusation(self):
        """At the end of a played-out hand: the first pending accusation that gives the accused
        side the penalty (made before the final trick, no renege proven), or None. When both
        sides accused falsely, the two offences offset and neither is penalised (D8)."""
        false = [a for a in self.accusations if a.before_final and not self.proven_against(a.accused)]
        if len({a.accuser_side for a in false}) != 1:
            return None
        return false[0]

    def copy(self):
        new = RenegeBook(self.side_of)
        new.proven, new.hand, new.failures = list(self.proven), self.hand, list(self.failures)
        new.accusations, new.settled = list(self.accusations), self.settled
        new.penalised, new.penalties = self.penalised, self.penalties
        return new

    def snapshot(self):
        return (tuple(self.proven), self.hand, tuple(self.failures),
                tuple(self.accusations), self.settled, self.penalised, self.penalties)
