"""What a box tells the club: each journal action in its public form.

The journal calls :class:`ClubOutbox` for a new match and for each action and writes
the rows it returns into its outbox in the same transaction, so a message exists
exactly when its action does. Only what the table may see leaves the box, the same
rule as the screen: a face-down trump is ``trump`` ("trump set") and its card is
named only once it is revealed (``revealed``); a towers discard is ``discard`` and a
scanned hand ``hand SEAT``, never their cards.

Every event carries ``id = [table, match, n]``: ``n`` is the action's number in the
journal (0 for the match's start), so the board stores each once; and ``journal``, the
journal's own name (made once when it was created, kept in it: Journal.name), so the board
never adds a reset box's matches (a new journal, numbered from 1 again) to the old journal's.
A box whose journal has no name (an older one, read only) sends none: the board keeps such
messages under the table's name alone, as before.

>>> o = ClubOutbox("c", "t1")
>>> [topic for topic, _ in o.new_match(1, "twenty-nine", ("A", "B", "C", "D"), {}, 0.0)]
['club/c/t1/events']
>>> public_line(parse_action(["trump", "QH"], "twenty-nine", ("A", "B", "C", "D"), 1), ("A", "B", "C", "D"))
'trump'
"""
import json
import sqlite3
import threading
import time

from assistant.rules.cards import card_name
from assistant.rules.match import Match
from assistant.rules.scenario import Action, format_action, parse_action

VERSION = 1
HIDDEN = ("trump", "discard", "hand")  # their cards never leave the box


def topic(club, table, what):
    return f"club/{club}/{table}/{what}"


def public_line(action, seats):
    """The scenario line of ``action`` with every hidden card left out."""
    if action.kind in HIDDEN:
        return format_action(Action(action.kind, seat=action.seat), seats)
    return format_action(action, seats)


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)


