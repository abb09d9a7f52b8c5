"""The table: turns card taps and button presses into scenario actions, and the match into a View.

It sits between the adapters and the rules. It knows what the box waits for
(the flip, the up-card, a bid, the next card), applies one action at a time
through the :class:`Match`, writes each accepted action to the journal *before*
the screen may change, and builds the :class:`View` (public information only).

Buttons: left/right move the choice shown on the screen, OK confirms it, Back
dismisses an alert; hold OK for the menu (claim, accuse, finish, double, pair,
deal scan, new match), hold Back to undo the last action.

Pads (``pads``): one role per reader, in the wire's pad order (pad 1 first),
"P1".."P4" for a seat's pad or "centre".
A card tapped on the pad of the seat to act, or on the centre pad, is that
seat's play; on another seat's pad it is refused as out of turn.
"""
from .cards import SUIT_SYMBOLS, card_label, pack_for
from .events import ButtonPressed, PadCleared, PadConflict, ReaderStatus, TagArrived
from .journal import JournalError
from .match import Match
from .rules import Refused
from .scenario import OPTIONS, Action
from .table_view import build_view, choices_for, hand_open, result_words
from .view import Alert

HIDDEN_KINDS = {"trump": "the trump card", "discard": "the discard", "hand": "a scanned hand"}


