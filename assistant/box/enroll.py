"""`card-assistant enroll`: tag a pack, card by card, into a deck file.

    card-assistant enroll DECK                 # enrol (or finish enrolling) all 32 cards
    card-assistant enroll DECK --card 7S       # enrol one card (a replacement, say)
    card-assistant enroll DECK --verify        # re-tap every card and check the deck

Names the next card, waits for a tap, refuses a tag already in the deck, two
tags on a pad, or a second tag for a card that has one; a card found lying on
a pad (not seen arriving) is never taken for the named one. The deck is saved after
every accepted card, so stopping (Ctrl-C) loses nothing and a rerun resumes.
"""
import sys
from pathlib import Path

from assistant.rules.cards import TWENTY_NINE_PACK, CardError, card_label, parse_card
from assistant.box.deck import DeckError, load_deck, missing, save_deck
from assistant.cli import argument_parser, cannot_write, shown
from assistant.box.players import PlayersError, load_players
from assistant.box.reader_port import DEFAULT_PORT, open_reader  # noqa: F401 (callers import them here)
from assistant.hw.events import PadConflict, ReaderStatus, TagArrived

class Enrolment:
    """The walk through a pack: which card is next, and whether a tag may be it."""

    def __init__(self, deck, cards, players=None):
        self.deck = deck  # {uid: card}, updated as cards are accepted
        self.cards = list(cards)
        self.players = players or {}  # {uid: name}: a player's tag is never a card

    @property
    def next_card(self):
        have = set(self.deck.values())
        return next((c for c in self.cards if c not in have), None)

    def offer(self, uid):
        """Take ``uid`` for the next card; returns a refusal in plain words, or None."""
        card = self.next_card
        if uid in self.deck:
            return (f"tag {uid} is already enrolled as {card_label(self.deck[uid])}: "
                    f"put that card aside and tap {card_label(card)}")
        if uid in self.players:
            return (f"tag {uid} is {self.players[uid]}'s player tag (card-assistant players): "
                    f"tap the card {card_label(card)}")
        self.deck[uid] = card
        return None


class Verification:
    """Re-tapping a pack: each card named in turn must bring the tag the deck has for it."""

    def __init__(self, deck, cards):
        self.deck = deck
        self.cards = [c for c in cards if c in set(deck.values())]
        self.done = 0
        self.wrong = []  # (card name, what was wrong)

    @property
    def next_card(self):
        return self.cards[self.done] if self.done < len(self.cards) else None

    def offer(self, uid):
        card = self.next_card
        got = self.deck.get(uid)
        self.done += 1
        if got == card:
            return None
        why = f"tag {uid} is not in the deck" if got is None else f"that tag is {card_label(got)} in the deck"
        self.wrong.append((card_label(card), why))
        return why


def walk(job, events, pad, say, on_accept=lambda: None):
    """Feed taps from ``events`` to ``job`` until every card is done."""
    while job.next_card is not None:
        card = job.next_card
        say(f"[{job.cards.index(card) + 1:>2}/{len(job.cards)}] tap {card_label(card)}")
        while True:
            event = events.get()
            if isinstance(event, ReaderStatus):
                say(f"  reader: {event.reason}")
            elif isinstance(event, PadConflict):
                say(f"  refused: two tags on pad {event.pad}; one card at a time, one tag per card")
            elif isinstance(event, TagArrived):
                if pad is not None and event.pad != pad:
                    say(f"  ignored: that was pad {event.pad}; enrolment listens on pad {pad}")
                    continue
                if event.inferred:  # lying there at start, or its tap was garbled: never guess
                    say(f"  ignored: a card was already on pad {event.pad} (or its tap was not heard "
                        f"cleanly); lift it and tap again")
                    continue
                refusal = job.offer(event.uid)
                if refusal is None:
                    on_accept()  # saved first: a card the file could not take is never said to be done
                    say(f"  {card_label(card)} = {event.uid}")
                    break
                say(f"  {'WRONG' if isinstance(job, Verification) else 'refused'}: {refusal}")
                if isinstance(job, Verification):
                    break


def players_beside(deck):
    """The player tags of the state folder ``deck`` is in ({} when it has none it can read): a
    player's tag taken as a card was a card at the table, and that player could sit down no more."""
    try:
        return load_players(deck.parent)
    except PlayersError:
        return {}