class ClubOutbox:
    """Makes the outbox rows of one box. ``journal`` (optional) rebuilds the public mirror of a
    resumed match; ``now`` is the latest "table now" (public), which the publisher keeps retained."""

    def __init__(self, club, table, journal=None):
        self.club, self.table, self.journal = club, table, journal
        self.name = journal.name() if journal is not None else None  # the journal's, in every message
        self.events_topic = topic(club, table, "events")
        self._mirror = {}  # match id -> Match replaying the journal's lines (to know results)
        self._events = {}  # match id -> its public events so far (for the record at its end)
        self.now = None
        self.wake = threading.Event()  # set by the journal once rows are committed
        self.since = self._named_since() if journal is not None else 1

    def _named_since(self):
        """The first match this box publishes under its club's and table's names. A table renamed
        (its ``[club] table``) keeps the matches it finished under its old name: sent again under
        the new one (a reconnect sends the latest records), the board showed them at both tables
        and counted them twice. The match in play then goes on under the new name, whole. So does
        a club renamed (a new season): nothing played before reaches it."""
        from assistant.box.journal import JournalError
        name = f"{self.club}/{self.table}"
        try:
            named, since = self.journal.setting("club_table"), self.journal.setting("club_since")
            if named == name:
                return int(since or 1)
            latest, since = self.journal.db.execute("SELECT max(id) FROM matches").fetchone()[0], 1
            if named is not None and latest is not None:  # renamed: a journal never named is this table's
                match = self.journal.read(latest)[0]
                since = latest if match is not None and match.state()["winner"] is None else latest + 1
            self.journal.set_setting("club_since", since)
            self.journal.set_setting("club_table", name)
            return since
        except (JournalError, ValueError, sqlite3.Error):  # a setting that cannot be kept: as before
            return 1

    # --- called by the journal, inside its write
    def new_match(self, mid, game, seats, options, started):
        self._mirror = {mid: Match(game, seats, options)}
        event = start_event(game, seats, options, started)
        self._events = {mid: [dict(event, id=[self.table, mid, 0])]}
        self._set_now(mid, 0, self._mirror[mid])
        return [(self.events_topic, self._payload(mid, 0, event))]

    def action(self, mid, seq, line):
        match = self._match(mid)
        event = action_event(match, line, seq)
        self._set_now(mid, seq, match)
        rows = [(self.events_topic, self._payload(mid, seq, event))]
        events = self._events.get(mid)
        if events is not None:
            events.append(dict(event, id=[self.table, mid, seq]))
            if "end" in event:  # the whole match again, retained: the board is whole at each end
                rows.append((topic(self.club, self.table, f"record/{mid}"), self._record(mid, events)))
        return rows

    def forget(self, mid, seq):
        """The write failed: the mirror is rebuilt from the journal when next needed."""
        self._mirror.pop(mid, None)
        self._events.pop(mid, None)

    # --- read by the publisher
    def record(self, mid):
        """Match ``mid``'s public events from the journal, rebuilt (sent again after a reconnect)."""
        with self.journal.lock:
            row = self.journal.db.execute("SELECT game, seats, options, started FROM matches WHERE id=?",
                                          (mid,)).fetchone()
            lines = self.journal.db.execute("SELECT seq, line FROM actions WHERE match=? ORDER BY seq",
                                            (mid,)).fetchall()
        if row is None:
            return None
        game, seats, options = row[0], tuple(json.loads(row[1])), json.loads(row[2])
        events = [dict(start_event(game, seats, options, row[3]), id=[self.table, mid, 0])]
        match = Match(game, seats, options)
        for seq, line in lines:
            try:
                events.append(dict(action_event(match, line, seq), id=[self.table, mid, seq]))
            except Exception:  # a row the box itself set aside at its next start: stop there
                break
        return self._record(mid, events)

    def _record(self, mid, events):
        return dumps(self.named({"v": VERSION, "kind": "record", "table": self.table, "match": mid,
                                 "events": events}))

    def named(self, message):
        """``message`` with the journal's name, when it has one."""
        return message if self.name is None else dict(message, journal=self.name)

    def recent_matches(self, count=2):
        """The latest matches played under this table's name (their records go again)."""
        with self.journal.lock:
            return [r[0] for r in self.journal.db.execute(
                "SELECT id FROM matches WHERE id >= ? ORDER BY id DESC LIMIT ?", (self.since, count))][::-1]

    # --- inside
    def _match(self, mid):
        if mid not in self._mirror:
            match = self.journal.read(mid)[0] if self.journal is not None else None
            self._mirror = {mid: match}
        return self._mirror[mid]

    def _payload(self, mid, n, event):
        return dumps(self.named(dict(event, v=VERSION, id=[self.table, mid, n], t=round(time.time(), 4))))

    def _set_now(self, mid, n, match):
        self.now = dumps(self.named({"v": VERSION, "kind": "now", "table": self.table, "match": mid, "n": n,
                                     "game": match.game, "seats": list(match.seats), "state": match.state(),
                                     "t": round(time.time(), 4)}))


def start_event(game, seats, options, started):
    return {"kind": "start", "game": game, "seats": list(seats), "options": dict(options),
            "started": started}


def action_event(match, line, seq):
    """Apply the journal's ``line`` to ``match`` (the box's mirror) and describe it publicly."""
    e = match.engine
    was_revealed = e.revealed_trump_card() is not None
    before = (e.hand_no, list(e.score), e.phase)
    action = parse_action(line.split(), match.game, match.seats, seq)
    match.apply(action)
    e = match.engine
    event = {"kind": "action", "line": public_line(action, match.seats), "hand": e.hand_no}
    if action.kind in HIDDEN:
        event["hidden"] = True
    if e.revealed_trump_card() is not None and not was_revealed:  # face up now: public from here on
        event["revealed"] = card_name(e.revealed_trump_card())
    state = match.state()
    if (e.hand_no, list(e.score), e.phase) != before:
        event["score"] = list(state["score"])  # the box's own count: the board recomputes it
    if e.phase == "over" and before[2] != "over":
        event["end"] = {"winner": state["winner"], "score": list(state["score"])}
    return event
