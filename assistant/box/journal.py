"""The journal: every accepted action, in SQLite, before the screen changes.

One row per action, written as its scenario line, in a transaction with
``synchronous=FULL`` so that a power cut keeps every committed row. A match is
rebuilt by replaying its rows (undo rows included) through :class:`Match`, so
resume, undo, export and bug reports are one mechanism.

The journal holds hidden information (a face-down trump, scanned hands): it lives
in the service's private state directory (0700, the file 0600) and is never logged
or shown.

Its parts: opening, checks and repair of a damaged file (journal_open.py); saved actions
the storage lost, told by a count record beside it (``journal.sqlite3.count``), and a file
removed while the box runs, written back (journal_losses.py); the files on disk
(journal_files.py). Here: appending, settings, the club's outbox, reading and resuming.

>>> import tempfile, os
>>> from assistant.rules.scenario import Action
>>> j = Journal(os.path.join(tempfile.mkdtemp(), "journal.sqlite3"))
>>> j.new_match("towers", ("P1", "P2"), {})
1
>>> j.append(Action("flip", cards=(3,)))  # JS: P1 deals
>>> j.resume().match.state()["dealer"]
'P1'
"""
import errno
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field

from assistant.box import journal_files as files
from assistant.box import preflight
from assistant.box.journal_files import (JournalBusy, JournalError, JournalNeedsRepair,  # noqa: F401
                                         JournalTooNew, JournalUnavailable)
from assistant.box.journal_losses import Losses
from assistant.box.journal_open import SCHEMA, SCHEMA_VERSION, Opening, error_kind, hidden_safe_error  # noqa: F401
from assistant.box.salvage import MAX_LINE, BadRow, check_line, check_match, salvage
from assistant.rules.match import Match
from assistant.rules.scenario import ScenarioError, format_action, parse_action
from assistant.rules.shared import Refused
from assistant.textfile import read_only_mount


STEP = 2.0  # seconds the wall clock may move apart from the boot clock before it counts as set


def clock_gap():
    """The wall clock less the clock that counts from boot (suspend included): the same while
    time runs on, whatever the load; it moves only when the clock is set (network time a Pi with
    no clock of its own gets, days after the time it kept while off, or a hand in `date`)."""
    boot = getattr(time, "CLOCK_BOOTTIME", None)
    return time.time() - (time.clock_gettime(boot) if boot is not None else time.monotonic())


def clock_step(value):
    """How far the clock was set during a match, from the journal's ``clock:ID`` (0 when it was
    not, or the value is no number a clock could have moved by: damage, a hand's edit)."""
    try:
        step = float(value)
    except (TypeError, ValueError):
        return 0.0
    return step if abs(step) < 200 * 365 * 86400 else 0.0


@dataclass
class Resumed:
    match: Match | None
    match_id: int | None
    problems: list = field(default_factory=list)  # plain words, for an alert


