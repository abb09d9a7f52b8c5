"""Saved actions the storage lost behind the box's back, and the losses the box can undo.

The count record (``journal.sqlite3.count``, journal_files.CountRecord) is written after each
action: at start it tells when the card dropped actions after they were saved. A journal file
removed while the box runs is written back under its name from the box's open connection; one
cut short (or a page SQLite finds malformed at a write) is repaired at once, the match in play
written back whole from what the box holds.

:class:`Losses` is a part of :class:`assistant.box.journal.Journal`: its methods use the
journal's ``db``, ``lock``, ``record``, ``problems``, ``summary``, ``_connect`` and ``_recover``.
"""
import logging
import os
import sqlite3

from assistant.box import journal_files as files
from assistant.box import preflight
from assistant.box.journal_files import JournalError
from assistant.box.salvage import salvage

log = logging.getLogger("card-assistant")


class Losses:
    """The count record and the write-back of a removed or cut file (a part of Journal)."""

    def _counts(self, match_id):
        one = "SELECT count(*) FROM {} WHERE match=?"
        count = sum(self.db.execute(one.format(t), (match_id,)).fetchone()[0] for t in ("actions", "set_aside"))
        total = sum(self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("actions", "set_aside"))
        return count, total

    def _judge_losses(self):
        """Compare the journal with its count record; say what the storage lost; record anew."""
        saved = self.record.read()
        if saved is None and os.path.lexists(self.record.path):
            self._record_problem("is not a file" if os.path.islink(self.record.path)
                                 or not os.path.isfile(self.record.path) else "holds no readable record")
        latest = self.db.execute("SELECT max(id) FROM matches").fetchone()[0] or 0
        first = self.db.execute("SELECT started FROM matches ORDER BY id LIMIT 1").fetchone()
        self.record.journal = files.journal_tag(first[0]) if first else None
        if saved is not None and self.record.journal and self.record.read_journal not in (None, self.record.journal) \
                and self.recovered is None:  # (a recovery may have lost the first match: compared)
            log.warning("the count record %s is of another journal (its first match began at another "
                        "time: a journal copied in from another box): nothing is compared, "
                        "it is written anew", self.record.path)
            saved = None
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

    def _file_now(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None  # removed: written back after the next commit (_restore)
        return st.st_ino, st.st_size

    def _repair(self, reason):
        """Damage met while the box runs (the file cut short under it, a page SQLite now finds
        malformed): this connection cannot read what the file lost, and every later write may fail.
        Recover as at opening from the files as they are now, with the current match's rows written
        back whole from what the box holds; said once in the log. JournalError when it cannot."""
        with self.lock:
            self._salvage_now(reason, lambda: self._held(salvage(self.path)))
            self._file = self._file_now()
            self._total = self._counts(self.match_id)[1]
        self._note(self.match_id, self._seq + self._aside)  # the loss is said here, not again at start
        log.error("the journal %s was damaged while the box ran: %s", self.path, self.problems[-1])

    def _salvage_now(self, reason, read):
        """Set the files aside as they are now (closing folds the -wal into the file), then
        recover from them with ``read``."""
        try:
            aside = files.set_aside_copy(self.path)
        except OSError as err:
            raise JournalError(files.say(self.path, err, "the journal is damaged and cannot be "
                                                         "copied aside")) from None
        self.db.close()
        self._look = preflight.Look(None, had=("", "-wal", "-shm"))
        try:
            self.db = self._recover(reason, read, aside)
        except JournalError:  # said by the caller; a connection again, so the next call says its own
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            raise
        self._watched = os.path.exists(self.path)

    def _held(self, found):
        """``found`` (the Salvaged rows) with the current match as the box holds it: every row."""
        if self._current is not None:
            found.matches[self.match_id] = self._current
            found.actions[self.match_id] = dict(enumerate(self._lines, 1))
            held = {(self.match_id, seq, line) for seq, line in enumerate(self._lines, 1)}
            found.set_aside = [r for r in found.set_aside if tuple(r[:3]) not in held]
        return found
