"""Finished and abandoned matches' records kept on disk beside the journal, so that the page's
first request after a start (a power cut) does not replay every match of the year: at 5,000
matches the first Players page took 55 s on a busy 2-core desktop (bench web; 13 s to replay on
an idle core), minutes on a Raspberry Pi Zero 2 W; from this file 1.4 s. An upgrade of the box
replays once when it changed the code a record is made by (``MADE_BY``: the code is in the key).

The file, ``web-records.sqlite3`` in the state folder, is the web page's own (the journal stays
read-only to it). Each record is kept under a key made of what its replay reads: the code
that makes it (an upgrade that changed it replays again), the match's game, seats, options and
start, and its rows' count, as the records kept in memory are (History): the box appends a match's rows and
never rewrites one, so a row set aside, or a journal repaired or restored from a copy, changes the
key, and that record is replayed, never taken from the file. The key is kept sealed with the
record's own text (``seal``): SQLite keeps no checksum of a page, and a bit a card flipped in a
record (a score of 5 read as 7) was served as the match's for as long as the file lasted; a
record that is not the text kept is replayed. (A line edited by hand into another would not be
noticed: whoever can edit the journal can edit this file too. Removing the file replays every
match at the next start.)
The file holds what the pages show (hands' results, scores, proven reneges), never a card.

Whatever goes wrong with the file (a read-only folder, a full disk, a damaged or foreign file,
another process writing it) costs the time it saves and nothing else: the records are replayed.
"""
import hashlib
import json
import logging
import os
import sqlite3
import stat
from dataclasses import fields
from pathlib import Path

from assistant.box.stats import Hand, MatchRecord

log = logging.getLogger("card-assistant.web")
NAME = "web-records.sqlite3"
SCHEMA = "CREATE TABLE IF NOT EXISTS records (id INTEGER PRIMARY KEY, key TEXT NOT NULL, record TEXT NOT NULL)"
MANY = 50  # more matches than this: read the whole table in one pass, not match by match (history.py too)
_LEFT_OUT = {"note", "finished"}  # set at each read from the journal, not kept
HAND = tuple(f.name for f in fields(Hand))  # a hand is kept as a list in this order
MADE_BY = ("rules", "box/stats.py", "web/kept.py")  # the code a record is made by (under assistant/)
_code = None


def code(package=None):
    """The digest of the code that makes a record (``MADE_BY``: the rules engines, the replay of
    box/stats.py, and this file): a record that other code made is not taken. Only that code: a
    key of the whole package's replayed every match of the year after every upgrade, even one
    that changed only the OLED's words (5,000 matches: a minute on a desktop, minutes on a Pi).
    ``package``: the assistant folder to read (this one's by default)."""
    global _code
    if package is not None:
        return _digest(Path(package))
    if _code is None:
        _code = _digest(Path(__file__).resolve().parents[1])
    return _code


def _digest(package):
    from assistant.cli import code_digest  # the version's digest, of MADE_BY only
    return code_digest(package, MADE_BY)


def key(match, rows):
    """The key of a match's record: ``match`` its journal row (id, game, seats, options, started,
    as the journal holds them), ``rows`` its rows' count, and the code that replays them."""
    # default=repr: a value of another type (damage: bytes where the box writes text) is keyed too
    text = json.dumps([code(), *match, rows], default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def seal(key, text):
    """What the file keeps beside the record ``text`` kept under ``key``: a digest of both, so a
    record changed on the card (a flipped bit that still reads as JSON) no longer matches its key."""
    return hashlib.sha256(f"{key}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()


def dump(rec):
    d = {f.name: getattr(rec, f.name) for f in fields(rec) if f.name not in _LEFT_OUT}
    d["hands"] = [[getattr(h, f) for f in HAND] for h in rec.hands]  # lists: half the time of dicts to load
    return json.dumps(d, ensure_ascii=False)


def load(text):
    d = json.loads(text)
    d["hands"] = [Hand(*h[:-2], tuple(h[-2]), h[-1]) for h in d["hands"]]
    d["seats"], d["side_of"] = tuple(d["seats"]), tuple(d["side_of"])
    return MatchRecord(**d)


class Kept:
    """The file of kept records; every method answers as if the file were empty when it cannot
    be read, and forgets what it cannot write."""

    def __init__(self, state_dir):
        self.path = os.path.join(state_dir, NAME)
        self._db = None

    def _open(self):
        if self._db is None:
            try:  # a folder, a pipe or a link at its name is not the page's file (a pipe hangs SQLite)
                if not stat.S_ISREG(os.lstat(self.path).st_mode):
                    raise sqlite3.OperationalError(f"{self.path} is not a file")
            except FileNotFoundError:  # made private, as the journal is, whatever the umask
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
            db = sqlite3.connect(self.path, timeout=0, isolation_level=None, check_same_thread=False)
            try:
                db.execute(SCHEMA)
            except sqlite3.DatabaseError:
                db.close()
                raise
            self._db = db
        return self._db

    def rows(self, ids):
        """``(id, key, record text)`` of the matches ``ids`` kept in the file, one at a time (all
        of a year's texts at once held 12 MB more at a start)."""
        if not ids or not os.path.lexists(self.path):
            return
        try:
            db = self._open()
            if len(ids) > MANY:
                yield from db.execute("SELECT id, key, record FROM records")
            else:
                yield from db.execute(f"SELECT id, key, record FROM records WHERE id IN ({','.join('?' * len(ids))})",
                                      list(ids))
        except (sqlite3.Error, OSError) as e:
            self._trouble("read", e)

    def put(self, items):
        """Keep ``[(id, key, record)]``, in one transaction, each key sealed with its record's text."""
        if not items:
            return
        try:
            db = self._open()
            db.execute("BEGIN IMMEDIATE")
            try:
                texts = [(mid, k, dump(rec)) for mid, k, rec in items]
                db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?)",
                               [(mid, seal(k, text), text) for mid, k, text in texts])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except Exception as e:  # whatever it is, the kept file is only ever a saving of time
            self._trouble("write", e)

    def _trouble(self, doing, e):
        log.debug("card-assistant web: could not %s %s (%s): the records are replayed instead",
                  doing, self.path, e)
        self.close()
        if isinstance(e, sqlite3.DatabaseError) and not isinstance(e, sqlite3.OperationalError):
            try:  # not a database (damaged by a power cut, or another file): made anew
                os.unlink(self.path)
            except OSError:
                pass

    def close(self):
        if self._db is not None:
            self._db.close()
            self._db = None
