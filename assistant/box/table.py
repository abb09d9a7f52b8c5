"""The table: turns card taps and button presses into scenario actions, and the match into a View.

It sits between the adapters and the rules. It knows what the box waits for
(the flip, the up-card, a bid, the next card), applies one action at a time
through the :class:`Match`, writes each accepted action to the journal *before*
the screen may change, and builds the :class:`View` (public information only).

Buttons: left/right move the choice shown on the screen, OK confirms it (where
a choice would raise the stakes or reveal something, the harmless one is shown
first and OK on it does nothing), Back clears any alert; hold OK for the menu
("Close" first; claim, accuse, finish, double, pair, deal scan, new match), hold
Back to undo the last action. OK opens the menu at the match end. What a short
press acts on is the top of the screen's mode stack (:mod:`assistant.box.modes`:
menu, alert, a pair shown, match end, result, choices); the menus are
:mod:`assistant.box.table_menus`.

Every alert says why it is up (``Alert.cause``: a refusal code of the rules, or one of
:data:`assistant.box.view.CAUSES`). Deal scan is :mod:`assistant.box.deal_scan`.

What differs per game (prompts, choices, what a tap means, the words for
results) lives in :mod:`assistant.box.table_towers` and :mod:`assistant.box.table_twentynine`.

Pads (``pads``): one role per reader, in the wire's pad order (pad 1 first),
"P1".."P4" for a seat's pad or "centre".
A card tapped on the pad of the seat to act, or on the centre pad, is that
seat's play; on another seat's pad it is refused as out of turn.
"""
from assistant.rules.cards import card_label, pack_for
from assistant.hw.events import ButtonPressed, PadCleared, PadConflict, ReaderStatus, TagArrived, TagRemoved
from assistant.box.journal import JournalError
from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.rules.scenario import GAME_OPTIONS, Action
from assistant.box import modes, table_menus
from assistant.box.deal_scan import SCANNED_MATCH, DealScan
from assistant.box.deal_scan import SETTING as SCAN
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
        self.default_scan = deal_scan  # the config's (or sim --deal-scan's) switch, for a new match
        on = deal_scan if stored is None else stored == "on"
        # a match begun with deal scan on goes on with it, whatever the config says now: started
        # again without --deal-scan, a scan half done was dropped and the hands went unscanned
        mid = str(getattr(journal, "match_id", None))
        self.scan_kept = match is not None and stored is None and not on and (
            _stored_setting(journal, SCANNED_MATCH) == mid or  # or taps kept for this very hand (a
            # journal of a version that kept no SCANNED_MATCH): a scan was under way, so it was on
            (_stored_setting(journal, SCAN) or "").split()[:2] == [mid, str(match.engine.hand_no)])
        self.scan = DealScan(self, on or self.scan_kept)
        self.match = match
        self.alert = None          # an Alert (kind, words, cause) over the screen, until cleared
        self._lying = None         # the pad of the card the "card-lying" alert is about
        self.menu = None           # a modes.MenuMode: (title, ((label, callback), ...), selected)
        self.cursor = 0            # selected choice of the phase's choices
        self.conflicts = set()
        self.reader_ok = True
        self.result = None         # lines for the hand just scored (or re-scored), until a press
        self.note = None           # one line on what just happened (undo, flip, accusation...)
        self.last_trick = None     # (cards, winner, number): the completed trick, until a press
        self.showing = None        # a pair being shown on the reader: (seat, cards still to tap)
        if self.match is None:
            table_menus.game_menu(self)
        else:
            self.scan.restore()  # the cards scanned before a restart, as the journal kept them
            if self.scan.on and not self.scan_kept:
                self._mark_scanned_match()

    @property
    def desk(self):
        return desk(self.match.game)

    @property
    def deal_scan(self):
        """The menu's deal-scan switch."""
        return self.scan.on

    @deal_scan.setter
    def deal_scan(self, on):
        self.scan.on = on
        self.scan_kept = False  # switched from the menu: kept as the menu's

    @property
    def alert_cause(self):
        """Why the alert is up (see ``Alert.cause``), or None without an alert."""
        return None if self.alert is None else self.alert.cause

    # -- events -----------------------------------------------------------------------

    def handle(self, event):
        """Apply one adapter event; returns the View to show (the box itself calls ``take`` and
        has the view worked out on its render thread)."""
        self.take(event)
        return self.view()

    def take(self, event):
        """Apply one adapter event (its View is ``view()``)."""
        if isinstance(event, TagArrived):
            if event.inferred:  # found lying there (or its tap was garbled): never guess a play
                self.set_alert("info", f"A card is lying on {self._pad_name(event.pad)}: "
                                       "lift it, and tap it again if it was meant", "card-lying")
                self._lying = event.pad
            else:
                self._tag(event.pad, event.uid)
        elif isinstance(event, TagRemoved):  # the card found lying there lifted: its alert has said all
            if self.alert_cause == "card-lying" and event.pad == self._lying:
                self.alert = None
        elif isinstance(event, ButtonPressed):
            self._button(event.name, event.held)
        elif isinstance(event, PadConflict):
            self.conflicts.add(event.pad)
            self.set_alert("refused", f"Two cards on {self._pad_name(event.pad)}: lift one", "pad-conflict")
        elif isinstance(event, PadCleared):
            self.conflicts.discard(event.pad)
            if self.alert_cause == "pad-conflict":
                self.alert = None
        elif isinstance(event, ReaderStatus):
            self.reader_ok = event.connected
            if not event.connected:
                self.set_alert("reader-lost", event.reason or "Card reader lost: reconnecting", "reader-lost")
            elif self.alert_cause == "reader-lost":
                self.alert = None

    def view(self):
        return build_view(self)

    def set_alert(self, kind, text, cause):
        """Put up an alert: its ``kind`` (how it looks and sounds), words, and why it is up."""
        self.alert = Alert(kind, text, cause)

    def alert_refused(self, text, cause):
        self.set_alert("refused", text, cause)

    def _role(self, pad):
        """The role of reader pad ``pad`` (numbered from 1, as on the wire); None if unknown."""
        return self.pads[pad - 1] if 1 <= pad <= len(self.pads) else None

    def _pad_name(self, pad):
        role = self._role(pad)
        return f"pad {pad}" if role is None else "the centre pad" if role == "centre" else f"{role}'s pad"

    # -- applying actions ---------------------------------------------------------------

    def apply(self, action, at_once=False, setting=None):
        """Apply, then journal; on a refusal or a failed write nothing changes. True if accepted.
        The box may store the action after the event (while the frame is drawn); ``at_once``:
        stored before this returns, for a caller that acts on the answer (a scanned hand);
        ``setting``: a (key, value) table setting stored in the action's own transaction."""
        m = self.match
        history = list(m.actions)
        e = m.engine
        proven = len(e.book.proven)
        before = view_before(e)
        actor, trick, trick_no = e.to_act, list(e.trick), self.desk.tricks_done(e)
        try:
            m.apply(action)
        except Refused as err:
            self._refused(action, err)
            return False
        try:
            if setting is None:
                self.journal.append(action, m.seats)
            else:
                self.journal.append(action, m.seats, setting)
            if at_once:
                self.journal.sync()
        except JournalError as err:
            m.rebuild(history)  # not stored, so not accepted: the match is as it was
            self.set_alert("refused", str(err), "journal")
            return False
        self.cursor = 0
        self.alert = None
        self.result = None
        self.note = None
        self.last_trick = None
        self.showing = None
        e = m.engine
        if action.kind == "undo":
            self.note = undone_words(history[-1], e.to_act, m.seats, self.desk)
        else:
            new = e.book.proven[proven:]
            if new:  # one card may prove several failures (T9: each is its own renege)
                self.set_alert("renege", self.desk.renege_words(self, new), "renege-proven")
            self.result = result_lines(self, before, action)
            if action.kind == "play" and self.result is None and trick and not e.trick:
                self.last_trick = (tuple(trick) + ((actor, action.cards[0]),), e.to_act, trick_no + 1)
            if action.kind == "accuse" and self.result is None and not new:  # pending, or no effect
                self.set_alert("info", accusation_words(self, before, action.seat), "accusation")
            self.note = self.desk.action_note(self, action, actor)
            if action.kind == "flip" and e.dealer is not None:
                self.note = f"{card_label(action.cards[-1])} to {m.seats[e.dealer]}: {m.seats[e.dealer]} deals"
        if action.kind in ("upcard", "flip", "bid", "pass", "undo"):
            self.scan.clear_unless_active()
        return True

    def _refused(self, action, err):
        """Plain words for a refusal. A hidden action's card is never named, and its cause is the
        same whatever the rules' reason, which could hint at the card."""
        if action.kind in HIDDEN_KINDS:
            self.alert_refused(f"That card cannot be {HIDDEN_KINDS[action.kind]}", "hidden-card")
        else:
            reason = str(err)
            self.alert_refused(reason[:1].upper() + reason[1:], err.code)

    # -- card taps ----------------------------------------------------------------------

    def _tag(self, pad, uid):
        if pad in self.conflicts:
            self.alert_refused(f"Two cards on {self._pad_name(pad)}: lift one", "pad-conflict")
            return
        name = self.players.get(uid.upper())
        if name is not None:  # a player tag: a seat's name at a new match, never a card
            table_menus.player_tag(self, name)
            return
        card = self.deck.get(uid)
        if card is None:
            self.set_alert("unknown-tag", "Unknown card tag: not in the enrolled pack", "unknown-tag")
            return
        if self.match is None:  # a fresh box: its menu starts the first match, Back leaves nothing
            self.set_alert("info", "No match yet: choose with Left/Right, then OK", "menu-first")
            return
        if self.menu is not None:
            self.set_alert("info", "Finish the menu first (Back to leave it)", "menu-first")
            return
        if card not in pack_for(self.match.game):
            self.alert_refused(f"{card_label(card)} is not in the {self.match.game} pack", "not-in-pack")
            return
        role = self._role(pad)
        if role is None:
            self.alert_refused(f"Pad {pad} is not in this box's [table] pads", "unknown-pad")
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
        elif self.showing is not None:
            self.desk.show_tap(self, pad_seat, card)
        elif self.scan.active():
            self.scan.tap(pad_seat, card)
        else:
            self.desk.tap(self, pad_seat, card)

    def in_turn(self, e, pad_seat):
        if pad_seat is None or pad_seat == e.to_act:
            return True
        self.alert_refused(f"Out of turn: {self.match.seats[e.to_act]} to play", "not-your-turn")
        return False

    def choices(self):
        """The (label, Action or None) pairs under the buttons now (None: the harmless choice)."""
        return choices_for(self)

    def mode_stack(self):
        """The screen's mode stack, top first (:func:`assistant.box.modes.stack`)."""
        return modes.stack(self)

    def main_menu(self):
        table_menus.main_menu(self)

    def leave_showing(self):
        """Back while a pair is being shown on the reader: it is not declared."""
        self.showing = None
        self.note = "Pair not declared"

    def choose_game(self):
        """The choice of game again (Back on a fresh box's house rules, seats or menu)."""
        self.seating = None
        table_menus.game_menu(self)

    # -- buttons ------------------------------------------------------------------------

    def _button(self, name, held):
        if held and self.showing is not None:  # a pair not yet shown is not declared
            if name == "back":  # hold Back leaves the showing first, as it takes back a scan card
                return self.leave_showing()
            self.showing = None
        if held and name == "back":  # undo, or first take back a mis-tapped scan card
            if self.match is None:
                return  # the new-match menu stays: there is no table to go back to
            self.menu = None
            if not self.scan.take_back():
                self.apply(Action("undo"))
        elif held and name == "ok":
            self.alert = None
            self.main_menu()
        else:
            modes.press(self, name)

    def _mark_scanned_match(self):
        """Keep in the journal that the match in play is played with deal scan on (not said if
        the journal cannot keep it: it refuses the match's actions too, and says so)."""
        try:
            if _stored_setting(self.journal, SCANNED_MATCH) != str(self.journal.match_id):
                self.journal.set_setting(SCANNED_MATCH, self.journal.match_id)
        except Exception:  # a read-only or failing journal: the config's switch stands at a restart
            pass

    def new_match(self, game, options=None, seats=None):
        if seats is None and self.players:  # players' tags: each seat taps one first
            table_menus.seat_menu(self, game, options, [])
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
                table_menus.game_menu(self)
            self.set_alert("refused", str(e), "journal")
            return
        self.match = match
        self.default_game = game  # the next new match offers this game and its house rules again
        if GAME_OPTIONS[game]:
            self.default_options = dict(options)
        self.scan.clear()
        if self.scan_kept:  # the match that kept deal scan on is over: the config's switch again
            self.scan_kept, self.scan.on = False, self.default_scan
        if self.scan.on:
            self._mark_scanned_match()
        self.cursor = 0
        self.result = self.last_trick = None
        self.note = None
        self.showing = None
        if self.desk.rules_in_play(match.options):
            table_menus.show_rules(self)


def _stored_setting(journal, key):
    try:
        return journal.setting(key)
    except Exception:  # an older or failing journal: the config's value stands
        return None
