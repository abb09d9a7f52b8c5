"""The club's results board (`card-assistant board`, run by :mod:`.board_run`): the messages.

It subscribes to the club's topics (a persistent session, QoS 1), stores every event once in its
own SQLite file (:mod:`.store`; the key is the table, the name of the box's journal and the event's
``id = [match, n]``: a message sent again is dropped, a reset box's new journal is a new run of its
table) before the broker is acknowledged, rebuilds each table's matches through the rules engines
(:mod:`.tables`, :mod:`.replay`) and serves the club's page and its JSON (``/api/club``). A
malformed, oversized or conflicting message is refused with a log line (one for a storm of one
kind) and changes nothing; the board never stops for bad data. After a restart it rebuilds
everything from its file: the current night's matches; an older night's are *put away* (their
records in the file, read when a page asks: season.py), so its memory is a night's, not a season's.

Out of order: an event whose predecessors have not arrived yet is *stored and held*, never
refused. The box deletes an outbox row once the broker has acknowledged it, so nothing sends a
refused event again; only the match's record, at its end, could bring it back (a broker killed
before it passed on what it had acknowledged leaves exactly such a gap, which the match's record
fills when the box reconnects). One log line when a match's gap opens, one when it is filled.
Refused (one log line each, nothing stored): an event past a table's bounds (tables.py: memory
stays bounded; a held event the match's record brings back) and a record whose events are not its
match's 0, 1, 2, ... in order. A "table now" older than the one the board has is skipped (counted,
never shown: the page does not go back in time).
"""
import json
import logging
import re
import sqlite3
import threading
import time

from assistant.repeated import Repeated
from assistant.club import season
from assistant.club.clocks import Clocks
from assistant.club.public import VERSION
from assistant.club.publisher import ALIVE
from assistant.club.message import (MAX_EVENT, MAX_MATCH, MAX_N, MAX_NOW, MAX_RECORD, Refusal,  # noqa: F401 (callers import them here)
                                    calendar_time, checked, loads, meaning, printable, shown_now)
from assistant.club.store import SCHEMA, BoardFile  # noqa: F401 (callers import it here)
from assistant.club.tables import MAX_HELD, Tables  # noqa: F401 (callers import it here)

log = logging.getLogger("assistant.club.board")
QUIET = 30                # seconds without a refusal of a kind before the log says it ended
NAME = re.compile(r"[0-9a-f]{1,32}")  # a journal's name as a box makes it (os.urandom(8).hex())
MAX_UNHEARD = 8  # journals of a table whose box said its clock but sent no event yet: the latest kept
MAX_VERSION = 99  # a message's version past this is no box's (the page and the log name the version)


