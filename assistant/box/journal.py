"""The journal: every accepted action, in SQLite, before the screen changes.

One row per action, written as its scenario line, in a transaction with
``synchronous=FULL`` so that a power cut keeps every committed row. A match is
rebuilt by replaying its rows (undo rows included) through :class:`Match`, so
resume, undo, export and bug reports are one mechanism.

The journal holds hidden information (a face-down trump, scanned hands): it lives
in the service's private state directory (0700, the file 0600) and is never logged
or shown.

Opening it is the one guard against damage: the files are looked at as bytes before
SQLite opens them (preflight.py, walscan.py: SQLite deletes a -wal beside an empty or
missing file and drops the frames after a damaged stretch), then SQLite's integrity check
and a check of every row (salvage.py) run through a read-only connection at every start;
a damaged file is set aside with its -wal/-shm, as they were, under a dated name and
every row that can still be read is carried into a new journal (journal_files.py,
salvage.py, pagescan.py). A count record beside it
(``journal.sqlite3.count``) tells when the storage lost saved actions. A read-only
or full card opens the journal read-only; a folder that cannot hold one, or a
journal locked by another program, is one line naming the path.

>>> import tempfile, os
>>> from assistant.rules.scenario import Action
>>> j = Journal(os.path.join(tempfile.mkdtemp(), "journal.sqlite3"))
>>> j.new_match("towers", ("P1", "P2"), {})
1
>>> j.append(Action("flip", cards=(3,)))  # JS: P1 deals
>>> j.resume().match.state()["dealer"]
'P1'
"""
import json
import logging
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field

from assistant.box import journal_files as files
from assistant.box import preflight
from assistant.box.journal_files import (JournalBusy, JournalError, JournalNeedsRepair,  # noqa: F401
                                         JournalTooNew, JournalUnavailable)
from assistant.rules.match import Match
from assistant.rules.shared import Refused
from assistant.box.salvage import (MAX_LINE, BadRow, check, check_line, check_match, check_schema, salvage,
                                   salvage_files, write_recovered)
from assistant.rules.scenario import ScenarioError, format_action, parse_action

log = logging.getLogger("card-assistant")
SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, game TEXT NOT NULL, seats TEXT NOT NULL, options TEXT NOT NULL,
    started REAL NOT NULL);
CREATE TABLE IF NOT EXISTS actions (
    match INTEGER NOT NULL REFERENCES matches(id), seq INTEGER NOT NULL, line TEXT NOT NULL,
    PRIMARY KEY (match, seq));
CREATE TABLE IF NOT EXISTS set_aside (
    match INTEGER NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, payload TEXT NOT NULL);
