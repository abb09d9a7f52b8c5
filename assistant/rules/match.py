"""A match: the game engine plus the log of actions in effect.

The log is the truth. ``undo`` takes the last action in effect off the log and
rebuilds the engine by replaying what is left, so undo, resume after a power
cut and export are one mechanism. A refused action leaves the log untouched.

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
        engine = self._cls(self.seats, self.options)
        for a in actions:
            engine.apply(a)
        self.engine = engine
        self.actions = list(actions)

    def state(self):
        return self.engine.state()

    def export(self, comment=None):
        """The scenario text of the actions in effect; replaying it gives the same state."""
        return format_scenario(self.game, self.seats, self.options, self.actions, comment)
