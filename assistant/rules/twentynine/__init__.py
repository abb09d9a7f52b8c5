"""Twenty-Nine: seed 001 with rulings N1–N11 and their house-rule options, as a pure engine.

:class:`TwentyNine` (:mod:`.engine`) is one class behind the game interface of
:mod:`assistant.rules.game`, made of one part per section of the rulebook:

- :mod:`.pack`: the pack's points and power, the figures, the partnerships, the options;
- :mod:`.auction`: N3, bids and passes;
- :mod:`.trump_card`: N4 the trump card or the seventh, N5 the call, N7 the reveal;
- :mod:`.hands`: hand lines (deal scan) and what is known of each hand;
- :mod:`.tricks`: N5-N7, a play checked, recorded, and the trick ended;
- :mod:`.scoring`: N8-N11, the round's result, the early finish, penalties, the match's end;
- :mod:`.house_rules`: double and redouble, the pair.

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
from assistant.rules.twentynine.engine import TwentyNine
from assistant.rules.twentynine.pack import BIT, OPTIONS, SIDE_OF, SUIT_MASK, cards_of

__all__ = ["TwentyNine", "BIT", "OPTIONS", "SIDE_OF", "SUIT_MASK", "cards_of"]
