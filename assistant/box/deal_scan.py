"""Deal scan: after the deal each player taps their hand on their own pad, so that the box knows
the hands and refuses a renege at the card that makes it (issue 9).

The scanned cards are hidden: until a seat's hand is complete they are kept here and in the
journal's ``scan`` setting (written before the screen counts the card, so a power cut loses no
tap: a restart takes the scan up where it was), then go to the journal as a ``hand`` line; a
screen only ever shows counts ("Scan P1 3/8 P2 0/7"),
and a refusal never names a card. What differs per game (how many cards a seat scans,
when hands are scanned, which card cannot be a seat's, the bidder's face-down card) is
asked of the per-game desk module (:mod:`assistant.box.table_towers`,
:mod:`assistant.box.table_twentynine`).

The journal is the one truth for hold Back too: the setting stored with a hand line (in the
same transaction) ends with ``<seat>:hand`` when the card that completed that hand is the last
scanned card, so after a restart hold Back still takes back only that card; taking it back
stores the ``undo`` line and the hand's other taps in one transaction (a power cut keeps both or
neither: the card never comes back, the hand's other cards are never lost).
"""
from assistant.rules.cards import CardError, card_label, card_name, parse_card
from assistant.rules.scenario import Action
from assistant.box.journal import JournalError
from assistant.box.modes import MenuMode

SETTING = "scan"  # "<match id> <hand number> <seat>:<card> ... [<seat>:hand]", the taps in order
HAND = "hand"  # the last word "<seat>:hand": that seat's hand line holds the last scanned card
SCANNED_MATCH = "deal_scan_match"  # the match played with deal scan on (its id): it goes on with it


