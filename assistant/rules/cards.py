"""Cards, suits and the two packs, in the scenario format's notation.

A card is a small int, ``suit * 8 + rank``, so that the rules engines can
index tables instead of building objects on every play. Ranks run
A K Q J 10 9 8 7 (indices 0..7); suits S H D C (indices 0..3).

>>> parse_card("10h") == parse_card("T♥") == card(HEARTS, rank_of("10"))
True
>>> card_name(parse_card("js"))
'JS'
>>> effective_suit(parse_card("JC"), SPADES) == SPADES   # the left bower is trump
True
"""

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7")
ACE, KING, QUEEN, JACK, TEN, NINE, EIGHT, SEVEN = range(8)

_SUIT_ALIASES = {c: i for i, c in enumerate(SUITS)}
_SUIT_ALIASES.update({c: i for i, c in enumerate(SUIT_SYMBOLS)})
_SUIT_ALIASES.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)}
_RANK_ALIASES["T"] = TEN


class CardError(ValueError):
    """A card or suit that cannot be read; the message says why in plain words."""


def card(suit, rank):
    return suit * 8 + rank


def suit_of(c):
    return c >> 3


def rank_of_card(c):
    return c & 7


def rank_of(text):
    try:
        return _RANK_ALIASES[text.upper()]
    except KeyError:
        raise CardError(f"{text!r} is not a rank (A K Q J 10 9 8 7, or T for 10)") from None


def is_red(suit):
    return suit in (HEARTS, DIAMONDS)


def same_colour_suit(suit):
    """The other suit of the same colour: spades<->clubs, hearts<->diamonds."""
    return (CLUBS, DIAMONDS, HEARTS, SPADES)[suit]


def _clean(text):
    """Without white space and the emoji variation selector phones add after ♠ ♥ ♦ ♣."""
    return text.strip().replace("\ufe0f", "").replace("\ufe0e", "")


def parse_suit(text):
    t = _clean(text).upper()
    if t in _SUIT_ALIASES:
        return _SUIT_ALIASES[t]
    raise CardError(f"{text!r} is not a suit (S H D C, or ♠ ♥ ♦ ♣)")


def parse_card(text):
    t = _clean(text)
    if len(t) < 2 or len(t) > 3 or t.upper() in _RANK_ALIASES:  # no card is longer than "10H"
        raise CardError(f"{text!r} is not a card: write a rank then a suit, like JS, 10H or T♦")
    if t[0].upper() in _SUIT_ALIASES and t[1:].upper() in _RANK_ALIASES:
        raise CardError(f"{text!r} is not a card: write the rank first, like {t[1:].upper()}{t[0].upper()}")
    rank_text, suit_text = t[:-1], t[-1]
    try:
        suit = _SUIT_ALIASES[suit_text.upper()]
    except KeyError:
        raise CardError(f"{text!r} is not a card: {suit_text!r} is not a suit (S H D C)") from None
    try:
        rank = _RANK_ALIASES[rank_text.upper()]
    except KeyError:
        raise CardError(f"{text!r} is not a card: {rank_text!r} is not a rank (A K Q J 10 9 8 7)") from None
    return card(suit, rank)


def card_name(c):
    """Scenario notation: ``JS``, ``10H``."""
    return RANKS[c & 7] + SUITS[c >> 3]


def card_label(c):
    """Display notation with the suit glyph: ``J♠``, ``10♥``."""
    return RANKS[c & 7] + SUIT_SYMBOLS[c >> 3]


def suit_name(s):
    return SUITS[s]


TOWERS_PACK = frozenset(card(s, r) for s in range(4) for r in (ACE, KING, QUEEN, JACK, TEN, NINE))
TWENTY_NINE_PACK = frozenset(range(32))
BLACK_JACKS = frozenset((card(SPADES, JACK), card(CLUBS, JACK)))


PACKS = {"towers": TOWERS_PACK, "twenty-nine": TWENTY_NINE_PACK}


def pack_for(game):
    return PACKS[game]


def left_bower(trump):
    return card(same_colour_suit(trump), JACK)


def right_bower(trump):
    return card(trump, JACK)


def effective_suit(c, trump):
    """The suit a card belongs to for following and winning: the left bower is trump (towers)."""
    if trump is not None and c == left_bower(trump):
        return trump
    return c >> 3
