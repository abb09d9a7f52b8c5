"""Opening the journal: its schema, and every problem met at start, handled here once.

The files are looked at as bytes before SQLite opens them (preflight.py, walscan.py: SQLite
deletes a -wal beside an empty or missing file and drops the frames after a damaged stretch), then
SQLite's integrity check and a check of every row (salvage.py) run through a read-only connection
at every start; a damaged file is set aside with its -wal/-shm, as they were, under a dated name
and every row that can still be read is carried into a new journal (journal_files.py, salvage.py,
pagescan.py). A read-only or full card opens the journal read-only; a folder that cannot hold one,
or a journal locked by another program, is one line naming the path.

:class:`Opening` is a part of :class:`assistant.box.journal.Journal`: its methods use the
journal's ``path``, ``readonly``, ``problems``, ``recovered``, ``summary`` and ``_look``.
"""
import json
import os
import sqlite3
import time

from assistant.box import journal_files as files
from assistant.box import preflight
from assistant.box.journal_files import JournalBusy, JournalError, JournalNeedsRepair, JournalTooNew, JournalUnavailable
from assistant.box.salvage import BadRow, check, check_schema, salvage, salvage_files, write_recovered

SCHEMA_VERSION = 1
UNSEEN = "repair_unseen"  # the setting that keeps a start's repair words until a person saw them
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


class ForeignWal(Exception):
    """The journal's -wal is not this journal's (Opening._wal_is_anothers)."""


