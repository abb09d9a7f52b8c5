"""The towers pack and the rulebook's figures: the 24-card bower pack and each card's power under
each trump (T7: the bowers first), hands of 7 down to 1 (T2), 5 towers to win (T8), the phases by
name."""
from assistant.rules.cards import SUIT_NAMES, SUIT_SYMBOLS, TOWERS_PACK, effective_suit, left_bower, right_bower
from assistant.rules.game import Phase

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
