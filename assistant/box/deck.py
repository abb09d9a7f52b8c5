"""Deck files: which tag UID is which card of one physical pack.

One line per card, ``<UID> <card>``, in the scenario notation of cards.py
(``04A1B2C3D4E5F6 JS``); ``#`` starts a comment. ``card-assistant enroll``
writes them; the daemon loads one with ``load_deck`` and asks ``card_for`` for
every tap. A tag that is not in the deck raises UnknownTag: an alert, never a
guess. A 32-card Twenty-Nine deck also serves towers (its pack is a subset).

>>> deck = parse_deck("04A1B2C3D4E5F6 JS\\n")
>>> card_name(card_for(deck, "04a1b2c3d4e5f6"))
'JS'
"""
import os

from assistant.rules.cards import TWENTY_NINE_PACK, CardError, card_label, card_name, parse_card

HEADER = "# card-assistant deck: tag UID, then the card it is stuck on. Written by `card-assistant enroll`.\n"
_HEX = frozenset("0123456789ABCDEF")


class DeckError(ValueError):
    """A deck file that cannot be used; the message names the line and says why."""


class UnknownTag(LookupError):
    """A tag read during play that the deck does not know."""

    def __init__(self, uid):
        super().__init__(f"tag {uid} is not in this deck: is it from another pack? "
                         f"Take it off the pad (or enrol it with `card-assistant enroll --card`)")
        self.uid = uid


def normal_uid(text):
    """Upper-case hex, 8, 14 or 20 digits (4-, 7- or 10-byte UIDs); DeckError otherwise."""
    uid = text.strip().upper()
    if len(uid) not in (8, 14, 20) or not set(uid) <= _HEX:
        raise DeckError(f"{text!r} is not a tag UID (8, 14 or 20 hex digits)")
    return uid


def _shown(text, width=24):
    """Words from the file as a message shows them: quoted, cut to ``width`` characters."""
    return repr(text) if len(text) <= width else repr(text[:width]) + "..."


def parse_deck(text, source="deck"):
    """``{uid: card}`` from a deck file's text; refuses a tag or a card listed twice."""
    deck, line_of_card, line_of_uid = {}, {}, {}
    for n, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{source} line {n}"
        if len(words) != 2:
            raise DeckError(f"{where}: want `UID CARD`, got {_shown(line.strip(), 60)}")
        if max(map(len, words)) > 24:  # no UID (20 hex digits) nor card is that long: not said in full
            raise DeckError(f"{where}: {_shown(max(words, key=len))} is neither a tag UID nor a card")
        try:
            uid, card = normal_uid(words[0]), parse_card(words[1])
        except (DeckError, CardError) as e:
            raise DeckError(f"{where}: {e}") from None
        if uid in line_of_uid:
            raise DeckError(f"{where}: tag {uid} is already {card_label(deck[uid])} on line {line_of_uid[uid]}")
        if card in line_of_card:
            raise DeckError(f"{where}: {card_label(card)} already has a tag on line {line_of_card[card]}")
        deck[uid], line_of_uid[uid], line_of_card[card] = card, n, n
    return deck


def load_deck(path):
    """``{uid: card}`` from a deck file; DeckError (with the reason) if it is unusable."""
    from assistant.textfile import read_text
    try:
        text = read_text(path)
    except ValueError as e:
        raise DeckError(f"cannot read deck: {e}") from None
    return parse_deck(text, str(path))


def deck_for_play(path):
    """``(deck, problem, screen)`` for the box at its start: the deck at ``path`` ({} when it cannot
    be used); ``problem``, one plain line for the log when the deck is missing, unusable, empty or
    short of cards (how many it has and what fills it), else None; ``screen``, a short alert when
    no card can be read at all, else None."""
    enroll = f"`card-assistant enroll {path}`"
    try:
        os.lstat(path)
        there = True
    except FileNotFoundError:
        there = False
    except OSError:  # a folder this user may not enter: the deck may well be there; load_deck says why
        there = True
    if not there:
        return {}, (f"no deck at {path}: every card tap is refused as an unknown tag until {enroll} "
                    f"enrols the pack"), "No deck enrolled: run card-assistant enroll"
    try:
        deck = load_deck(path)
    except DeckError as e:
        return {}, (f"deck {path} cannot be used ({e}): every card tap is refused as an unknown tag; "
                    f"{enroll} writes a new one"), f"Deck unreadable: {e}"[:120]
    short = missing(deck)
    if not deck:
        return deck, (f"deck {path} has 0 of the {len(TWENTY_NINE_PACK)} cards: every card tap is refused as "
                      f"an unknown tag until {enroll} fills it"), "Deck empty: run card-assistant enroll"
    if short:
        names = f" ({' '.join(short)})" if len(short) <= 8 else ""
        return deck, (f"deck {path} has {len(deck)} of the {len(TWENTY_NINE_PACK)} cards: the other "
                      f"{len(short)}{names} are refused as unknown tags; {enroll} fills it"), None
    return deck, None, None


def format_deck(deck):
    lines = sorted(deck.items(), key=lambda item: item[1])
    return HEADER + "".join(f"{uid} {card_name(card)}\n" for uid, card in lines)


def save_deck(deck, path):
    """Write atomically, so a crash mid-write never leaves half a deck."""
    from assistant.textfile import write_text
    write_text(path, format_deck(deck))


def card_for(deck, uid):
    """The card a tag is on; UnknownTag if the deck does not know it."""
    try:
        return deck[uid.upper()]
    except KeyError:
        raise UnknownTag(uid.upper()) from None


def missing(deck, pack=TWENTY_NINE_PACK):
    """Cards of ``pack`` with no tag in the deck, in pack order (names)."""
    have = set(deck.values())
    return [card_label(c) for c in sorted(pack) if c not in have]
