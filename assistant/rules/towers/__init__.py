"""Towers: seed 000 with rulings T1–T9, as a pure engine.

Two players, a 24-card bower pack, hands of 7 cards down to 1 within a tower, first to 5
towers. :class:`Towers` (:mod:`.engine`) is one class behind the game interface of
:mod:`assistant.rules.game`, made of one part per section of the rulebook:

- :mod:`.pack`: the pack, each card's power under each trump, the figures;
- :mod:`.making_trump`: T2-T4, the up-card, the two rounds, the discard, for 2;
- :mod:`.hands`: hand lines (deal scan) and sure holdings;
- :mod:`.tricks`: T7, a play checked, recorded, and the trick ended;
- :mod:`.scoring`: T6, T8, T9, the hand's result, towers, penalties, the match's end.

>>> from assistant.rules.cards import parse_card
>>> from assistant.rules.game import Action
>>> t = Towers()
>>> t.apply(Action("flip", cards=(parse_card("JC"),)))  # T1: P1 deals
>>> t.apply(Action("upcard", cards=(parse_card("9H"),))); t.waiting_for()
'P2 accepts or passes the up-card'
"""
from assistant.rules.towers.engine import Towers
from assistant.rules.towers.pack import EFFECTIVE, OPTIONS, PACK, SURE

__all__ = ["Towers", "EFFECTIVE", "OPTIONS", "PACK", "SURE"]
