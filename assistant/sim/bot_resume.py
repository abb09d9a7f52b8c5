"""The bots' hands for a match they did not deal: the match in play in a state folder.

The game bots hold the true cards of the hands they deal, so they can only begin a hand.
A match found in play (a run killed, a match left at the keyboard) goes on in the middle
of a hand nobody at this table dealt: :class:`ResumeBot` plays that hand (a flip under
way, a deal scan under way too) to its end from the rules' own list of what is accepted
now (``legal_actions()``, :mod:`assistant.rules.game`), which follows everything the
journal shows (cards played, scanned hands, the face-down trump card). Among the plays it
takes one that follows suit where the rules still allow one, and never one that proves a
renege, so the hand ends as a real hand could have. Then the game's bot deals the next
hand as usual (``done``).
"""
import random

from assistant.rules.cards import pack_for
from assistant.rules.scenario import Action

SKIP = frozenset({"claim", "accuse", "undo", "finish", "double", "redouble", "pair", "for2"})


class ResumeBot:
    def __init__(self, table, seed):
        self.table = table
        self.rng = random.Random(seed)
        self.injected_log = []  # it never reneges on purpose
        e = table.match.engine
        self.was_open = e.hand_open
        self.done = not needed(table)

    def next_action(self, engine):
        if engine.phase == "over":
            return None
        if (self.was_open and not engine.hand_open) or not needed(self.table):
            self.done = True  # the hand in play is over: the game's bot deals the next
        self.was_open = engine.hand_open
        if self.done:
            return None
        scan = self.table.scan
        if scan.active():
            seat = next(s for s in range(len(self.table.match.seats)) if scan.target(s))
            return self._hand(engine, seat)
        legal = [a for a in engine.legal_actions() if a.kind not in SKIP and a.kind != "hand"
                 and not (a.kind == "flip" and a.seat is not None)]
        if not legal:
            return None
        plays = [a for a in legal if a.kind == "play"]
        if plays:
            return self._play(engine, plays)
        rng = self.rng
        easy = [a for a in legal if a.kind in ("pass", "accept")]
        if easy and rng.random() < 0.6:
            return rng.choice(easy)
        bids = sorted((a for a in legal if a.kind == "bid"), key=lambda a: a.value)
        others = [a for a in legal if a.kind != "bid"]
        if bids and (not others or rng.random() < 0.5):
            return bids[0]
        return rng.choice(others or legal)

    def _play(self, engine, plays):
        """A play that proves no renege, following suit where it can (no new failure to follow)."""
        self.rng.shuffle(plays)
        proven, failures = len(engine.book.proven), len(engine.book.failures)
        fallback = None
        for a in plays:
            trial = engine.copy()
            trial.apply(a)
            if len(trial.book.proven) > proven:
                continue
            if len(trial.book.failures) <= failures:
                return a
            fallback = fallback or a
        return fallback or plays[0]

    def _hand(self, engine, seat):
        """The cards ``seat`` still has to scan: any the rules accept in its hand line."""
        t = self.table
        have = list(t.scan.cards.get(seat, ()))
        taken = {c for cards in t.scan.cards.values() for c in cards}
        pool = sorted(c for c in pack_for(t.match.game) if c not in taken)
        need = t.scan.target(seat) - len(have)
        for _ in range(200):
            new = self.rng.sample(pool, need)
            cards = t.desk.hand_with_hidden(engine, seat, have + new)
            trial = engine.copy()
            try:
                trial.apply(Action("hand", seat=seat, cards=cards))
            except Exception:  # noqa: BLE001 - a hand the rules refuse: another draw
                continue
            return Action("hand", seat=seat, cards=tuple(new))
        return None


def needed(table):
    """The match in play is in the middle of something the game's bot did not begin: a flip,
    a hand, or a deal scan."""
    m = table.match
    if m is None or not m.actions or m.engine.phase == "over":
        return False
    e = m.engine
    known = any(k is not None for k in getattr(e, "known", ()))
    return e.phase == "flip" or e.hand_open or known or bool(table.scan.taps)