"""
# outbox: club night's messages (public information only), written in the transaction of their
# action and deleted when the broker acknowledges them (assistant/club). Added without a schema
# version step: an older journal gains the empty table on open, an older program ignores it.


@dataclass
class Resumed:
    match: Match | None
    match_id: int | None
    problems: list = field(default_factory=list)  # plain words, for an alert


class Journal:
    """The box's journal. ``readonly=True`` opens it for reading only (``card-assistant export``
    while the daemon runs): nothing is ever written, set aside or recovered."""

    def __init__(self, path, readonly=False):
        self.path = os.path.abspath(path)
        self.readonly = readonly
        self.match_id = None
        self._seq = 0
        self.problems = []  # plain words, said once at start (screen and log)
        self.recovered = None  # the Salvaged record when a damaged file was set aside
        self.summary = None  # the recovery's numbers in words short enough for the screen
        self._total = 0  # rows in the journal (actions and set aside), for the count record
        self._aside = 0  # rows of the current match set aside
        self.outbox = None  # club night: makes the outbox rows of an action (assistant.club.public)
        self.lock = threading.Lock()  # the publisher's thread shares this connection
        self._record_said = False  # the count record's problem is logged once
        self._look = preflight.Look(None)  # the files as they were before any connection
        self.db = self._open_for_reading(check_files=True) if readonly else self._open()
        self._watched = os.path.exists(self.path)  # this connection's file: seen if it is removed
        self.record = None
        if not self.readonly:
            self.record = files.CountRecord(self.path + ".count")
            self._judge_losses()

    # --- opening: every problem is handled here, once, at start
    def _open(self):
        files.private_dir(os.path.dirname(self.path))
        files.finish_recovery(self.path)
        if os.path.lexists(self.path) and not os.path.isfile(self.path):
            raise JournalUnavailable(f"{self.path}: the journal's name is taken by something that "
                                     "is not a file; move it away")
        # before any connection: SQLite deletes a -wal beside an empty or missing file, drops the
        # frames after a damaged stretch, and a writing connection folds its -wal in when it closes
        self._look = look = preflight.inspect(self.path)
        if look.wrong:
            return self._recover(look.wrong, lambda: salvage_files(self.path, look))
        try:
            files.private_file(self.path)
        except OSError as e:
            if not os.path.exists(self.path):
                raise JournalUnavailable(files.say(self.path, e, "cannot create the journal")) from None
        try:
            db = self._connect(checked=self._check_read_only())
        except JournalTooNew:
            raise
        except (sqlite3.DatabaseError, BadRow) as e:
            kind = _kind(e, self.path)
            if kind == "busy":
                raise JournalBusy(f"the journal {self.path} could not be opened ({e}): another program "
                                  "holds it; it is left as it is") from None
            if kind in ("readonly", "full"):
                return self._open_read_only_box(e, kind)
            if kind == "cantopen":
                raise JournalUnavailable(f"{self.path}: the journal cannot be opened ({e}); "
                                         "it is left as it is") from None
            return self._recover(_hidden_safe_error(e), lambda: salvage(self.path))
        return db

    def _too_new(self, stored):
        if stored is not None and stored > SCHEMA_VERSION:
            raise JournalTooNew(
                f"the journal {os.path.basename(self.path)} was written by a newer card-assistant "
                f"(journal schema {stored}, this version reads {SCHEMA_VERSION}): install that "
                f"version again; the journal is kept as it is")

    def _check_read_only(self):
        """Check the journal through a read-only connection, before a writing one opens it: a
        damaged journal is then set aside exactly as it was (a writing connection folds the -wal
        into the file when it closes). True when checked; False leaves it to ``_connect``."""
        if not os.path.getsize(self.path) and "-wal" not in self._look.had:
            return False  # a new journal
        try:
            # with no -wal nobody writes: immutable, so no -wal or -shm is made beside it
            still = "" if "-wal" in self._look.had else "&immutable=1"
            db = sqlite3.connect(files.read_only_uri(self.path) + still, uri=True, isolation_level=None)
        except sqlite3.Error:
            return False
        try:
            self._too_new(_stored_version(db))
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "matches", "actions"} <= tables:
                return False  # an older or unfinished journal: the writing connection completes it
            check(db)
            return True
        except (sqlite3.DatabaseError, BadRow) as e:
            if _kind(e, self.path) == "damaged":
                raise
            return False  # busy, read-only, cannot open: said by the writing connection
        finally:
            db.close()

    def _connect(self, checked=False):
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            self._too_new(_stored_version(db))  # before any write: a newer journal is never touched
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(SCHEMA)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            if not checked:
                check(db)
        except BaseException:
            db.close()
            raise
        return db

    def _open_for_reading(self, check_files=False):
        """A read-only connection. ``check_files`` (export, the web page): files that SQLite would
        change even read-only (preflight.py) are one line saying the box must repair them."""
        if check_files:
            problem = preflight.needs_repair(self.path)
            if problem:
                raise JournalNeedsRepair(f"{self.path}: {problem}: the journal needs the box's repair "
                                         "(made at its next start); nothing was read or changed")
        if not os.path.isfile(self.path):
            raise JournalUnavailable(f"{self.path}: no journal there")
        # with no -wal beside it nobody is writing: read it as immutable, so not even a -shm is made
        # (one made by root through sudo would lock the service out); with one, share its -shm
        still = "" if os.path.exists(self.path + "-wal") else "&immutable=1"
        try:
            db = sqlite3.connect(files.read_only_uri(self.path) + still, uri=True, isolation_level=None,
                                 check_same_thread=False)
            db.execute("PRAGMA query_only=ON")
            stored = _stored_version(db)
        except sqlite3.Error as e:
            raise JournalUnavailable(f"{self.path}: cannot read the journal ({e})") from None
        except BadRow as e:  # a schema number that is not one: the box sets the file aside and repairs it
            db.close()
            raise JournalUnavailable(f"{self.path}: cannot read the journal ({e}); the box repairs it "
                                     "at its next start") from None
        if stored is not None and stored > SCHEMA_VERSION:
            db.close()
            raise JournalTooNew(f"{self.path}: written by a newer card-assistant (schema {stored})")
        return db

    def _open_read_only_box(self, e, kind):
        """The card or the folder is read-only (or full): show the match, save nothing, say so."""
        try:
            db = self._open_for_reading()
            check(db)
        except (JournalError, sqlite3.Error, BadRow) as again:
            raise JournalUnavailable(f"{self.path}: the journal is read-only ({e}) and cannot be read "
                                     f"({again})") from None
        self.readonly = True
        what = "read-only" if kind == "readonly" else "on a full card"
        self.problems.append(f"the journal {self.path} is {what} ({e}): new actions cannot be saved")
        return db

    def _recover(self, reason, read, aside=None):
        """Set the damaged file aside (with its -wal/-shm, as they were before any connection),
        keep every action that can still be read (``read()``: the Salvaged rows), and go on from a
        new journal holding them."""
        look = self._look
        try:
            found = read()
            aside = files.replace_with_recovered(
                self.path, lambda tmp: write_recovered(tmp, found, SCHEMA, SCHEMA_VERSION),
                had=look.had, shm=look.shm, aside=aside)
            db = self._connect()
        except (OSError, sqlite3.Error, BadRow) as e:
            raise JournalUnavailable(files.say(self.path, e, "the journal is damaged and a repaired copy "
                                                            "cannot be written")) from None
        self.recovered = found
        kept, aside_n = (db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("actions", "set_aside"))
        where = (f"damaged file kept as {os.path.basename(aside)}" if "" in look.had
                 else f"its -wal kept as {os.path.basename(aside)}-wal")
        saved = files.CountRecord(self.path + ".count").read()
        lost = max(saved[2] - kept - aside_n, 0) if saved is not None else None
        lost_words = f", {lost} lost" if lost is not None else ""
        left = f"; {found.unreadable} unreadable row(s) left out" if found.unreadable else ""
        self.problems.append(f"Journal damaged: {kept} action(s) recovered{lost_words}, {aside_n} set aside "
                             f"(readable but not replayed: an earlier action or their match is missing); "
                             f"{where} (in {os.path.dirname(aside)}; "
                             f"{reason}{left})")
        # the screen's alert has room for four short lines: the numbers; where the file is: the log
        lost_short = f", lost {lost}" if lost is not None else ""
        self.summary = f"Journal damaged: recovered {kept}{lost_short}, set aside {aside_n}; see the log"
        return db

    # --- the count record: actions the storage lost after they were saved
    def _counts(self, match_id):
        one = "SELECT count(*) FROM {} WHERE match=?"
        count = sum(self.db.execute(one.format(t), (match_id,)).fetchone()[0] for t in ("actions", "set_aside"))
        total = sum(self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("actions", "set_aside"))
        return count, total

    def _judge_losses(self):
        """Compare the journal with its count record; say what the storage lost; record anew."""
        saved = self.record.read()
        if saved is None and os.path.lexists(self.record.path):
            self._record_problem("holds no readable record" if os.path.isfile(self.record.path)
                                 else "is not a file")
        latest = self.db.execute("SELECT max(id) FROM matches").fetchone()[0] or 0
        if saved is not None:
            match, count, total = saved
            has, has_total = self._counts(match)
            lost = max(total - has_total, 0)
            if latest < match:
                goes_on = f"goes on from match {latest}" if latest else "starts a new match"
                earlier = lost - count
                also = f" and {earlier} saved action(s) of earlier matches" if earlier > 0 else ""
                self.problems.append(f"the storage lost the latest match ({count} action(s) saved){also}; "
                                     f"the box {goes_on}")
            elif has < count:
                earlier = lost - (count - has)
                also = f", and {earlier} of earlier matches," if earlier > 0 else ""
                self.problems.append(f"the storage lost the last {count - has} action(s) of the match{also} "
                                     f"after they were saved: they are not in the journal")
            elif lost:
                self.problems.append(f"the storage lost {lost} saved action(s) of earlier matches")
            if lost and self.summary is None:  # the screen's words (a recovery's summary has the total)
                self.summary = f"Journal: the storage lost {lost} saved action(s); see the log"
        self._total = self._counts(latest)[1]
        self._note(latest, self._counts(latest)[0])

    def _note(self, match_id, count):
        try:
            self.record.write(match_id, count, self._total)
        except OSError as e:  # the journal itself is what counts; without a record a loss is not detected
            self._record_problem(files.say(self.record.path, e, "cannot be written").split(": ", 1)[1])

    def _record_problem(self, what):
        """Once per start, in the log: the count record cannot be used (the box plays on)."""
        if not self._record_said:
            self._record_said = True
            log.warning("the count record %s %s: the box cannot tell whether the storage lost saved "
                        "actions until it is a record again (it is written after each action)",
                        self.record.path, what)

    # --- writing
    def _write(self, sql, args, also=None, outbox=()):
        if self.readonly:
            raise JournalError(_plain(sqlite3.OperationalError("readonly"), self.path))
        try:
            with self.lock, self.db:
                self.db.execute("BEGIN IMMEDIATE")
                cur = self.db.execute(sql, args)
                if also is not None:
                    self.db.execute(*also)
                if outbox:  # (a table outside a club has none: one call into SQLite fewer)
                    self.db.executemany("INSERT INTO outbox (topic, payload) VALUES (?, ?)", outbox)
        except sqlite3.Error as e:
            raise JournalError(_plain(e, self.path)) from None
        if outbox:
            self.outbox.wake.set()  # committed: the publisher sends it now
        if self._watched and not os.path.exists(self.path):
            self._restore()
        return cur

    def _restore(self):
        """The journal's file was removed while the box runs (by hand, a cleaning script): this
        connection still holds every row, in a file with no name that the next start would never
        see. Write them all back under the journal's name and go on there; said once in the log."""
        tmp = self.path + ".restore"
        try:
            with self.lock:
                files.private_dir(os.path.dirname(self.path))  # the whole folder may have gone
                if os.path.lexists(tmp):
                    os.unlink(tmp)
                self.db.execute("VACUUM INTO ?", (tmp,))
                os.chmod(tmp, 0o600)
                if os.path.lexists(self.path):  # something took the name meanwhile: not ours to replace
                    os.unlink(tmp)
                    return
                os.replace(tmp, self.path)
                old, self.db = self.db, self._connect(checked=True)
                old.close()
                self._watched = os.path.exists(self.path)
            log.error("the journal %s was removed while the box ran: every action was written back "
                      "from the box's open copy", self.path)
        except (OSError, sqlite3.Error, JournalError) as e:
            self._watched = False  # said once: the next start reports what the count record says is lost
            log.error("the journal %s was removed while the box ran and cannot be written back (%s): "
                      "actions from now on are lost at the next start", self.path, e)

    def _club(self, what, *args):
        """The outbox rows for a new match or an action, or none outside a club."""
        if self.outbox is None:
            return ()
        try:
            return getattr(self.outbox, what)(*args)
        except Exception:  # the club never stops the table: the action is kept, its message is not
            self.outbox.forget(args[0], None)
            self.problems.append("club: an action could not be put in the outbox")
            return ()

    def outbox_rows(self, after=0, limit=100):
        """``(id, topic, payload)`` of unacknowledged club messages after ``after``, oldest first."""
        with self.lock:
            return self.db.execute("SELECT id, topic, payload FROM outbox WHERE id>? ORDER BY id LIMIT ?",
                                   (after, limit)).fetchall()

    def outbox_done(self, ids):
        """Delete the rows the broker acknowledged (from the publisher's thread)."""
        if ids and not self.readonly:
            with self.lock, self.db:
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany("DELETE FROM outbox WHERE id=?", [(i,) for i in ids])

    def new_match(self, game, seats, options):
        started, mid, rows = time.time(), None, ()  # outside a club SQLite numbers the match
        if self.outbox is not None and not self.readonly:  # the club's message needs the number first
            try:
                mid = (self.db.execute("SELECT max(id) FROM matches").fetchone()[0] or 0) + 1
            except sqlite3.Error as e:
                raise JournalError(_plain(e, self.path)) from None
            rows = self._club("new_match", mid, game, tuple(seats), dict(options), started)
        cur = self._write("INSERT INTO matches (id, game, seats, options, started) VALUES (?, ?, ?, ?, ?)",
                          (mid, game, json.dumps(list(seats)), json.dumps(options), started), outbox=rows)
        self.match_id, self._seq, self._aside = cur.lastrowid, 0, 0
        self._note(self.match_id, 0)
        return self.match_id

    def append(self, action, seats=None):
        """Store one accepted action of the current match; raises JournalError if it cannot."""
        seats = seats or self._seats
        line = format_action(action, seats)
        rows = self._club("action", self.match_id, self._seq + 1, line)
        # the time of the match's latest action, in the same transaction: when a match finished
        # (the web page's history); a journal salvaged after damage keeps it where it can be read
        try:
            self._write("INSERT INTO actions (match, seq, line) VALUES (?, ?, ?)",
                        (self.match_id, self._seq + 1, line),
                        ("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"last:{self.match_id}", repr(time.time()))),
                        outbox=rows)
        except JournalError:
            if self.outbox is not None:
                self.outbox.forget(self.match_id, self._seq + 1)
            raise
        self._seq += 1
        self._total += 1
        self._note(self.match_id, self._seq + self._aside)

    def sync(self):
        """Every append is stored before it returns: nothing to wait for (the box's DeferredJournal
        stores what it kept here, or raises JournalError)."""

    @property
    def rows(self):
        """The current match's rows in the journal (undo lines included)."""
        return self._seq

    def setting(self, key):
        """A table setting kept across restarts (e.g. ``deal_scan``), or None if never set."""
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (f"setting:{key}",)).fetchone()
        return row[0] if row else None

    def set_setting(self, key, value):
        """Store a table setting; raises JournalError if it cannot."""
        self._write("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"setting:{key}", str(value)))

    @property
    def _seats(self):
        row = self.db.execute("SELECT seats FROM matches WHERE id=?", (self.match_id,)).fetchone()
        return tuple(json.loads(row[0]))

    # --- reading
    def match_ids(self):
        return [r[0] for r in self.db.execute("SELECT id FROM matches ORDER BY id")]

    def read(self, match_id=None):
        """``(match, rows, problem)`` of the latest (or a given) match, written nowhere: ``match`` is
        rebuilt from the good rows, ``rows`` are every stored ``(seq, line)``, and ``problem`` is
        None or ``(index of the first row that could not be applied, reason)``."""
        if match_id is None:
            match_id = self.db.execute("SELECT max(id) FROM matches").fetchone()[0]
        row = self.db.execute("SELECT game, seats, options, started FROM matches WHERE id=?",
                              (match_id,)).fetchone() if match_id is not None else None
        if row is None:
            return None, [], None
        game, seats, options = check_match(*row)
        match = Match(game, seats, options)
        rows = self.db.execute("SELECT seq, line FROM actions WHERE match=? ORDER BY seq",
                               (match_id,)).fetchall()
        for i, (seq, line) in enumerate(rows):
            try:
                check_line(seq, line)
                if seq != i + 1:
                    raise ScenarioError(seq, f"action {i + 1} is missing")
                match.apply(parse_action(line.split(), game, seats, seq))
            except (ScenarioError, Refused, BadRow) as e:
                return match, rows, (i, _hidden_safe(e))
        return match, rows, None

    def resume(self, match_id=None):
        """Rebuild the latest (or a given) match and make it the current one; a tail that cannot be
        applied is set aside (in the journal's ``set_aside`` table), never guessed at. Damage met
        here (the file changed under the box since it was opened) is recovered as at opening."""
        try:
            return self._resume(match_id)
        except (sqlite3.DatabaseError, BadRow) as e:
            if self.readonly or _kind(e, self.path) != "damaged":
                raise JournalError(_plain(e, self.path)) from None
            try:  # the files as they are now, before closing folds the -wal into the file
                aside = files.set_aside_copy(self.path)
            except OSError as err:
                raise JournalError(files.say(self.path, err, "the journal is damaged and cannot be "
                                                             "copied aside")) from None
            self.db.close()
            self._look = preflight.Look(None, had=("", "-wal", "-shm"))
            self.db = self._recover(_hidden_safe_error(e), lambda: salvage(self.path), aside)
            self._watched = os.path.exists(self.path)
            return self._resume(match_id)

    def _resume(self, match_id):
        problems = list(self.problems)
        if match_id is None:
            match_id = self.db.execute("SELECT max(id) FROM matches").fetchone()[0]
        match, rows, problem = self.read(match_id)
        if match is None:
            return Resumed(None, None, problems)
        good = len(rows)
        self._aside = self.db.execute("SELECT count(*) FROM set_aside WHERE match=?", (match_id,)).fetchone()[0]
        if problem is not None:
            good, why = problem
            bad = rows[good:]
            problems.append(f"the journal's last {len(bad)} action(s) could not be read "
                            f"and were set aside ({why})")
            if self._set_aside(match_id, bad, why):
                self._aside += len(bad)
        self.match_id, self._seq = match_id, good
        return Resumed(match, match_id, problems)

    def _set_aside(self, match_id, rows, reason):
        if self.readonly:
            return False
        try:
            with self.db:
                self.db.execute("BEGIN IMMEDIATE")
                for seq, line in rows:
                    self.db.execute("INSERT INTO set_aside VALUES (?, ?, ?, ?)",
                                    (match_id, seq, str(line)[:MAX_LINE], reason))
                    self.db.execute("DELETE FROM actions WHERE match=? AND seq=?", (match_id, seq))
            return True
        except sqlite3.Error:
            return False  # the rows stay; the next resume sets them aside again

    def export(self, match_id=None):
        """The scenario text of a stored match: every action as journaled, undo lines included, up
        to the first one that cannot be applied. Reads only: the current match does not change."""
        match, rows, problem = self.read(match_id)
        if match is None:
            return None
        good = rows if problem is None else rows[:problem[0]]
        header = match.export().split("\n")
        header = [h for h in header if h.startswith(("game", "seats", "option", "#"))]
        return "\n".join(header + [line for _, line in good]) + "\n"

    def close(self):
        self.db.close()
        if self.record is not None:
            self.record.close()


def _kind(e, path):
    """busy, readonly, full or damaged, from SQLite's own error name and the file's access."""
    name = getattr(e, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return "busy"
    if name.startswith("SQLITE_FULL"):
        return "full"
    writable = os.access(path, os.W_OK) and os.access(os.path.dirname(path), os.W_OK)
    if name.startswith("SQLITE_READONLY") or (name.startswith(("SQLITE_CANTOPEN", "SQLITE_IOERR"))
                                              and not writable):
        return "readonly"
    if name.startswith("SQLITE_CANTOPEN"):  # out of file handles, say: nothing says the file is bad
        return "cantopen"
    return "damaged"  # CORRUPT, NOTADB, a read error (a bad sector), a failed check, a bad row


def _hidden_safe_error(e):
    if isinstance(e, BadRow):
        return str(e)
    text = str(e)
    return text[:80] if text.isprintable() else "unreadable"


def _stored_version(db):
    """The schema version a journal file records, or None for a new (empty) file; BadRow when
    the number is not a number."""
    if not db.execute("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()[0]:
        return None
    row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    return check_schema(row[0]) if row else None


def _plain(e, path):
    """Why an action was not saved, naming what refused it: the card, the folder or the file."""
    text = str(e)
    folder = os.path.dirname(path)
    if "full" in text:
        return f"the storage card is full ({folder}): this action was not saved"
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        if _read_only_mount(folder):
            return f"the storage card is mounted read-only ({folder}): this action was not saved"
        if not os.access(folder, os.W_OK):
            return f"the journal's folder {folder} is not writable: this action was not saved"
        if not os.access(path, os.W_OK):
            return f"the journal {path} is not writable: this action was not saved"
        return f"the storage card is read-only ({folder}): this action was not saved"
    return f"the journal {path} could not be written ({text}): this action was not saved"


def _read_only_mount(folder):
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _hidden_safe(e):
    """A reason for the alert that names no card (a damaged row may be a hidden one)."""
    return "refused by the rules" if isinstance(e, Refused) else "unreadable line"