class Opening:
    """The journal's opening, checks and repair (a part of Journal)."""

    def _open(self):
        files.private_dir(os.path.dirname(self.path))
        unusable = files.finish_recovery(self.path)
        if unusable:
            self.problems.append(unusable)
        try:
            odd = files.move_odd_aside(self.path)
        except OSError as e:
            raise JournalUnavailable(files.say(self.path, e, "a name SQLite keeps beside the journal is "
                                               "not a file and cannot be moved aside")) from None
        if odd:
            self.problems.append(odd)
        if os.path.islink(self.path):  # SQLite would open the file it points to, and keep its -wal there
            raise JournalUnavailable(f"{self.path}: the journal's name is taken by a link (to "
                                     f"{os.readlink(self.path)[:80]}), not a file; move it away")
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
        except ForeignWal:  # the file alone, as salvage_files reads one with no -wal
            return self._recover("its -wal is another journal's: it changes matches the file holds",
                                 lambda: salvage_files(self.path, preflight.Look(None, had=("",))))
        except (sqlite3.DatabaseError, BadRow) as e:
            kind = error_kind(e, self.path)
            if kind == "busy":
                raise JournalBusy(f"the journal {self.path} could not be opened ({e}): another program "
                                  "holds it; it is left as it is") from None
            if kind in ("readonly", "full"):
                return self._open_read_only_box(e, kind)
            if kind == "cantopen":
                why = files.not_this_users(self.path) or e
                raise JournalUnavailable(f"{self.path}: the journal cannot be opened ({why}); "
                                         "it is left as it is") from None
            return self._recover(hidden_safe_error(e), lambda: salvage(self.path))
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
            self._too_new(stored_version(db))
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "matches", "actions"} <= tables:
                if "-wal" in self._look.had and self._wal_is_anothers(db):  # no journal's -wal
                    raise ForeignWal()  # (opened for writing, its pages were folded over the matches)
                return False  # an older or unfinished journal: the writing connection completes it
            check(db)
            if "-wal" in self._look.had and self._wal_is_anothers(db):
                raise ForeignWal()
            return True
        except (sqlite3.DatabaseError, BadRow) as e:
            if error_kind(e, self.path) == "damaged":
                raise
            return False  # busy, read-only, cannot open: said by the writing connection
        finally:
            db.close()

    def _wal_is_anothers(self, db):
        """True when the journal read with its -wal (``db``) and the file read alone disagree on a
        match they both hold: a match's row is written once and never changed, so the -wal is
        another journal's (copied in, left beside a file put back), which SQLite would lay over this
        one page by page and fold into it at the next checkpoint."""
        rows = "SELECT id, game, seats, options, started FROM matches"
        try:
            alone = sqlite3.connect(files.read_only_uri(self.path) + "&immutable=1", uri=True)
        except sqlite3.Error:
            return False
        try:
            mine = {row[0]: row for row in alone.execute(rows)}
        except sqlite3.Error:
            return False  # nothing to compare with (a file of one page, the rest in the -wal)
        finally:
            alone.close()
        try:
            theirs = db.execute(rows).fetchall()
        except sqlite3.OperationalError as e:  # the file alone holds matches, read through the -wal
            return "no such table" in str(e)   # none: the -wal of a file that is no journal
        return any(row[0] in mine and mine[row[0]] != row for row in theirs)

    def _connect(self, checked=False):
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            self._too_new(stored_version(db))  # before any write: a newer journal is never touched
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(f"BEGIN;{SCHEMA}COMMIT;")  # all the tables at once: a reader never sees some
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            # this journal's own name, made once (a reset box's new journal gets another): the club's
            # board keeps two journals' matches of one table apart by it (assistant/club/public.py)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('journal', ?)", (os.urandom(8).hex(),))
            if not checked:
                check(db)
        except BaseException:
            db.close()
            raise
        return db

    def _open_for_reading(self, check_files=False):
        """A read-only connection. ``check_files`` (export, the web page): files that SQLite would
        change even read-only (preflight.py) are one line saying the box must repair them."""
        if os.path.islink(self.path):  # the box refuses it too: its matches are not this box's
            raise JournalUnavailable(f"{self.path}: the journal's name is taken by a link (to "
                                     f"{os.readlink(self.path)[:80]}), not the box's file; nothing was read")
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
            stored = stored_version(db)
        except sqlite3.Error as e:
            raise JournalUnavailable(f"{self.path}: cannot read the journal ({e})") from None
        except BadRow as e:  # a schema number that is not one: the box sets the file aside and repairs it
            db.close()
            raise JournalUnavailable(f"{self.path}: cannot read the journal ({e}); the box repairs it "
                                     "at its next start") from None
        if stored is not None and stored > SCHEMA_VERSION:
            db.close()
            raise JournalTooNew(f"{self.path}: written by a newer card-assistant (schema {stored})")
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.Error:
            return db  # damage: said by the reads, as before
        if check_files and still == "" and self._wal_is_anothers(db) and self._wal_is_anothers(db):
            # (asked twice: a page the running box is writing back into the file is read once)
            db.close()  # another box's -wal copied in: SQLite would show its matches as this journal's
            raise JournalNeedsRepair(f"{self.path}: its -wal is another journal's: the journal needs the "
                                     "box's repair (made at its next start); nothing was read or changed")
        if not {"meta", "matches", "actions", "set_aside"} <= tables:
            # an empty file, or tables a box's first start stopped short of (killed, a full card):
            # a journal with no match yet, which the box completes at its next start (not damage:
            # "cannot be read (no such table: matches); the box recovers it" was said of it)
            db.close()
            db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            db.executescript(SCHEMA)
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
        why = (files.not_this_users(self.path) if kind == "readonly" else None) or e
        self.problems.append(f"the journal {self.path} is {what} ({why}): new actions cannot be saved")
        return db

    def _recover(self, reason, read, aside=None):
        """Set the damaged file aside (with its -wal/-shm, as they were before any connection),
        keep every action that can still be read (``read()``: the Salvaged rows), and go on from a
        new journal holding them."""
        look = self._look
        try:
            found = read()
            self._too_new(found.schema)  # a newer card-assistant's journal is left as it is, damaged or not
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
        self._repaired = (self.summary, self.problems[-1])
        return db

    def _unseen_repair(self):
        """Keep a repair's numbers in the journal until a person has seen them: a box killed just
        after its start repaired the journal (a watchdog restart, a second power cut) said them
        only at that start, so a user who did not see it never learned that actions were lost or
        set aside. The words of one not seen yet are said again (log and screen) at this start;
        this start's repair is kept for the next until :meth:`repair_seen`. True while one is kept."""
        try:
            earlier = json.loads((self.setting(UNSEEN) or "null")[:4096])
        except (sqlite3.Error, ValueError, RecursionError):  # (not the box's: edited by hand)
            earlier = None
        if not (isinstance(earlier, dict) and isinstance(earlier.get("log"), str)):
            earlier = None
        if earlier is not None:  # an earlier start's, unseen
            at = earlier.get("at")  # (a number no clock gives, in a journal edited by hand: no time)
            at = time.strftime(" at %Y-%m-%d %H:%M UTC", time.gmtime(at)) if type(at) is int and 0 < at < 2 ** 33 else ""
            self.problems.insert(0, f"the journal was repaired at a start{at}, which stopped before "
                                    f"anyone saw it: {earlier['log'][:400]}")
            if self.summary is None:
                said = earlier.get("summary")
                self.summary = (said if isinstance(said, str) and said else
                                "Journal repaired at an earlier start; see the log")[:120]
        if self._repaired[0] is not None:
            summary, words = self._repaired
            note = {"at": round(time.time()), "summary": summary, "log": words}
            while len(json.dumps(note)) > 400 and note["log"]:  # a setting a later repair still carries
                note["log"] = note["log"][:-20]
            earlier = note
            try:
                self.set_setting(UNSEEN, json.dumps(note))
            except JournalError:  # a card that keeps nothing: said at this start only
                return False
        return earlier is not None

    def repair_seen(self):
        """A person saw the repair's words (its alert was on the screen, then a press or tap took it
        away): not said again at the next start."""
        try:
            if self.setting(UNSEEN) is not None:
                self._write("DELETE FROM meta WHERE key=?", (f"setting:{UNSEEN}",))
        except (JournalError, sqlite3.Error):
            pass


def error_kind(e, path):
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


def hidden_safe_error(e):
    if isinstance(e, BadRow):
        return str(e)
    text = str(e)
    return text[:80] if text.isprintable() else "unreadable"


def stored_version(db):
    """The schema version a journal file records, or None for a new (empty) file; BadRow when
    the number is not a number."""
    if not db.execute("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()[0]:
        return None
    row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    return check_schema(row[0]) if row else None