def parse_args(argv):
    p = argument_parser("card-assistant enroll", description=__doc__.split("\n\n")[0])
    p.add_argument("deck", type=Path, help="deck file to write (or to check with --verify)")
    p.add_argument("--port", default=DEFAULT_PORT, help=f"the reader's serial port (default {DEFAULT_PORT})")
    p.add_argument("--pad", type=int, choices=range(1, 5), help="listen to this pad only (default: any)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--verify", action="store_true", help="re-tap every card and check the deck")
    group.add_argument("--card", help="enrol just this card, e.g. 7S")
    p.add_argument("--replace", action="store_true", help="with --card: drop the tag the card has now")
    args = p.parse_args(argv)
    if args.replace and not args.card:
        p.error("--replace swaps the tag of one card: name it with --card, e.g. --card 7S --replace")
    return args


def deck_problem(args):
    """Why the deck file cannot be used as asked, or None; checked before the first tap."""
    deck = args.deck
    if args.verify:
        import errno
        import os
        import stat
        try:
            is_dir = stat.S_ISDIR(os.stat(deck).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            return f"there is no deck file {deck} to verify"
        except PermissionError:  # the box's state folder (0700) typed as another user
            return f"{deck} cannot be read (Permission denied): run this as the box's user, or with sudo"
        except OSError as e:  # a name too long was an internal error; a loop was called no file
            if e.errno == errno.ELOOP:
                return f"{deck} is a link that leads round in a loop, not a deck file"
            return f"{deck} cannot be read ({e.strerror})"
        if not is_dir:
            return None
    return cannot_write(deck)


def main(argv, events=None):
    """Run enrolment; ``events`` (a queue of reader events) replaces the serial port in tests."""
    args = parse_args(argv)
    say = lambda text: print(text, flush=True)  # noqa: E731
    problem = deck_problem(args)
    if problem:
        print(f"card-assistant enroll: {problem}", file=sys.stderr)
        return 2
    try:
        deck = load_deck(args.deck) if args.deck.exists() else {}
        cards = [parse_card(args.card)] if args.card else sorted(TWENTY_NINE_PACK)
    except (DeckError, CardError) as e:
        print(f"card-assistant enroll: {e}", file=sys.stderr)
        return 2
    if args.card and cards[0] in deck.values():
        owner = next(u for u, c in deck.items() if c == cards[0])
        if not args.replace:
            print(f"card-assistant enroll: {card_label(cards[0])} already has tag {owner} in {args.deck}; "
                  f"a second tag for one card is refused (use --replace to swap it)", file=sys.stderr)
            return 2
        del deck[owner]
    if args.verify and not deck:
        print(f"card-assistant enroll: {args.deck} has no cards to verify", file=sys.stderr)
        return 2

    reader = None
    if events is None:
        try:
            events, reader = open_reader(args.port)
        except ValueError as e:
            print(f"card-assistant enroll: {e}", file=sys.stderr)
            return 2
    try:
        if args.verify:
            job = Verification(deck, cards)
            say(f"Verifying {shown(args.deck)}: tap each card as it is named.")
            walk(job, events, args.pad, say)
            right = len(job.cards) - len(job.wrong)
            say(f"{right} of {len(job.cards)} right." + "".join(f"\n  {c}: {w}" for c, w in job.wrong))
            gaps = missing(deck)
            if gaps:
                say(f"Not in the deck: {' '.join(gaps)}")
            return 0 if not job.wrong else 1
        job = Enrolment(deck, cards, players_beside(args.deck))
        todo = len([c for c in cards if c not in set(deck.values())])
        say(f"Enrolling into {shown(args.deck)}: {todo} card(s) to tap, on any pad"
            f"{'' if args.pad is None else f' (pad {args.pad})'}. Ctrl-C stops; tapped cards are kept.")
        walk(job, events, args.pad, say, on_accept=lambda: save_deck(deck, args.deck))
        say(f"Done: {len(deck)} cards in {shown(args.deck)}." + (f" Still missing: {' '.join(missing(deck))}"
                                                         if missing(deck) else ""))
        return 0
    except KeyboardInterrupt:
        say(f"\nStopped: {len(deck)} cards saved in {shown(args.deck)}; run again to carry on.")
        return 130
    except OSError as e:  # the card filled up, or turned read-only, since the check at start
        from assistant.box.journal_files import say as problem
        print(f"card-assistant enroll: {problem(args.deck, e, 'cannot be saved')}: the card just tapped "
              f"was not saved; the file keeps the cards it had before it", file=sys.stderr)
        return 1
    finally:
        if reader is not None:
            reader.stop()
