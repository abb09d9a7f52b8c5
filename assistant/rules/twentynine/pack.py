"""The Twenty-Nine pack and the rulebook's figures: card points (N8) and power (N6), bids 16 to 29
(N3), 29 points in all, 6 to win (N9), the partnerships (N1), the house rules (options), and the
phases by name.

A set of cards is an int bitmask (bit ``c`` for card ``c``), so hands, the played cards and "can
this seat follow" are a few integer operations.
"""
from assistant.rules.cards import SUIT_SYMBOLS
from assistant.rules.game import Phase

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
