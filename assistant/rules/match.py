"""A match: the game engine plus the log of actions in effect.

The log is the truth. ``undo`` takes the last action in effect off the log and
rebuilds the engine by replaying what is left, so undo, resume after a power
cut and export are one mechanism. A refused action leaves the log untouched.
A rebuild keeps a copy of the engine every ``MARK_EVERY`` actions it replays
(marks), and the next rebuild of the same actions starts from the latest mark
they still share: an undo replays at most that many actions, however long the
match (a file of play and undo lines no longer replays the match for each undo).

>>> from assistant.rules.scenario import Action
>>> m = Match("towers")
>>> m.apply(Action("flip", cards=(parse_card("JS"),)))
>>> m.state()["dealer"]
'P1'
>>> m.apply(Action("undo")); m.state()["dealer"] is None
True
"""
import importlib

from assistant.rules.cards import parse_card  # noqa: F401  (doctest)
from assistant.rules.shared import Refused
from assistant.rules.scenario import GAMES, Action, format_scenario


MARK_EVERY = 32  # actions between two marks: an engine copy costs about as much as 5 actions
ENGINES = {"towers": ("assistant.rules.towers", "Towers"), "twenty-nine": ("assistant.rules.twentynine", "TwentyNine")}


def engine_class(game):
    """The rules engine of ``game`` (imported only when first used)."""
    try:
        module, name = ENGINES[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r}") from None
    return getattr(importlib.import_module(module), name)


class Match:
    """One match of one game; ``apply`` takes scenario actions, ``undo`` included."""

    def __init__(self, game, seats=None, options=None):
        self.game = game
        self.seats = tuple(seats or (f"P{i + 1}" for i in range(GAMES[game])))
        self.options = dict(options or {})
        self._cls = engine_class(game)
        self.engine = self._cls(self.seats, self.options)
        self.actions = []  # the actions in effect, in order
        self._marks = {}  # n -> a copy of the engine after the first n actions in effect

    def apply(self, action):
        """Apply one action (``undo`` included); raises Refused and changes nothing if not allowed."""
        if action.kind == "undo":
            if not self.actions:
                raise Refused("nothing-to-undo", "there is nothing to undo")
            self.rebuild(self.actions[:-1])
            return
        self.engine.apply(action)
        self.actions.append(action)

    def legal_actions(self):
        """The engine's legal actions, and ``undo`` while an action is in effect."""
        return self.engine.legal_actions() + ([Action("undo")] if self.actions else [])

    def rebuild(self, actions):
        """The engine after ``actions`` (replayed from the latest mark they share with the actions
        in effect); raises Refused and changes nothing if one is refused."""
        actions = list(actions)
        marks = {}
        for n in sorted(self._marks, reverse=True):
            if n <= len(actions) and actions[:n] == self.actions[:n]:
                marks = {k: e for k, e in self._marks.items() if k <= n}
                break
        start = max(marks, default=0)
        engine = marks[start].copy() if start else self._cls(self.seats, self.options)
        for i in range(start, len(actions)):
            engine.apply(actions[i])
            if (i + 1) % MARK_EVERY == 0:
                marks[i + 1] = engine.copy()
        self.engine, self.actions, self._marks = engine, actions, marks

    def state(self):
        return self.engine.state()

    def export(self, comment=None):
        """The scenario text of the actions in effect; replaying it gives the same state."""
        return format_scenario(self.game, self.seats, self.options, self.actions, comment)