def damaged(e):
    """Is this SQLite error the board's file damaged (a page that reads as nonsense, a row that breaks
    the file's own constraints: what its own writes never make), not a disk that waits for room or
    for its mount to be mended? Waiting never stores what damage refuses: it takes a restart."""
    return isinstance(e, sqlite3.IntegrityError) or (getattr(e, "sqlite_errorcode", 0) & 0xFF) in (
        sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def unwritable(e):
    """SQLite's reason a write to the board's file failed, in words (its text when no other)."""
    name = getattr(e, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_FULL"):
        return "the disk is full"
    if name.startswith("SQLITE_READONLY"):
        return "it is read-only"
    if damaged(e):  # damaged while the board ran
        return "it is damaged: restart the board, which sets it aside and reads back what it can"
    return str(e)[:80]


def beat(status):
    """Every how many seconds the box of this status says "online" again while connected: its
    ``alive``; 30 for a box that says its clock's time (``t``: every box since it says it again,
    the same change, before ``alive`` was said); None for an older box, which says "online" only
    as it connects, so its silence between matches is no sign it is gone."""
    alive = status.get("alive")
    if type(alive) in (int, float) and 0 < alive <= 3600:
        return float(alive)
    return ALIVE if calendar_time(status.get("t")) is not None else None


class Board:
    def __init__(self, path, club, keep=season.KEEP):
        """``keep``: seconds after a match's latest event that it stays in memory (season.py); None:
        every night in memory, as the board before (measured beside it: bench/club_season.py)."""
        self.club = club
        self.keep = keep
        self.file = BoardFile(path)
        self.db = self.file.db
        self.lock = threading.Lock()
        self.tables = Tables()
        self.matches = self.tables.matches  # (table, journal, match) -> BoardMatch
        self.clocks = Clocks()  # the boxes' times of play on the board's clock (the Players page)
        self.now = {}       # table -> the retained "table now" (shown, never scored)
        self.counts = {"stored": 0, "duplicates": 0, "refused": 0, "stale": 0}
        self.subscribed = False  # set once the broker granted the subscriptions
        self.connected = False   # the link to the broker is up (the page says when it is not)
        self.online = {}    # table -> its box is connected (its retained status, or the broker's will)
        self.said = {}      # table -> when (board's clock) its latest status came
        self.said_by = {}   # table -> the journal its latest status named ("": an older box's)
        self.beat = {}      # table -> seconds between its box's "online" statuses; None: an older box's
        self.refused_at = {}  # table -> messages refused on its topics (the page says so beside it)
        self.newer = {}     # table -> the version of the latest message from a box newer than the board
        self.damaged = False  # its file was found damaged while it ran (a restart repairs it)
        self.heard = self.file.heard()  # table -> when the board last received an event of it (its clock)
        self.refusals = Repeated(log)  # (table, kind of refusal): a storm is two lines, not one a message
        self.put_away_version = 0  # one more each time matches are put away or brought back (the standings' cache)
        self.kept_in = set()  # matches that could not be put away (a log line each): not tried again
        self._unsealed()
        self._load_journals()
        # a file an older board wrote, or a board stopped for days: older nights put away first, one
        # match at a time (never the whole season in memory), then the current night loaded
        self.tidy(self._rebuilt, limit=None)
        self.counts["stored"] = self.file.put_away_events()
        self._apply_rows(self.file.rows(None))
        for key in list(self.matches):  # a copy put away by an older board: both copies in memory again
            for table, put_away in self._copies(key):
                if put_away:
                    self._bring_back(table, *key[1:])

    def _unsealed(self):
        """Records put away not as they were kept (a bit the card flipped) are brought back, to be
        made again from their events (season.unsealed), in one log line."""
        if bad := season.unsealed(self.db, self.file.bring_back):
            log.warning("board: %d match record(s) put away were not as kept (damage in %s): made again "
                        "from their events", bad, printable(self.file.path))

    def _load(self, table=None, count=True):
        """The events of the board's file (all, or ``table``'s) not put away, and what its boxes'
        statuses said of their clocks."""
        self._load_journals(table)
        self._apply_rows(self.file.rows(table), count)

    def _load_journals(self, table=None):
        """What the board's file says of its boxes' journals (all, or ``table``'s): how far behind
        each one's clock is, and when the board received its first and last events."""
        for tbl, journal, behind in self.file.clocks():
            if table in (None, tbl):
                self.clocks.heard(tbl, journal, 0.0, behind)
        for tbl, journal, first, last in self.file.journals():
            if table in (None, tbl):
                self.tables.seen(tbl, journal, first, last)

    def _apply_rows(self, rows, count=True):
        """The rows (as BoardFile.rows gives them, a match's events together in order) into the tables:
        a match's events applied at once, with its last (replay.BoardMatch.add)."""
        rows = iter(rows)
        row = next(rows, None)
        while row is not None:
            tbl, journal, mid, n, body, t, received = row
            row = next(rows, None)
            more = row is not None and row[:3] == (tbl, journal, mid)
            try:  # checked again: a row an older board stored unchecked must not stop this one
                self.tables.apply(tbl, journal, mid, n, checked(loads(body), n), received, more)
                self.clocks.event(tbl, journal, mid, t, received)
            except Exception as e:
                log.warning("board: table %s match %s event %s in the file cannot be used (%s); skipped",
                            printable(tbl), mid, n, e if isinstance(e, Refusal) else type(e).__name__)
                if not more:  # the events stored to be applied with this one: applied now
                    self.tables.flush((tbl, journal, mid))
                continue
            self.counts["stored"] += count

    # --- a season: older nights put away (season.py)
    def tidy(self, rebuilt=None, limit=season.AT_ONCE, now=None):
        """Put away (at most ``limit``) matches whose latest event the board received more than
        ``keep`` seconds before ``now``, except each table's latest: their records go into the file,
        they leave the memory. ``rebuilt``: how to get a match not in memory (at a start). Returns
        how many were put away."""
        from assistant.club.records import moved, on_board  # as the pages show them (records.records)
        if self.keep is None:
            return 0
        with self.lock:
            old = self.file.older((now or time.time()) - self.keep)
            if not old:  # the usual case (every 5 s all night): nothing more to look up
                return 0
            latest = self._latest()
            gone = moved(self)  # a table renamed mid-match: both copies stay (the page leaves one out)
            pairs = {*gone, *((went, j, m) for (_, j, m), went in gone.items())}
            done, ready = 0, []  # ready: (match, its record), put away AT_ONCE at a time, in one commit
            for key in old:
                if limit is not None and done + len(ready) >= limit:
                    break
                if key == latest.get(key[0]) or key in pairs or self._copies(key):
                    continue  # the table's latest match: in play (or its last of the night) stays on its page;
                    # a match its box went on with under another name: both copies stay (the page leaves one out)
                if key in self.kept_in:
                    continue
                bm = self.matches.get(key) if rebuilt is None else rebuilt(key)
                if bm is None:
                    continue  # events before their match's start only (held: a few, bounded)
                try:
                    rec = season.match_record(0, *key[:2], self.run(*key[:2]), key[2], bm, None, False,
                                              on_board(self, *key[:2], bm.started) or 0,
                                              on_board(self, *key[:2], self.clocks.last.get(key)))
                    span = self.clocks.span(*key, bm.started)
                    night = season.night_of(span[0] if span else bm.started or self.tables.first.get(key[:2]))
                    record = season.dumps(rec, night, span)
                except Exception as e:  # the tidy (every 5 s, and at a start) must never stop the board
                    self.kept_in.add(key)
                    log.warning("board: table %s match %s cannot be put away (%s); it stays in memory",
                                printable(key[0]), key[2], type(e).__name__)
                    continue
                ready.append((key, record))
                if len(ready) >= season.AT_ONCE:
                    done += self._put_away(ready)
            done += self._put_away(ready)
            self.put_away_version += bool(done)
            return done

    def _put_away(self, ready):
        """The matches of ``ready`` (emptied) leave the memory, their records written in one commit
        (a commit a match, each synced, was 3 ms a match of a season's first start)."""
        self.file.put_away(ready)
        for key, _ in ready:
            self.tables.put_away(key)
            self.clocks.put_away(key)
        done = len(ready)
        ready.clear()
        return done

    def _copies(self, key):
        """``[(table, put away?)]``: the same match (its start: number, game, seats, time) under
        other tables' names: a box renamed mid-match went on with it (page.moved leaves one out)."""
        table, journal, mid = key
        start = self.file.body(table, journal, mid, 0)
        if start is None or not journal:
            return []
        return [(t, away) for t, away in self.file.copies(table, journal, mid)
                if self.file.body(t, journal, mid, 0) == start]

    def _latest(self):
        """``{table: (table, journal, match)}``: the latest match of each table's latest journal."""
        latest = self.file.latest()
        out = {}
        for table in {t for t, _ in latest}:
            runs = self.tables.runs(table)
            journal = runs[-1] if runs else max(j for t, j in latest if t == table)
            out[table] = (table, journal, latest.get((table, journal)))
        return out

    def _rebuilt(self, key):
        """Match ``key`` rebuilt from the file alone (at a start, to put it away), or None."""
        tables, clocks = self.tables, self.clocks
        self.tables, self.clocks = Tables(), Clocks()
        try:
            for (tbl, journal), first in tables.first.items():
                self.tables.first[(tbl, journal)] = first
            self.clocks.behind = clocks.behind
            self._apply_rows(self.file.match_rows(*key), count=False)
            clocks.last.update(self.clocks.last)
            return self.tables.matches.get(key)
        finally:
            self.tables, self.clocks = tables, clocks

    def _bring_back(self, table, journal, mid):
        """An event of a match put away, not stored yet (a box's backlog after weeks off): the match
        is loaded from the file again, to take it."""
        if self.file.bring_back(table, journal, mid):
            self.put_away_version += 1
            rows = self.file.match_rows(table, journal, mid)
            self.counts["stored"] -= len(rows)
            self._apply_rows(rows)
            log.info("board: table %s match %s, of an older night, taken back into memory for an event that "
                     "came now", printable(table), mid)

    # --- messages
    def receive(self, topic, payload, again=False):
        """One MQTT message. Never raises: a refusal is a log line (once for a storm of one kind).
        False when the board's file could not take it for now (a full disk, a read-only one): then it
        must not be acknowledged, so that the broker keeps it (board_run.py gives it again,
        ``again``: not counted a second time); True when it is done with (stored, a duplicate,
        refused: a message it will never take, or not before a restart: its file damaged)."""
        with self.lock:
            self._quiet(QUIET)
            try:
                self._receive(topic, payload)
            except Refusal as e:
                self._refused(topic, str(e), blame=getattr(e, "blame", True))
            except sqlite3.DatabaseError as e:  # a full disk, a read-only one, a damaged file: said as such
                if damaged(e):  # acknowledged: a message the board held unacknowledged took one of the
                    # broker's few places in flight to the board (Mosquitto: 20) until a restart, so
                    # a damaged match's 20 events stopped every table's for the rest of the night
                    self._refused(topic, f"the board's file {self.file.path} cannot take it ({unwritable(e)}; "
                                         "the board goes on with the other messages, and the match's record "
                                         "brings this one back after the restart)", blame=False)
                    self.damaged = True  # the page says so at its top: its refusals are no box's doing
                    return True
                self._refused(topic, f"the board's file {self.file.path} cannot be written ({unwritable(e)}): "
                                     "the broker keeps what it could not store (not acknowledged), and the "
                                     "board stores it as soon as it can", count=not again)
                return False
            except Exception as e:  # raised in paho's thread it would end the subscription: never
                self._refused(topic, f"it could not be used ({type(e).__name__}); the board goes on")
            return True

    def _refused(self, topic, why, count=True, blame=True):
        """Counted every time; logged when a kind of refusal starts at a table, and when it has
        not happened for ``QUIET`` seconds, with its count (20,000 garbage messages: two lines).
        ``blame``: counted beside the table too, whose page line names its box's likely causes
        (not for a newer box's messages, nor the board's damaged file: each said in its own words)."""
        self.counts["refused"] += count
        parts = topic.split("/")
        if count and blame and len(parts) > 2 and parts[:2] == ["club", self.club]:
            self.refused_at[parts[2]] = self.refused_at.get(parts[2], 0) + 1
        kind = (printable(parts[2]) if len(parts) > 2 else "", re.sub(r"[0-9]+", "N", why))
        self.refusals.happened(kind, f"board: refused a message on {printable(topic)}: {why}")

    def quiet(self, seconds=QUIET):
        """End (in the log, with their counts) the kinds of refusal not seen for ``seconds``."""
        with self.lock:
            self._quiet(seconds)

    def _quiet(self, seconds):
        self.refusals.quiet(seconds, lambda kind: f"board: no more messages refused at table "
                                                  f"{kind[0] or '?'} for this ({kind[1]})")

    def _receive(self, topic, payload):
        parts = topic.split("/")
        if len(parts) < 4 or parts[0] != "club" or parts[1] != self.club:
            raise Refusal("not this club's topic")
        table, what = parts[2], "/".join(parts[3:])
        limit = MAX_RECORD if what.startswith("record/") else MAX_NOW if what == "now" else MAX_EVENT
        if len(payload) > limit:
            raise Refusal(f"oversized ({len(payload)} bytes, at most {limit})")
        try:
            body = loads(payload)  # NaN or Infinity: not JSON
        except (ValueError, UnicodeDecodeError):
            raise Refusal("not JSON") from None
        except RecursionError:  # JSON nested deeper than Python's stack, well inside 4 KiB
            raise Refusal("nested too deep to be a club message") from None
        if not isinstance(body, dict) or body.get("v") != VERSION:
            v = body.get("v") if isinstance(body, dict) else None
            if type(v) is int and VERSION < v <= MAX_VERSION:  # a box upgraded before its board
                self.newer[table] = v
                newer = Refusal(f"a version {v} club message, from a box newer than this board, which reads "
                                f"version {VERSION}: upgrade the board (its box keeps every match, and the "
                                "broker each finished match's record, which the board upgraded reads)")
                newer.blame = False  # the page says it under the table in its own words, not as a fault
                raise newer
            raise Refusal(f"not a version {VERSION} club message")
        self.newer.pop(table, None)  # its box reads as this board again (one rolled back, a stray v2)
        journal = self._journal(body)
        if what == "events":
            self._event(table, journal, body)
        elif what == "now":
            if body.get("table") != table or type(body.get("match")) is not int or type(body.get("n")) is not int:
                raise Refusal("a table now of another table, or without its match and action")
            if not 1 <= body["match"] <= MAX_MATCH or not 0 <= body["n"] <= MAX_N:
                raise Refusal(f"a table now with a match or action number no box sends "
                              f"(match {printable(body['match'])[:12]}, action {printable(body['n'])[:12]})")
            if self._stale(table, journal, body):
                self.counts["stale"] += 1  # an older one, delivered after a newer (a board restart)
                return
            self.now[table] = dict(body, journal=journal)
        elif what == "status":  # the box's own "online", or the broker's will for it: "offline"
            if body.get("table") != table or type(body.get("online")) is not bool:
                raise Refusal("a status of another table, or without online true or false")
            self.online[table] = body["online"]
            self.beat[table] = beat(body)
            self.said[table] = time.time()  # a box connected says so every ALIVE seconds (publisher)
            self.said_by[table] = journal
            t = calendar_time(body.get("t"))
            if body["online"] and t is not None:
                self._room_for_clock(table, journal)
                if self.clocks.heard(table, journal, t, time.time()):  # said as it connects
                    self.file.clock(table, journal, self.clocks.behind[(table, journal)])
        elif what.startswith("record/"):
            events = body.get("events")
            if body.get("table") != table or not isinstance(events, list):
                raise Refusal("a record without its table's events")
            if not all(isinstance(e, dict) for e in events):
                raise Refusal("a record holding a non-event")
            mid = body.get("match")
            if type(mid) is not int or not 1 <= mid <= MAX_MATCH:  # its words are the storm's key: never the sender's
                raise Refusal("a record without a match number a box makes")
            if [e.get("id") for e in events] != [[table, mid, k] for k in range(len(events))]:
                raise Refusal(f"out of order: a record whose events are not match {mid}'s 0, 1, 2, ...")
            for event in events:
                self._event(table, journal, dict(event, v=1))
        else:
            raise Refusal("unknown topic")

    def _room_for_clock(self, table, journal):
        """Make room for the clock of ``journal``'s box: the board keeps it for every journal it has
        events of, and for the latest ``MAX_UNHEARD`` of the table that sent none yet (a box just
        reset: its events follow), the oldest of those forgotten. A flood of statuses, each naming
        a new journal, added a row to the board's file and its memory each, with no bound (20,000
        of them: 20,000 rows, 5.5 MB)."""
        key = (table, journal)
        if key in self.clocks.behind or key in self.tables.first:
            return
        unheard = [k for k in self.clocks.behind if k[0] == table and k not in self.tables.first]
        for old in unheard[:max(0, len(unheard) - MAX_UNHEARD + 1)]:  # the oldest first (as they came)
            del self.clocks.behind[old]
            self.file.forget_clock(*old)

    @staticmethod
    def _journal(body):
        """The name of the box's journal the message is from; "" from an older box, which sends none."""
        journal = body.get("journal", "")
        if journal != "" and not (isinstance(journal, str) and NAME.fullmatch(journal)):
            raise Refusal("a journal name no box makes")
        return journal

    def _stale(self, table, journal, body):
        """Is this "table now" older than the one shown: of the same journal and an earlier action, or
        of a journal the board had before the shown one's (a reset box's old journal)? A shown one
        whose action the board never received (a number no match reached, a journal it never had:
        sent with the table's password, not by its box) holds back none that the board's events
        back: its huge number froze the table's live view, every later one "older"."""
        shown = self.now.get(table)
        if shown is None:
            return False
        if not self._backed(table, shown["journal"], shown) and self._backed(table, journal, body):
            return False
        if shown["journal"] == journal:
            return (body["match"], body["n"]) < (shown["match"], shown["n"])
        first = self.tables.first
        return first.get((table, journal), float("inf")) < first.get((table, shown["journal"]), float("inf"))

    def _backed(self, table, journal, body):
        """Has the board stored the event this "table now" follows (its match's action ``n``)?"""
        return self.file.body(table, journal, body["match"], body["n"]) is not None

    def _event(self, table, journal, ev):
        ident = ev.get("id")
        if (not isinstance(ident, list) or len(ident) != 3 or ident[0] != table
                or not all(type(x) is int for x in ident[1:]) or not 1 <= ident[1] <= MAX_MATCH
                or not 0 <= ident[2] <= MAX_N):
            raise Refusal("no valid id [table, match, n] of this table")
        _, mid, n = ident
        body = checked(ev, n)
        if journal and n == 0 and self._upgraded(table, mid, body):
            self._adopt(table, journal)
        stored = self.file.body(table, journal, mid, n)
        if stored is not None:
            if meaning(json.loads(stored)) != meaning(body):
                raise Refusal(f"match {mid} event {n} differs from the one stored: kept the first")
            self.counts["duplicates"] += 1
            return
        received = time.time()
        if (table, journal, mid) not in self.matches and (away := self.file.away(table, journal, mid)) is not None:
            # taken back into memory: as a match added tonight, within the table's bounds (tables.py),
            # not one match of the season's each event (a table's password: the season in memory)
            refused = self.tables.refusal(table, journal, mid, 0, received)
            if refused:
                raise Refusal(refused)
            self._bring_back(table, journal, mid)
            self.tables.taken_back(table, received, away)
        refused = self.tables.refusal(table, journal, mid, n, received)
        if refused:
            raise Refusal(refused)
        t = calendar_time(ev.get("t"))
        self.file.add(table, journal, mid, n, json.dumps(body), t, received)
        self.heard[table] = received
        self.counts["stored"] += 1
        self.tables.apply(table, journal, mid, n, body, received)
        self.clocks.event(table, journal, mid, t, received)

    def _upgraded(self, table, mid, start):
        """Is this start, from a named journal, one the board keeps under no name (the same match
        number, game, seats and start time): the same box, upgraded since it sent that match?"""
        kept = self.file.body(table, "", mid, 0)  # in memory, or put away with an older night
        if kept is None:
            return False
        kept = json.loads(kept)
        return meaning(kept) == meaning(start) and kept.get("started") == start.get("started")

    def _adopt(self, table, journal):
        """The table's matches kept under no name are ``journal``'s (store.BoardFile.adopt)."""
        kept = self.file.db.execute("SELECT count(*) FROM matches WHERE tbl=? AND journal=''", (table,)).fetchone()[0]
        self.file.adopt(table, journal)
        self.put_away_version += 1
        self.tables.forget(table)
        self.clocks.forget(table)
        self._load(table, count=False)
        log.info("board: table %s: its box names its journal now; the %s match(es) it sent before are that "
                 "journal's", printable(table), kept)

    # --- what the page shows
    def run(self, table, journal):
        """1 for the table's first journal, 2 for the journal of its box reset once, ..."""
        runs = self.tables.runs(table)
        return runs.index(journal) + 1 if journal in runs else len(runs) + 1

    def ordered(self):
        """The matches' keys: by table, by journal in the order the board had them, by number."""
        return sorted(self.matches, key=lambda k: (k[0], self.run(k[0], k[1]), k[2]))

    def snapshot(self):
        with self.lock:
            tables = {}
            for key in self.ordered():
                run = self.run(key[0], key[1])
                tables.setdefault(key[0], []).append(dict(self.matches[key].summary(), journal=key[1] or None,
                                                          run=run))
            # "tables": the matches in memory (the current night, each table's latest); older
            # nights' are put away: /nights on the page, and in the standings
            out = {"club": self.club, "counts": dict(self.counts), "subscribed": self.subscribed,
                   "connected": self.connected,
                   "tables": [{"table": t, "now": shown_now(self.now.get(t)), "matches": ms}
                              for t, ms in sorted(tables.items())],
                   # the boxes as this board has seen them since it started (what it rebuilds from its
                   # file is in "tables"): connected or not, when last heard from, messages refused
                   "boxes": {t: {"online": self.online.get(t), "heard": self.heard.get(t),
                                 "refused": self.refused_at.get(t, 0)} for t in sorted(tables)}}
        return out

    def spans(self):
        """``{(table, journal, match): (start, latest event)}``: when each match was played, by its
        box's clock read on the board's (clocks.py), for the matches whose times the board knows."""
        with self.lock:
            spans = {key: self.clocks.span(*key, bm.started) for key, bm in self.matches.items()}
        return {key: span for key, span in spans.items() if span is not None}

    def close(self):
        self.file.close()