class Table:
    """One box's table: the match in play plus what the screen is doing."""

    def __init__(self, journal, deck, pads=("P1", "P2", "centre"), game="towers", options=None,
                 deal_scan=False, match=None):
        self.journal = journal
        self.deck = dict(deck)
        self.pads = tuple(pads)
        self.default_game = game
        self.default_options = dict(options or {})
        self.deal_scan = deal_scan
        self.match = match
        self.alert = None
        self.sound = None          # "renege" | "refused" | None: for the alert adapter
        self.menu = None           # (title, [(label, callback)], selected)
        self.cursor = 0            # selected choice of the phase's choices
        self.scans = {}            # seat -> cards tapped in deal-scan mode (hidden)
        self.scan_taps = []        # seats in the order their scan cards were tapped (for Back)
        self.conflicts = set()
        self.reader_ok = True
        self.result = None         # words for the hand just scored, until the next action
        if self.match is None:
            self._game_menu()

    # -- events -----------------------------------------------------------------------

    def handle(self, event):
        """Apply one adapter event; returns the View to show."""
        self.sound = None
        if isinstance(event, TagArrived):
            if event.inferred:  # found lying there (or its tap was garbled): never guess a play
                self._alert("info", f"A card is lying on {self._pad_name(event.pad)}: "
                                    "lift it, and tap it again if it was meant")
            else:
                self._tag(event.pad, event.uid)
        elif isinstance(event, ButtonPressed):
            self._button(event.name, event.held)
        elif isinstance(event, PadConflict):
            self.conflicts.add(event.pad)
            self._alert("refused", f"Two cards on {self._pad_name(event.pad)}: lift one")
        elif isinstance(event, PadCleared):
            self.conflicts.discard(event.pad)
            if self.alert and self.alert.text.startswith("Two cards"):
                self.alert = None
        elif isinstance(event, ReaderStatus):
            self.reader_ok = event.connected
            if not event.connected:
                self._alert("reader-lost", event.reason or "Card reader lost: reconnecting")
            elif self.alert and self.alert.kind == "reader-lost":
                self.alert = None
        return self.view()

    def view(self):
        return build_view(self)

    def _alert(self, kind, text):
        self.alert = Alert(kind, text)
        self.sound = kind if kind in ("renege", "refused", "unknown-tag", "reader-lost") else None

    def _role(self, pad):
        """The role of reader pad ``pad`` (numbered from 1, as on the wire); None if unknown."""
        return self.pads[pad - 1] if 1 <= pad <= len(self.pads) else None

    def _pad_name(self, pad):
        role = self._role(pad)
        return f"pad {pad}" if role is None else "the centre pad" if role == "centre" else f"{role}'s pad"

    # -- applying actions ---------------------------------------------------------------

    def apply(self, action):
        """Apply, then journal; on a refusal or a failed write nothing changes. True if accepted."""
        m = self.match
        history = list(m.actions)
        proven = len(m.engine.book.proven)
        before = hand_open(m.engine), tuple(m.engine.score)
        try:
            m.apply(action)
        except Refused as e:
            self._alert("refused", self._refusal(action, str(e)))
            return False
        try:
            self.journal.append(action, m.seats)
        except JournalError as e:
            m.rebuild(history)  # not stored, so not accepted: the match is as it was
            self._alert("refused", str(e))
            return False
        self.cursor = 0
        self.alert = None
        self.result = None
        engine = m.engine
        new = engine.book.proven[proven:] if action.kind != "undo" else []
        if new:  # one card may prove several failures (T9: each is its own renege)
            r = new[-1]
            suit = f" {SUIT_SYMBOLS[r.suit]}" if r.suit is not None else ""
            tricks = ", ".join(str(x.trick) for x in new)
            self._alert("renege", f"{m.seats[r.seat]} failed to follow{suit} "
                                  f"(trick{'s' if len(new) > 1 else ''} {tricks})")
        if action.kind != "undo":
            self.result = result_words(m, before)
        if action.kind in ("upcard", "flip", "bid", "pass", "undo"):
            self._reset_scans_if_new_deal()
        return True

    def _refusal(self, action, reason):
        """Plain words for a refusal; a hidden action's card is never named."""
        if action.kind in HIDDEN_KINDS:
            return f"That card cannot be {HIDDEN_KINDS[action.kind]}"
        return reason[:1].upper() + reason[1:]

    def _reset_scans_if_new_deal(self):
        e = self.match.engine
        if e.phase in ("flip", "upcard", "bidding", "end") and not self._scanning_now():
            self.scans, self.scan_taps = {}, []

    # -- card taps ----------------------------------------------------------------------

    def _tag(self, pad, uid):
        if pad in self.conflicts:
            self._alert("refused", f"Two cards on {self._pad_name(pad)}: lift one")
            return
        card = self.deck.get(uid)
        if card is None:
            self._alert("unknown-tag", "Unknown card tag: not in the enrolled pack")
            return
        if self.match is None or self.menu is not None:
            self._alert("info", "Finish the menu first (Back to leave it)")
            return
        if card not in pack_for(self.match.game):
            self._alert("refused", f"{card_label(card)} is not in the {self.match.game} pack")
            return
        role = self._role(pad)
        if role is None:
            self._alert("refused", f"Pad {pad} is not in this box's [table] pads")
            return
        seat = None if role == "centre" else int(role[1:]) - 1
        if seat is not None and seat >= len(self.match.seats):
            seat = None  # a four-seat box playing towers: P3/P4 pads act as the centre
        self._card(seat, card)

    def _card(self, pad_seat, card):
        e = self.match.engine
        game = self.match.game
        if e.phase == "flip":
            self.apply(Action("flip", cards=(card,)))
            return
        if self._scanning_now() and pad_seat is not None:
            if self.scan_target(pad_seat):
                self._scan(pad_seat, card)
            else:
                waiting = [self.match.seats[s] for s in range(len(self.match.seats)) if self.scan_target(s)]
                self._alert("refused", f"{self.match.seats[pad_seat]}'s hand is scanned: "
                                       f"waiting for {', '.join(waiting)} to scan")
            return
        if game == "towers":
            self._towers_card(e, pad_seat, card)
        else:
            self._twentynine_card(e, pad_seat, card)

    def _towers_card(self, e, pad_seat, card):
        if e.phase == "upcard":
            self.apply(Action("upcard", cards=(card,)))
        elif e.phase == "trump2":  # name a suit by tapping any card of it
            self.apply(Action("name", value=card >> 3))
        elif e.phase == "trump1":
            self._alert("refused", f"{self.match.seats[e.to_act]}: accept or pass first (buttons)")
        elif e.phase == "play":
            if (e.discard_open and pad_seat == e.dealer and pad_seat != e.to_act):
                self.apply(Action("discard", cards=(card,)))
            elif self._in_turn(e, pad_seat):
                self.apply(Action("play", cards=(card,)))

    def _twentynine_card(self, e, pad_seat, card):
        if e.phase == "trump":
            if pad_seat is not None and pad_seat != e.bidder:
                self._alert("refused", f"Only {self.match.seats[e.bidder]} sets the trump card")
                return
            self.apply(Action("trump", cards=(card,)))
        elif e.phase == "play":
            if self._in_turn(e, pad_seat):
                self.apply(Action("play", cards=(card,)))
        else:
            self._alert("refused", "No card is wanted now: " + e.waiting_for())

    def _in_turn(self, e, pad_seat):
        if pad_seat is None or pad_seat == e.to_act:
            return True
        self._alert("refused", f"Out of turn: {self.match.seats[e.to_act]} to play")
        return False

    # -- deal scan (hidden: only counts are ever shown) ---------------------------------

    def scan_target(self, seat):
        """How many cards ``seat`` scans this hand, or 0 when its hand is known or played."""
        e = self.match.engine
        if self.match.game == "towers":
            return 0 if e.known[seat] is not None else e.hand_size
        if e.given[seat]:
            return 0
        return 7 if seat == e.bidder else 8

    def _scanning_now(self):
        if not self.deal_scan or self.match is None:
            return False
        e = self.match.engine
        if self.match.game == "towers":
            return e.phase == "upcard" and any(self.scan_target(s) for s in range(2))
        return (e.phase == "play" and not e.trick and e.trick_no == 0
                and any(self.scan_target(s) for s in range(4)))

    def _scan(self, seat, card):
        cards = self.scans.setdefault(seat, [])
        if card in cards:
            self._alert("refused", "That card is already scanned")
            return
        cards.append(card)
        self.scan_taps.append(seat)
        if len(cards) == self.scan_target(seat):
            hand = list(cards)
            if self.match.game == "twenty-nine" and seat == self.match.engine.bidder:
                hand.append(self.match.engine._trump_card)
            del self.scans[seat]
            self.scan_taps = [s for s in self.scan_taps if s != seat]
            self.apply(Action("hand", seat=seat, cards=tuple(hand)))

    # -- buttons ------------------------------------------------------------------------

    def _button(self, name, held):
        if held and name == "back":
            self.menu = None
            if self.scan_taps:  # a mis-tapped scan card is taken back before any action
                seat = self.scan_taps.pop()
                self.scans[seat].pop()
                self._alert("info", f"Scan: {self.match.seats[seat]}'s last card taken back")
            elif self.match is not None:
                self.apply(Action("undo"))
            return
        if held and name == "ok":
            self._dismiss()
            self._main_menu()
            return
        if self.menu is None and self.alert is not None and name in ("ok", "back"):
            if self._dismiss():
                return
        if self.menu is not None:
            title, items, sel = self.menu
            if name == "left":
                self.menu = (title, items, (sel - 1) % len(items))
            elif name == "right":
                self.menu = (title, items, (sel + 1) % len(items))
            elif name == "back" and self.match is not None:
                self.menu = None
            elif name == "ok":
                self.menu = None
                items[sel][1]()
            return
        if self.match is None:
            return
        if self.result is not None:  # the hand's result is on the screen: any press moves on
            self.result = None
            return
        options = choices_for(self)
        if not options:
            return
        if name == "left":
            self.cursor = (self.cursor - 1) % len(options)
        elif name == "right":
            self.cursor = (self.cursor + 1) % len(options)
        elif name == "ok":
            self.apply(options[self.cursor % len(options)][1])

    def _dismiss(self):
        """Clear the alert a person has seen; the reader-lost alert stays until it reconnects."""
        if self.alert is not None and self.alert.kind != "reader-lost":
            self.alert = None
            return True
        return False

    # -- menus ----------------------------------------------------------------------------

    def _main_menu(self):
        items = []
        m = self.match
        if m is not None:
            e = m.engine
            items.append(("Undo last", lambda: self.apply(Action("undo"))))
            sides = [s for s in range(2) if e.book.claimable(s)]
            for side in sides:
                who = m.seats[side] if m.game == "towers" else f"{m.seats[side]}+{m.seats[side + 2]}"
                items.append((f"Claim: {who}", lambda s=side: self.apply(Action("claim", seat=s))))
            for seat in range(len(m.seats)):
                items.append((f"Accuse {m.seats[seat]}", lambda s=seat: self.apply(Action("accuse", seat=s))))
            if m.game == "twenty-nine":
                if e.phase == "play" and e.can_finish():
                    items.append(("Finish round", lambda: self.apply(Action("finish"))))
                if m.options.get("double") == "on" and e.phase == "play" and not e.trick and not e.trick_no:
                    items.append(("Double", lambda: self.apply(Action("double"))))
                    items.append(("Redouble", lambda: self.apply(Action("redouble"))))
                if m.options.get("pair") == "on" and e.revealed and e.pair_seat is None:
                    for seat in range(4):
                        items.append((f"Pair {m.seats[seat]}",
                                      lambda s=seat: self.apply(Action("pair", seat=s))))
            items.append((f"Deal scan: {'on' if self.deal_scan else 'off'}", self._toggle_scan))
        items.append(("New match", self._game_menu if m is None or m.engine.phase == "over"
                      else self._confirm_new))
        self.menu = ("Menu", items, 0)

    def _confirm_new(self):
        """Abandoning a match in play takes a second, deliberate OK."""
        self.menu = ("End this match?", [("No, play on", lambda: None), ("Yes, new match", self._game_menu)], 0)

    def _toggle_scan(self):
        self.deal_scan = not self.deal_scan
        self.scans, self.scan_taps = {}, []

    def _game_menu(self):
        items = [("Towers", lambda: self.new_match("towers")),
                 ("Twenty-Nine", lambda: self._options_menu(dict(self.default_options)))]
        sel = 1 if self.default_game == "twenty-nine" else 0
        self.menu = ("New match", items, sel)

    def _options_menu(self, options, sel=0):
        """Twenty-Nine house rules for the new match: OK on a rule switches it, then Start."""
        items = [("Start Twenty-Nine", lambda: self.new_match("twenty-nine", options))]
        for i, (key, values) in enumerate(OPTIONS.items(), 1):
            value = str(options.get(key, values[0]))
            nxt = values[(values.index(value) + 1) % len(values)] if value in values else values[0]
            items.append((f"{key}: {value}",
                          lambda k=key, v=nxt, i=i: self._options_menu({**options, k: v}, i)))
        self.menu = ("House rules", items, sel)

    def new_match(self, game, options=None):
        # only the rules switched away from their defaults are recorded (scenario `option` lines)
        options = {k: str(v) for k, v in (options or {}).items()
                   if game == "twenty-nine" and str(v) != OPTIONS[k][0]}
        match = Match(game, options=options)
        try:
            self.journal.new_match(game, match.seats, match.options)
        except JournalError as e:
            if self.match is None:
                self._game_menu()
            self._alert("refused", str(e))
            return
        self.match = match
        self.scans, self.scan_taps = {}, []
        self.cursor = 0
        self.result = None