class DealScan:
    """The hands being scanned at one table. ``on`` is the menu's switch (kept in the journal)."""

    def __init__(self, table, on):
        self.table = table
        self.on = on
        self.cards = {}    # seat -> the cards tapped so far (hidden)
        self.taps = []     # seats in the order their cards were tapped (hold Back takes one back)
        self.completed = None  # the seat whose hand line (the match's last action) holds the last scanned card

    def target(self, seat):
        """How many cards ``seat`` scans this hand, or 0 when its hand is known or played, or the
        seat has no pad of its own to scan on (P3 and P4 on a box with P1, P2 and centre)."""
        t = self.table
        if f"P{seat + 1}" not in t.pads:
            return 0
        return t.desk.scan_target(t.match.engine, seat)

    def active(self):
        """Deal scan is on and some hand is still to be scanned in this phase."""
        m = self.table.match
        if not self.on or m is None:
            return False
        return self.table.desk.scan_window(m.engine) and any(self.target(s) for s in range(len(m.seats)))

    def waiting(self):
        """The names of the seats still to scan."""
        seats = self.table.match.seats
        return [seats[s] for s in range(len(seats)) if self.target(s)]

    def prompt(self):
        """Lines of scan counts, two seats a line: "Scan P1 3/8 P2 0/7" (counts only, no card)."""
        seats = self.table.match.seats
        counts = [f"{name} {len(self.cards.get(s, []))}/{n}"
                  for s, name in enumerate(seats) if (n := self.target(s))]
        return ["Scan " + " ".join(counts[:2])] + ([" ".join(counts[2:])] if counts[2:] else [])

    def clear(self):
        if self.taps or self.completed is not None:
            self.cards, self.taps, self.completed = {}, [], None
            self._forget_quietly()

    # -- kept in the journal -------------------------------------------------------------

    def _stored(self, cards, taps, completed):
        """The journal's line for these taps and the seat whose hand line holds the last scanned
        card (None: no hand line does), or "" for none."""
        if not taps and completed is None:
            return ""
        t = self.table
        done = {}
        words = []
        for seat in taps:
            words.append(f"{seat}:{card_name(cards[seat][done.get(seat, 0)])}")
            done[seat] = done.get(seat, 0) + 1
        if completed is not None:
            words.append(f"{completed}:{HAND}")
        return f"{t.journal.match_id} {t.match.engine.hand_no} " + " ".join(words)

    def _save(self):
        """Write the taps to the journal; JournalError if it cannot (the caller takes the tap back)."""
        self.table.journal.set_setting(SETTING, self._stored(self.cards, self.taps, self.completed))

    def restore(self):
        """After a restart: the taps of this match's hand the journal kept, each checked again as
        if tapped now (a stale or damaged line restores nothing it should not), and whether the
        last scanned card is in the hand line the match ends with. Reads only."""
        t = self.table
        try:
            words = (t.journal.setting(SETTING) or "").split()
        except Exception:  # an older or failing journal: no scan to take up
            return
        if len(words) < 3 or words[:2] != [str(t.journal.match_id), str(t.match.engine.hand_no)]:
            return
        seat, _, last = words[-1].partition(":")
        if last == HAND:
            words.pop()
            m = t.match
            if self.on and m.actions and m.actions[-1].kind == "hand" and str(m.actions[-1].seat) == seat:
                self.completed = m.actions[-1].seat
        if not self.active():
            return
        for word in words[2:]:
            seat, _, text = word.partition(":")
            try:
                seat, card = int(seat), parse_card(text)
            except (ValueError, CardError):
                return
            have = self.cards.get(seat, [])
            if not 0 <= seat < len(t.match.seats) or card in have or len(have) + 1 >= self.target(seat):
                return
            if t.desk.scan_problem(t, seat, card):
                return
            self.cards.setdefault(seat, []).append(card)
            self.taps.append(seat)

    def clear_unless_active(self):
        """After an action that may start or end a deal: a finished scan's leftovers go."""
        if not self.active():
            self.clear()

    # -- taps ----------------------------------------------------------------------------

    def tap(self, pad_seat, card):
        """A card tapped while hands are scanned: into the seat's hand; on the centre pad (the
        up-card, or a lead) a question first."""
        t = self.table
        if pad_seat is None:
            self._confirm_end(card)
        elif self.target(pad_seat):
            self._add(pad_seat, card)
        else:
            t.alert_refused(f"{t.match.seats[pad_seat]}'s hand is scanned: "
                            f"waiting for {', '.join(self.waiting())} to scan", "scan")

    def _add(self, seat, card):
        t = self.table
        if card in self.cards.get(seat, ()):
            t.alert_refused("That card is already scanned", "scan")
            return
        problem = t.desk.scan_problem(t, seat, card)
        if problem:  # refused at the tap that makes the hand impossible; nothing else is lost
            t.alert_refused(problem, "scan")
            return
        cards = self.cards.setdefault(seat, [])
        cards.append(card)
        self.taps.append(seat)
        if len(cards) < self.target(seat):
            completed, self.completed = self.completed, None  # the last scanned card is this one
            try:
                self._save()  # kept before the screen counts it
            except JournalError as err:
                cards.pop()
                self.taps.pop()
                self.completed = completed
                t.alert_refused(str(err), "journal")
                return
            if t.alert is not None and (t.alert.kind == "refused" or t.alert.cause == "scan"):
                t.alert = None  # counted: an earlier refusal (or take-back) no longer stands over it
            return
        hand = Action("hand", seat=seat, cards=t.desk.hand_with_hidden(t.match.engine, seat, cards))
        rest = {s: c for s, c in self.cards.items() if s != seat}
        taps = [s for s in self.taps if s != seat]
        # stored with the taps it leaves, in one transaction: the seat's taps are then its hand line
        if t.apply(hand, at_once=True, setting=(SETTING, self._stored(rest, taps, seat))):
            self.cards, self.taps, self.completed = rest, taps, seat
        else:  # only the last card is taken back; the reason is in the alert (no card named)
            cards.pop()
            self.taps.pop()
            if t.alert_cause != "journal":  # (not stored: the journal's alert says why)
                t.alert_refused(f"{t.match.seats[seat]}'s hand cannot be complete with that card: "
                                "tap your last card again", "hidden-card")

    def take_back(self):
        """Hold Back: the last scanned card is taken back, before any action is undone. True if one was.
        The card that completed a hand is the last scanned card too: its hand line is undone and
        the hand's other cards stay scanned (not another seat's card, nor the whole hand)."""
        m = self.table.match
        if self.completed is not None and m is not None and m.actions and m.actions[-1].kind == "hand" \
                and m.actions[-1].seat == self.completed:
            return self._reopen(m.actions[-1])
        if not self.taps:
            return False
        seat = self.taps.pop()
        card = self.cards[seat].pop()
        try:
            self._save()
        except JournalError as err:
            self.cards[seat].append(card)
            self.taps.append(seat)
            self.table.alert_refused(str(err), "journal")
            return True
        self.table.set_alert("info", f"Scan: {self.table.match.seats[seat]}'s last card taken back", "scan")
        return True

    def _reopen(self, hand):
        """Take back the card that completed ``hand``'s seat's hand: its hand line undone, the other
        cards it holds scanned again, stored with the undo in one transaction."""
        t = self.table
        seat = hand.seat
        hidden = len(t.desk.hand_with_hidden(t.match.engine, seat, ()))  # the bidder's face-down card
        kept = list(hand.cards[:len(hand.cards) - hidden - 1])
        cards, taps = dict(self.cards), list(self.taps)
        if self.on:  # (deal scan switched off since: the hand line alone is undone)
            cards[seat] = kept
            taps = [s for s in taps if s != seat] + [seat] * len(kept)
        else:
            cards, taps = {}, []
        if not t.apply(Action("undo"), at_once=True, setting=(SETTING, self._stored(cards, taps, None))):
            return True  # the alert says why; the hand stays as it was
        self.completed = None
        if not self.active():
            self.cards, self.taps = {}, []
            return True
        t.note = None  # not "Undone: P2's scanned hand": only its last card is
        self.cards, self.taps = cards, taps
        t.set_alert("info", f"Scan: {t.match.seats[seat]}'s last card taken back", "scan")
        return True

    def _forget_quietly(self):
        """After a seat's hand went to the journal, or the scan ended: the line forgets those taps.
        If that write fails the line still names them, and a restart checks each again."""
        try:
            self._save()
        except JournalError:
            pass

    def _confirm_end(self, card):
        t = self.table
        what = t.desk.centre_tap_words(t.match.engine, t.match.seats)
        t.alert = None  # the question takes the screen
        t.menu = MenuMode(f"{', '.join(self.waiting())} not scanned", (
            ("Keep scanning", lambda: None),
            (f"End scan: {card_label(card)} {what}", lambda: self._end(card))))

    def _end(self, card):
        """The centre pad's card is played as if deal scan were off; the rest of the scan is left."""
        saved, self.on = self.on, False
        try:
            self.table.desk.tap(self.table, None, card)
        finally:
            self.on = saved
        self.clear_unless_active()
