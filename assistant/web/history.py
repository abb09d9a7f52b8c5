"""The journal's matches as MatchRecords, read through a read-only connection and cached.

A finished or abandoned match never changes, so its record is kept by ``(id, rows)``; only the
match in play is replayed again when the journal has grown. The connection is the journal's own
read-only one (``mode=ro``, ``query_only``): this process can never write to the journal or hold
a lock that stops the daemon.
"""
import json
import os
import sqlite3
import time

from assistant.box.journal import Journal, JournalError, JournalNeedsRepair, JournalTooNew, clock_step
from assistant.box.stats import IN_PLAY, replay_match
from assistant.web import kept


class History:
    def __init__(self, state_dir):
        self.path = os.path.join(state_dir, "journal.sqlite3")
        self._journal = None
        self._still = None  # the file's signature while opened as immutable
        self._file = None  # the inode the connection reads (st_ino of its signature)
        self._cache = {}  # id -> (rows, latest, MatchRecord)
        self._kept = kept.Kept(state_dir)  # finished and abandoned matches' records, on disk
        self.version = 0  # goes up whenever a record is made anew or the kept ones are dropped
        self._counts = None  # (match id -> rows, match id -> rows set aside) at the last read
        self.latest = (None, 0)  # the latest match and its rows, as the last records() found them
        self.problem = None  # one line for the page while the journal needs the box's repair
        self.unreadable = None  # why the journal that is there could not be read just now, or None
        self.progress = None  # (replayed, to replay) while records() replays matches, else None

    def _signature(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino, os.path.exists(self.path + "-wal")

    def _db(self):
        # with no -wal beside it the journal is opened as immutable (nothing written, not even a
        # -shm): opened anew as soon as the file or its -wal shows that the daemon wrote
        # and, whatever the mode, as soon as the name is another file (the box's repair at its
        # start, a restored copy): an open connection would read the old inode for ever
        if self._journal is not None:
            sig = self._signature()
            if (self._still and sig != self._still) or sig is None or sig[2] != self._file:
                self.close()
        if self._journal is None:
            sig = self._signature()
            try:  # JournalError when there is none yet, or the box must repair it (nothing touched)
                self._journal = Journal(self.path, readonly=True)
            except JournalNeedsRepair:
                self.problem = ("The journal needs the box's repair (made at its next start): "
                                "nothing was read.")
                raise
            except JournalTooNew:  # its matches are there: "no match yet" would be untrue
                self.problem = "The journal was written by a newer card-assistant: update this box to read it."
                raise
            except JournalError:  # none yet: nothing to say but that
                self.problem = None
                raise
            self.problem = None
            self._still = sig if sig is not None and not sig[3] else None
            self._file = sig[2] if sig is not None else None
            # a journal opened anew may be another file (replaced, restored, repaired): its match
            # N may be another match with as many rows, so no record is kept from the last one
            self._cache.clear()
            self.version += 1
            self._counts = None
        return self._journal.db

    def records(self):
        """Every match of the journal, oldest first; [] while there is no journal, or when the one
        there cannot be read (``unreadable`` then says why)."""
        self.unreadable = None
        try:
            return self._records()
        except sqlite3.Error:
            self.close()  # a journal replaced under us (recovered by the daemon): open it anew
        try:
            return self._records()
        except sqlite3.Error as e:  # a damaged page: the box repairs it at its next start
            making = self._being_made()
            self.close()
            if not making:
                self.unreadable = f"{self.path}: {e}"
            return []

    def _being_made(self):
        """True for a journal with no table yet: the box is making it (a first start, a repair's new
        journal), and its tables come in a moment, all at once; no match yet, not damage."""
        try:
            return self._journal is not None and not self._journal.db.execute(
                "SELECT count(*) FROM sqlite_master").fetchone()[0]
        except sqlite3.Error:
            return False

    def _records(self):
        try:
            db = self._db()
            matches = db.execute("SELECT id, game, seats, options, started FROM matches ORDER BY id").fetchall()
            aside = dict(db.execute("SELECT match, count(*) FROM set_aside GROUP BY match"))
            counts = self._count_rows(db, aside)
            last = dict(db.execute("SELECT key, value FROM meta WHERE key LIKE 'last:%' OR key LIKE 'clock:%'"))
        except JournalError as e:
            self._cannot_open(e)
            return []
        latest = matches[-1][0] if matches else None
        self.latest = (latest, counts.get(latest, 0))
        fresh = self._made_anew(db, matches, counts, latest, last)
        out = []
        for mid, game, seats, options, started in matches:
            rows, is_latest = counts.get(mid, 0), mid == latest
            cached = self._cache.get(mid)
            if self._stale(mid, rows, is_latest):
                if mid not in fresh:  # a row the daemon will set aside at its next start
                    continue
                cached = self._cache[mid] = (rows, is_latest, fresh[mid])
                self.version += 1
            rec = cached[2]
            rec.note = kept_note(rec, rows, aside.get(mid, 0))
            rec.finished = _time(last.get(f"last:{mid}")) if rec.state == "finished" else None
            out.append(rec)
        return out

    def _stale(self, mid, rows, is_latest):
        """Is the record kept in memory for match ``mid`` missing, or of another count of rows (or
        made while it was the latest match, or not)?"""
        cached = self._cache.get(mid)
        return cached is None or cached[:2] != (rows, is_latest)

    def _made_anew(self, db, matches, counts, latest, last):
        """The records of the matches whose kept one is missing or stale: from the file of kept
        records (web.kept) when its key is the match's, else replayed (and then kept, but for the
        latest match, which changes at every action). A match that cannot be replayed is left out."""
        todo = [m for m in matches if self._stale(m[0], counts.get(m[0], 0), m[0] == latest)]
        if not todo:
            return {}
        keys = {m[0]: kept.key(m, counts.get(m[0], 0)) for m in todo if m[0] != latest}
        out = {}
        for mid, sealed, text in self._kept.rows(list(keys)):
            if mid in keys and isinstance(text, str) and kept.seal(keys[mid], text) == sealed:
                try:
                    out[mid] = kept.load(text)
                except Exception:  # a record the file lost part of: replayed
                    pass
        replay = [m for m in todo if m[0] not in out]
        new = []
        try:
            for done, ((mid, game, seats, options, started), lines) in enumerate(zip(replay, self._lines(db, replay))):
                self.progress = (done, len(replay))  # the pages say how far a long replay is (site.Reading)
                try:
                    # a match during which the box's clock was set (journal.clock_gap) began on the new clock
                    start = _time(started)
                    start = start and _time(start + clock_step(last.get(f"clock:{mid}")))
                    rec = replay_match(mid, game, tuple(json.loads(seats)), json.loads(options), lines,
                                       start, mid == latest)
                except Exception:  # a row the daemon will set aside at its next start
                    continue
                out[mid] = rec
                if mid in keys:
                    new.append((mid, keys[mid], rec))
        finally:
            self.progress = None
        self._kept.put(new)
        return out

    @staticmethod
    def _lines(db, todo):
        """Each match of ``todo``'s lines, in order; at a start (many matches) in one read of the
        table, one match at a time in memory (a year's lines at once were 100 MB)."""
        if len(todo) <= kept.MANY:
            for m in todo:
                yield [line for (line,) in db.execute("SELECT line FROM actions WHERE match=? ORDER BY seq", (m[0],))]
            return
        rows = db.execute("SELECT match, line FROM actions WHERE match BETWEEN ? AND ? ORDER BY match, seq",
                          (todo[0][0], todo[-1][0]))
        pending = next(rows, None)
        for m in todo:
            lines = []
            while pending is not None and pending[0] <= m[0]:
                if pending[0] == m[0]:
                    lines.append(pending[1])
                pending = next(rows, None)
            yield lines

    def _count_rows(self, db, aside):
        """Each match's rows. Counting every match's at every request read the whole actions table
        (5,000 matches: 0.25 s a page, and Now asks every second). In one file the box appends to
        its newest match only (a new match is newer still) and sets rows aside in the match it
        resumes (the set_aside table says which), so only the matches from the newest of the last
        read on, and those with rows newly set aside, are counted again."""
        if self._counts is None:
            counts = dict(db.execute("SELECT match, count(*) FROM actions GROUP BY match"))
        else:
            counts, was_aside = dict(self._counts[0]), self._counts[1]
            since = max(counts, default=0)
            counts.pop(since, None)  # counted again below, with any newer match
            counts.update(db.execute("SELECT match, count(*) FROM actions WHERE match >= ? GROUP BY match",
                                     (since,)))
            for mid, n in aside.items():
                if was_aside.get(mid) != n and mid < since:
                    rows = db.execute("SELECT count(*) FROM actions WHERE match = ?", (mid,)).fetchone()[0]
                    counts.pop(mid, None)
                    if rows:
                        counts[mid] = rows
        self._counts = (counts, aside)
        return counts

    @property
    def journal(self):
        """The read-only Journal (for its settings), or None before there is one."""
        return self._journal

    def _cannot_open(self, e):
        there = os.path.exists(self.path) or os.path.exists(self.path + "-wal")
        if there and not isinstance(e, JournalTooNew):
            self.unreadable = str(e)

    def scenario_lines(self, mid):
        """``(game, seats, options, lines, newest)`` of one match, ``newest`` the journal's latest
        match id in the same read; or None (``unreadable`` says if damaged)."""
        self.unreadable = None
        try:
            db = self._db()
            row = db.execute("SELECT game, seats, options FROM matches WHERE id=?", (mid,)).fetchone()
            if row is None:
                return None
            lines = [line for (line,) in db.execute(
                "SELECT line FROM actions WHERE match=? ORDER BY seq", (mid,))]
            newest = db.execute("SELECT max(id) FROM matches").fetchone()[0]
        except JournalError as e:
            self._cannot_open(e)
            return None
        except sqlite3.Error as e:
            making = self._being_made()
            self.close()
            if not making:
                self.unreadable = f"{self.path}: {e}"
            return None
        return row[0], tuple(json.loads(row[1])), json.loads(row[2]), lines, newest

    def close(self):
        self._kept.close()
        if self._journal is not None:
            self._journal.close()
            self._journal = None


def kept_note(rec, rows, aside):
    """Words for a match the journal kept no action of (its score says nothing), else None."""
    if rec.actions or rec.state == IN_PLAY:
        return None
    if aside:
        return f"no actions kept: {aside} set aside after journal damage (see the box's log)"
    return "no actions kept" if not rows else "no action in effect: every one was undone"


def _time(value):
    """A time the journal kept, or None when it is not one a page can show (a word, NaN, a number
    out of the calendar's range: damage the box sets aside at its next start)."""
    try:
        t = float(value)
        time.gmtime(t)
    except (TypeError, ValueError, OverflowError, OSError):
        return None
    return t if t > 0 else None
