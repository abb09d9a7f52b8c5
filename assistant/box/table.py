"""The table: turns card taps and button presses into scenario actions, and the match into a View.

It sits between the adapters and the rules. It knows what the box waits for
(the flip, the up-card, a bid, the next card), applies one action at a time
through the :class:`Match`, writes each accepted action to the journal *before*
the screen may change, and builds the :class:`View` (public information only).

Buttons: left/right move the choice shown on the screen, OK confirms it (where
a choice would raise the stakes or reveal something, the harmless one is shown
first and OK on it does nothing), Back clears any alert; hold OK for the menu
("Close" first; claim, accuse, finish, double, pair, deal scan, new match), hold
Back to undo the last action. OK opens the menu at the match end.

What differs per game (prompts, choices, what a tap means, the words for
results) lives in :mod:`assistant.box.table_towers` and :mod:`assistant.box.table_twentynine`.

Pads (``pads``): one role per reader, in the wire's pad order (pad 1 first),
"P1".."P4" for a seat's pad or "centre".
A card tapped on the pad of the seat to act, or on the centre pad, is that
seat's play; on another seat's pad it is refused as out of turn.
"""
from assistant.rules.cards import card_label, pack_for
from assistant.hw.events import ButtonPressed, PadCleared, PadConflict, ReaderStatus, TagArrived
from assistant.box.journal import JournalError
from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.rules.scenario import GAME_OPTIONS, GAMES, OPTIONS, Action
from assistant.box.table_view import (HIDDEN_KINDS, accusation_words, build_view, choices_for, desk, result_lines,
                         undone_words)
from assistant.box.table_view import before as view_before
from assistant.box.view import Alert