class Journal(Opening, Losses):
    """The box's journal. ``readonly=True`` opens it for reading only (``card-assistant export``
    while the daemon runs): nothing is ever written, set aside or recovered."""

    def __init__(self, path, readonly=False):
        self.path = os.path.abspath(path)
        self.readonly = readonly
        self.match_id = None
        self._seq = 0
        self._current, self._lines = None, []  # the current match (game, seats, options, started), its rows
        self._gap, self._stepped = None, 0.0  # the wall clock less the boot clock; how far it was set this match
        self.problems = []  # plain words, said once at start (screen and log)
        self.recovered = None  # the Salvaged record when a damaged file was set aside
        self.summary = None  # the recovery's numbers in words short enough for the screen
        self._total = 0  # rows in the journal (actions and set aside), for the count record
        self._aside = 0  # rows of the current match set aside
        self.outbox = None  # club night: makes the outbox rows of an action (assistant.club.public)
        self.lock = threading.Lock()  # the publisher's thread shares this connection
        self._record_said = False  # the count record's problem is logged once
        self._look = preflight.Look(None)  # the files as they were before any connection
        self._repaired = (None, None)  # this start's repair: (summary, words), see _unseen_repair
        self.db = self._open_for_reading(check_files=True) if readonly else self._open()
        self._watched = os.path.exists(self.path)  # this connection's file: seen if it is removed
        self._file = self._file_now()  # (inode, size): seen if it is cut short
        self.record = None
        if not self.readonly:
            self.record = files.CountRecord(self.path + ".count")
            self._judge_losses()
        self.unseen_repair = False if self.readonly else self._unseen_repair()  # kept until seen

    # --- writing
    def _write(self, sql, args, also=None, outbox=()):
        if self.readonly:
            raise JournalError(_plain(sqlite3.OperationalError("readonly"), self.path))
        was, self._file = self._file, self._file_now()
        if was and self._file and was[0] == self._file[0] and self._file[1] < was[1]:
            self._repair("the journal file was cut short while the box ran")  # SQLite never shrinks it
        try:
            try:
                cur = self._commit(sql, args, also, outbox)
            except sqlite3.DatabaseError as e:
                if not getattr(e, "sqlite_errorname", "").startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
                    raise
                self._repair(hidden_safe_error(e))  # a page lost under the box: repaired, then stored
                cur = self._commit(sql, args, also, outbox)
        except sqlite3.Error as e:
            raise JournalError(_plain(e, self.path)) from None
        if outbox:
            self.outbox.wake.set()  # committed: the publisher sends it now
        if self._watched and not os.path.exists(self.path):
            self._restore()
        return cur

    def _commit(self, sql, args, also, outbox):
        with self.lock, self.db:
            self.db.execute("BEGIN IMMEDIATE")
            cur = self.db.execute(sql, args)
            for statement in also or ():
                self.db.execute(*statement)
            if outbox:  # (a table outside a club has none: one call into SQLite fewer)
                self.db.executemany("INSERT INTO outbox (topic, payload) VALUES (?, ?)", outbox)
        return cur

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

    def outbox_raw(self, after=0, limit=100):
        """``outbox_rows`` as the file holds them, topic and payload as bytes: a row whose text is no
        UTF-8 (damaged in the file) made every read of the outbox fail, and the publisher with it."""
        with self.lock:
            return self.db.execute("SELECT id, CAST(topic AS BLOB), CAST(payload AS BLOB) FROM outbox WHERE id>? "
                                   "ORDER BY id LIMIT ?", (after, limit)).fetchall()

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
        self._current, self._lines = (game, tuple(seats), dict(options), started), []
        self._gap, self._stepped = clock_gap(), 0.0
        if self.record is not None and self.record.journal is None:  # the journal's first match
            self.record.journal = files.journal_tag(started)
        self._note(self.match_id, 0)
        return self.match_id

    def append(self, action, seats=None, setting=None):
        """Store one accepted action of the current match; raises JournalError if it cannot.
        ``setting``: a ``(key, value)`` table setting stored in the same transaction (a deal scan's
        taps with the hand line or the undo they go with: a power cut keeps both or neither)."""
        seats = seats or self._seats
        line = format_action(action, seats)
        rows = self._club("action", self.match_id, self._seq + 1, line)
        # the time of the match's latest action, in the same transaction: when a match finished
        # (the web page's history); a journal salvaged after damage keeps it where it can be read
        also = [("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"last:{self.match_id}", repr(time.time())))]
        gap, stepped = clock_gap(), self._stepped
        if self._gap is not None and abs(gap - self._gap) > STEP:  # the clock was set: kept with the match
            stepped += gap - self._gap
            also.append(("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"clock:{self.match_id}", repr(stepped))))
        if setting is not None:
            also.append(("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"setting:{setting[0]}", str(setting[1]))))
        try:
            self._write("INSERT INTO actions (match, seq, line) VALUES (?, ?, ?)",
                        (self.match_id, self._seq + 1, line), also, outbox=rows)
        except JournalError:
            if self.outbox is not None:
                self.outbox.forget(self.match_id, self._seq + 1)
            raise
        self._seq += 1
        self._lines.append(line)
        self._gap, self._stepped = gap, stepped
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
        return self._meta(f"setting:{key}")

    def _meta(self, key):
        """A value the journal's meta table keeps under ``key``, or None."""
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_setting(self, key, value):
        """Store a table setting; raises JournalError if it cannot."""
        self._write("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"setting:{key}", str(value)))

    def name(self):
        """The journal's own name, made once when it was created (None in one an older version
        made and only read since): the club's board tells two journals of one table apart by it."""
        return self._meta("journal")

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
            if self.readonly or error_kind(e, self.path) != "damaged":
                raise JournalError(_plain(e, self.path)) from None
            self._salvage_now(hidden_safe_error(e), lambda: salvage(self.path))
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
        started = self.db.execute("SELECT started FROM matches WHERE id=?", (match_id,)).fetchone()[0]
        self._current, self._lines = (match.game, match.seats, match.options, started), [l for _, l in rows[:good]]
        self._gap, self._stepped = clock_gap(), clock_step(self._meta(f"clock:{match_id}"))  # (not across a restart)
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

    def export(self, match_id=None, left_out=None):
        """The scenario text of a stored match: every action as journaled, undo lines included, up
        to the first one that cannot be applied; those from there on are left out, and a comment at
        the end says so (its words also appended to ``left_out``, a list). Reads only: the current
        match does not change."""
        match, rows, problem = self.read(match_id)
        if match is None:
            return None
        good = rows if problem is None else rows[:problem[0]]
        header = match.export().split("\n")
        header = [h for h in header if h.startswith(("game", "seats", "option", "#"))]
        tail = []
        if problem is not None:  # an earlier match's is set aside by no one: said, not silently cut
            words = (f"its last {len(rows) - problem[0]} action(s) in the journal cannot be read "
                     f"({problem[1]}) and are left out")
            tail = [f"# {words}"]
            if left_out is not None:
                left_out.append(words)
        return "\n".join(header + [line for _, line in good] + tail) + "\n"

    def close(self):
        self.db.close()
        if self.record is not None:
            self.record.close()



def _plain(e, path):
    """Why an action was not saved, naming what refused it: the card, the folder or the file."""
    text = str(e)
    folder = os.path.dirname(path)
    if "full" in text:
        return f"the storage card is full ({folder}): this action was not saved"
    if _read_only_mount(folder, probe="I/O" in text):
        return f"the storage card is mounted read-only ({folder}): this action was not saved"
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        if not os.access(folder, os.W_OK):
            return f"the journal's folder {folder} is not writable: this action was not saved"
        if not os.access(path, os.W_OK):
            return f"the journal {path} is not writable: this action was not saved"
        if who := files.not_this_users(path):  # its -wal or -shm: another user's, say
            return f"{who}: this action was not saved"
        return f"the storage card is read-only ({folder}): this action was not saved"
    return f"the journal {path} could not be written ({text}): this action was not saved"


def _read_only_mount(folder, probe=False):
    """True on a card mounted read-only; with ``probe``, also on one the kernel made read-only
    after an I/O error (ext4's errors=remount-ro: the mount still says rw, SQLite says "disk I/O
    error" of the EROFS its write got), found by creating a file there."""
    mounted = read_only_mount(folder)
    if mounted is not False:
        return bool(mounted)
    if not probe:
        return False
    name = os.path.join(folder, ".card-assistant-probe")
    try:
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT, 0o600))
        os.unlink(name)
    except OSError as e:
        return e.errno == errno.EROFS
    return False


def _hidden_safe(e):
    """A reason for the alert that names no card (a damaged row may be a hidden one)."""
    return "refused by the rules" if isinstance(e, Refused) else "unreadable line"