class Table:
    """One box's table: the match in play plus what the screen is doing."""

    def __init__(self, journal, deck, pads=("P1", "P2", "centre"), game="towers", options=None,
                 deal_scan=False, match=None, players=None):
        self.journal = journal
        self.deck = dict(deck)
        self.players = {uid.upper(): name for uid, name in (players or {}).items()}  # player tags
        self.seating = None        # (game, options, names so far) while seats tap their player tags
        self.pads = tuple(pads)
        self.default_game = game
        self.default_options = dict(options or {})
        stored = _stored_setting(journal, "deal_scan")  # switched from the menu: kept over a restart
        self.deal_scan = deal_scan if stored is None else stored == "on"
        self.match = match
        self.alert = None
        self.alert_cause = None    # why the alert is up: a Refused code, "pad-conflict", or None
        self.sound = None          # "renege" | "refused" | None: for the alert adapter
        self.menu = None           # (title, [(label, callback)], selected)
        self.cursor = 0            # selected choice of the phase's choices
        self.scans = {}            # seat -> cards tapped in deal-scan mode (hidden)
        self.scan_taps = []        # seats in the order their scan cards were tapped (for Back)
        self.conflicts = set()
        self.reader_ok = True
        self.result = None         # lines for the hand just scored (or re-scored), until a press
        self.note = None           # one line on what just happened (undo, flip, accusation...)
        self.last_trick = None     # (cards, winner, number): the completed trick, until a press
        self.callers = set()       # (hand, trick, seat) of each call for trump (N5's words)
        if self.match is None:
            self._game_menu()

    @property
    def desk(self):
        return desk(self.match.game)

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
            self._alert("refused", f"Two cards on {self._pad_name(event.pad)}: lift one", "pad-conflict")
        elif isinstance(event, PadCleared):
            self.conflicts.discard(event.pad)
            if self.alert and self.alert_cause == "pad-conflict":
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

    def _alert(self, kind, text, cause=None):
        self.alert = Alert(kind, text)
        self.alert_cause = cause
        self.sound = kind if kind in ("renege", "refused", "unknown-tag", "reader-lost") else None

    def alert_refused(self, text):
        self._alert("refused", text)

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
        e = m.engine
        proven = len(e.book.proven)
        before = view_before(e)
        actor, trick, trick_no = e.to_act, list(e.trick), self.desk.tricks_done(e)
        try:
            m.apply(action)
        except Refused as err:
            self._alert("refused", self._refusal(action, str(err)), err.code)
            return False
        try:
            self.journal.append(action, m.seats)
        except JournalError as err:
            m.rebuild(history)  # not stored, so not accepted: the match is as it was
            self._alert("refused", str(err))
            return False
        self.cursor = 0
        self.alert = None
        self.result = None
        self.note = None
        self.last_trick = None
        e = m.engine
        if action.kind == "undo":
            self.note = undone_words(history[-1], e.to_act, m.seats)
        else:
            new = e.book.proven[proven:]
            if action.kind == "call":
                self.callers.add((e.hand_no, trick_no + 1, actor))
            if new:  # one card may prove several failures (T9: each is its own renege)
                self._alert("renege", self.desk.renege_words(self, new))
            self.result = result_lines(self, before, action)
            if action.kind == "play" and self.result is None and trick and not e.trick:
                self.last_trick = (tuple(trick) + ((actor, action.cards[0]),), e.to_act, trick_no + 1)
            if action.kind == "accuse" and self.result is None and not new:  # pending, or no effect
                self._alert("info", accusation_words(self, before, action.seat))
            self.note = self.desk.action_note(self, action, actor)
            if action.kind == "flip" and e.dealer is not None:
                self.note = f"{card_label(action.cards[-1])} to {m.seats[e.dealer]}: {m.seats[e.dealer]} deals"
        if action.kind in ("upcard", "flip", "bid", "pass", "undo"):
            self._reset_scans_if_new_deal()
        return True

    def _refusal(self, action, reason):
        """Plain words for a refusal; a hidden action's card is never named."""
        if action.kind in HIDDEN_KINDS:
            return f"That card cannot be {HIDDEN_KINDS[action.kind]}"
        return reason[:1].upper() + reason[1:]

    def _reset_scans_if_new_deal(self):
        if not self.scanning():
            self.scans, self.scan_taps = {}, []

    # -- card taps ----------------------------------------------------------------------

    def _tag(self, pad, uid):
        if pad in self.conflicts:
            self._alert("refused", f"Two cards on {self._pad_name(pad)}: lift one", "pad-conflict")
            return
        name = self.players.get(uid.upper())
        if name is not None:  # a player tag: a seat's name at a new match, never a card
            self._player_tag(name)
            return
        card = self.deck.get(uid)
        if card is None:
            self._alert("unknown-tag", "Unknown card tag: not in the enrolled pack")
            return
        if self.match is None or self.menu is not None:
            self._alert("info", "Finish the menu first (Back to leave it)", "menu-first")
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
        self.note = None
        self.last_trick = None
        if e.phase == "flip":
            self.apply(Action("flip", cards=(card,)))
            return
        if self.scanning():
            if pad_seat is None:  # the up-card (or a lead) on the centre pad: ask before ending the scan
                self._confirm_end_scan(card)
            elif self.scan_target(pad_seat):
                self._scan(pad_seat, card)
            else:
                waiting = [self.match.seats[s] for s in range(len(self.match.seats)) if self.scan_target(s)]
                self._alert("refused", f"{self.match.seats[pad_seat]}'s hand is scanned: "
                                       f"waiting for {', '.join(waiting)} to scan")
            return
        self.desk.tap(self, pad_seat, card)

    def in_turn(self, e, pad_seat):
        if pad_seat is None or pad_seat == e.to_act:
            return True
        self._alert("refused", f"Out of turn: {self.match.seats[e.to_act]} to play")
        return False

    # -- deal scan (hidden: only counts are ever shown) ---------------------------------

    def scan_target(self, seat):
        """How many cards ``seat`` scans this hand, or 0 when its hand is known or played."""
        return self.desk.scan_target(self.match.engine, seat)

    def scanning(self):
        """Deal scan is on and some hand is still to be scanned in this phase."""
        if not self.deal_scan or self.match is None:
            return False
        e = self.match.engine
        return self.desk.scan_window(e) and any(self.scan_target(s) for s in range(len(self.match.seats)))

    _scanning_now = scanning

    def scan_prompt(self):
        """Lines of scan counts, two seats a line: "Scan P1 3/8 P2 0/7" (counts only, no card)."""
        seats = self.match.seats
        counts = [f"{name} {len(self.scans.get(s, []))}/{n}"
                  for s, name in enumerate(seats) if (n := self.scan_target(s))]
        return ["Scan " + " ".join(counts[:2])] + ([" ".join(counts[2:])] if counts[2:] else [])

    def _scan(self, seat, card):
        if card in self.scans.get(seat, ()):
            self._alert("refused", "That card is already scanned")
            return
        problem = self.desk.scan_problem(self, seat, card)
        if problem:  # refused at the tap that makes the hand impossible; nothing else is lost
            self._alert("refused", problem)
            return
        cards = self.scans.setdefault(seat, [])
        cards.append(card)
        self.scan_taps.append(seat)
        if len(cards) == self.scan_target(seat):
            hand = self.desk.hand_with_hidden(self.match.engine, seat, cards)
            if self.apply(Action("hand", seat=seat, cards=hand)):
                del self.scans[seat]
                self.scan_taps = [s for s in self.scan_taps if s != seat]
            else:  # only the last card is taken back; the reason is in the alert (no card named)
                cards.pop()
                self.scan_taps.pop()
                self.alert = Alert("refused", f"{self.match.seats[seat]}'s hand cannot be complete "
                                              "with that card: tap your last card again")

    def _confirm_end_scan(self, card):
        e = self.match.engine
        waiting = [self.match.seats[s] for s in range(len(self.match.seats)) if self.scan_target(s)]
        what = self.desk.centre_tap_words(e, self.match.seats)
        self.alert = None  # the question takes the screen
        self.menu = (f"{', '.join(waiting)} not scanned", [
            ("Keep scanning", lambda: None),
            (f"End scan: {card_label(card)} {what}", lambda: self._end_scan(card))], 0)

    def _end_scan(self, card):
        saved, self.deal_scan = self.deal_scan, False
        try:
            self.desk.tap(self, None, card)
        finally:
            self.deal_scan = saved
        if not self.scanning():
            self.scans, self.scan_taps = {}, []

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
            self._dismiss()  # Back (or OK) clears any alert; nothing else happens on that press
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
            if self.menu is None and self.alert_cause == "menu-first":
                self._dismiss()  # the menu is left: "finish the menu first" is stale
            return
        if self.match is None:
            return
        if self.match.engine.phase == "over":  # the match end: OK opens the menu (new match)
            if name == "ok":
                self._main_menu()
            return
        self.note = self.last_trick = None  # read: a note or the last trick goes at any press
        if self.result is not None:  # the hand's result hides the choices: a press only moves on
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
            action = options[self.cursor % len(options)][1]
            if action is not None:  # the harmless choice does nothing
                self.apply(action)

    def _dismiss(self):
        """Clear the alert a person has seen (the reader-lost one too: the header keeps a mark)."""
        if self.alert is not None:
            self.alert = None
            return True
        return False

    # -- menus ----------------------------------------------------------------------------

    def _main_menu(self):
        """Hold OK. "Close" comes first, so a stray OK changes nothing."""
        items = [("Close", lambda: None)]
        m = self.match
        if m is not None:
            e = m.engine
            d = self.desk
            over = e.phase == "over"
            if m.actions:
                items.append(("Undo last", lambda: self.apply(Action("undo"))))
            for side in (0, 1):
                for r in e.book.claimable(side)[-1:]:
                    items.append((f"Claim: {m.seats[r.seat]}'s renege",
                                  lambda s=side: self.apply(Action("claim", seat=s))))
            if not over:  # the game's own items (finish, double, pair) before the accusations
                items += d.menu_items(self)
            if e.hand_no:
                for seat in range(len(m.seats)):
                    # at the match end only an accusation that can still change the result is offered
                    if not over or e.book.unpenalised_against(seat):
                        items.append((f"Accuse {m.seats[seat]}",
                                      lambda s=seat: self.apply(Action("accuse", seat=s))))
            rules = d.rules_in_play(m.options)
            if rules:
                items.append(("House rules: " + ", ".join(rules), self._show_rules))
            items.append((f"Deal scan: {'on' if self.deal_scan else 'off'}", self._toggle_scan))
        items.append(("New match", self._game_menu if m is None or m.engine.phase == "over"
                      else self._confirm_new))
        self.menu = ("Menu", items, 0)

    def _show_rules(self):
        self._alert("info", "House rules: " + ", ".join(self.desk.rules_in_play(self.match.options)))

    def _confirm_new(self):
        """Abandoning a match in play takes a second, deliberate OK."""
        self.menu = ("End this match?", [("No, play on", lambda: None), ("Yes, new match", self._game_menu)], 0)

    def _toggle_scan(self):
        """Deal scan on or off, kept in the journal so that a restart keeps it (issue 9 item 7)."""
        on = not self.deal_scan
        try:
            self.journal.set_setting("deal_scan", "on" if on else "off")
        except JournalError as e:
            self._alert("refused", str(e))
            return
        self.deal_scan = on
        self.scans, self.scan_taps = {}, []
        words = "Deal scan on: players tap their hands on their own pads" if on else "Deal scan off"
        if self.match is not None and on and not self.scanning():
            words += ", from the next deal"
        self._alert("info", words)

    def _game_menu(self):
        items = [("Towers", lambda: self.new_match("towers")),
                 ("Twenty-Nine", lambda: self._options_menu(dict(self.default_options)))]
        sel = 1 if self.default_game == "twenty-nine" else 0
        self.menu = ("New match", items, sel)

    def _options_menu(self, options, sel=0):
        """Twenty-Nine house rules for the new match: OK on a rule switches it, then Start."""
        label = desk("twenty-nine").option_label
        items = [("Start Twenty-Nine", lambda: self.new_match("twenty-nine", options))]
        for i, (key, values) in enumerate(OPTIONS.items(), 1):
            value = str(options.get(key, values[0]))
            nxt = values[(values.index(value) + 1) % len(values)] if value in values else values[0]
            items.append((label(key, value),
                          lambda k=key, v=nxt, i=i: self._options_menu({**options, k: v}, i)))
        self.menu = ("House rules", items, sel)

    def _player_tag(self, name):
        if self.seating is None or self.menu is None:
            self._alert("refused", f"That is {name}'s player tag, not a card")
            return
        game, options, names = self.seating
        if name in names:
            self._alert("refused", f"{name} already has a seat")
            return
        self._seat_menu(game, options, names + [name])

    def _seat_menu(self, game, options, names):
        """Each seat in turn taps a player tag; OK seats a guest, who keeps the seat's name."""
        seat = len(names)
        if seat == GAMES[game]:
            self.seating = None
            self.menu = None
            self.new_match(game, options, tuple(names))
            return
        guest = f"P{seat + 1}"
        self.seating = (game, options, names)
        self.menu = (f"{guest}: tap player tag", [("Guest", lambda: self._seat_menu(game, options, names + [guest]))], 0)

    def new_match(self, game, options=None, seats=None):
        if seats is None and self.players:  # players' tags: each seat taps one first
            self._seat_menu(game, options, [])
            return
        self.seating = None
        # only the rules switched away from their defaults are recorded (scenario `option` lines)
        allowed = GAME_OPTIONS[game]
        options = {k: str(v) for k, v in (options or {}).items() if k in allowed and str(v) != allowed[k][0]}
        match = Match(game, seats, options=options)  # seats: names, e.g. the club's players
        try:
            self.journal.new_match(game, match.seats, match.options)
        except JournalError as e:
            if self.match is None:
                self._game_menu()
            self._alert("refused", str(e))
            return
        self.match = match
        self.default_game = game  # the next new match offers this game and its house rules again
        if GAME_OPTIONS[game]:
            self.default_options = dict(options)
        self.scans, self.scan_taps = {}, []
        self.cursor = 0
        self.result = self.last_trick = None
        self.note = None
        self.callers = set()
        if self.desk.rules_in_play(match.options):
            self._show_rules()


def _stored_setting(journal, key):
    try:
        return journal.setting(key)
    except Exception:  # an older or failing journal: the config's value stands
        return None
