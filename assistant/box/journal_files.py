"""The journal's files on disk: a private folder and file, and swapping a damaged journal for a
repaired one without a moment where a power cut could leave neither.

The journal holds hidden information (the face-down trump, scanned hands), so whoever starts the
box, its folder is created 0700 and its file 0600 (SQLite gives the ``-wal`` and ``-shm`` the
file's mode).
"""
import errno
import os
import time

from assistant.textfile import read_only_mount, sync_dir


class JournalError(Exception):
    """The journal could not store an action (a full disk, a read-only card): nothing was kept."""


class JournalTooNew(JournalError):
    """The journal was written by a newer card-assistant (a higher schema). This version does not
    read it, write to it or set it aside: it is left exactly as it is for that version."""


class JournalBusy(JournalError):
    """Another program holds the journal's lock: it is left as it is (systemd tries again)."""


class JournalUnavailable(JournalError):
    """The state directory or the journal cannot be used at all; one line naming the path."""


class JournalNeedsRepair(JournalUnavailable):
    """A reader (export, the web page) met files that SQLite would change or misread even
    read-only (preflight.py): it opened nothing; the box repairs them at its next start."""


AFTER_RECOVERY = ".recovered"  # the repaired journal, ready, until it takes the journal's name


def read_only_uri(path):
    """SQLite's read-only URI for ``path``, quoted: a ``?``, ``#`` or ``%`` in a folder's name is
    part of the path, not of the URI."""
    from urllib.parse import quote
    return f"file:{quote(path)}?mode=ro"


def say(path, e, what):
    """One line naming the path and what is wrong, from an OSError (or any error)."""
    reason = {errno.EACCES: "permission denied", errno.EPERM: "not permitted",
              errno.EROFS: "on a read-only file system", errno.ENOSPC: "the card is full",
              errno.ENOTDIR: "a part of the path is a file, not a folder",
              errno.EEXIST: "it is a file, not a folder", errno.ENOENT: "no such folder"}.get(
                  getattr(e, "errno", None), str(getattr(e, "strerror", None) or e))
    from assistant.cli import shown
    return f"{shown(path)}: {what} ({reason})"


def not_this_users(path):
    """Words naming the first of the journal's files (the file, its -wal, its -shm) that this
    user may not read and write (another user's, or a mode that takes it away), or None; a
    read-only card is said as one elsewhere. SQLite only says "attempt to write a readonly
    database" or "unable to open database file", and the box said the storage card was
    read-only: the owner then looked at the card, not at the file."""
    if read_only_mount(os.path.dirname(path) or ".") is not False:
        return None
    for name in (path, path + "-wal", path + "-shm"):
        try:
            st = os.stat(name)
        except OSError:
            continue
        if os.access(name, os.R_OK | os.W_OK):
            continue
        cannot = "read or write" if not os.access(name, os.R_OK) else "write"
        return (f"{name} is {_user(st.st_uid)}'s (mode {st.st_mode & 0o777:03o}): this user, "
                f"{_user(os.getuid())}, may not {cannot} it; make it the box user's, mode 600")
    return None


def _user(uid):
    import pwd
    try:
        return pwd.getpwuid(uid).pw_name[:32]
    except KeyError:
        return f"uid {uid}"


def private_dir(folder):
    """Make ``folder`` (0700 when this creates it); a path that cannot be one is one line."""
    if os.path.isdir(folder):
        if not os.access(folder, os.R_OK | os.X_OK):
            raise _unavailable(folder, PermissionError(errno.EACCES, "denied"), "cannot read the state folder")
        return
    if os.path.islink(folder):  # to nothing, or round in a loop: "a file" sent people looking for one
        raise _unavailable(folder, OSError(errno.ELOOP, "a link that leads to no folder"),
                           "the state folder is not a folder")
    if os.path.lexists(folder):
        raise _unavailable(folder, OSError(errno.EEXIST, "exists"), "the state folder is not a folder")
    try:
        os.makedirs(folder, mode=0o700)
        os.chmod(folder, 0o700)  # makedirs' mode is narrowed by the umask, never widened: say it
    except OSError as e:
        raise _unavailable(folder, e, "cannot create the state folder") from None


def private_file(path):
    """Create the journal's file 0600, or narrow an existing one that others could read."""
    if not os.path.exists(path):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        return
    try:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError:
        pass  # not ours to change (another owner, a read-only card): reading it still works


def finish_recovery(path, tables=("meta", "matches", "actions"), what="journal"):
    """A power cut between writing the repaired journal and putting it in place leaves it under
    its temporary name (``.recovered``, made only once it is whole and synced): put it in place
    now. Whatever of the damaged files is still under the journal's name is set aside first
    (never deleted: it may be the only copy). A ``.recovered`` that is not a whole journal (junk,
    a folder, damaged since) is set aside instead and the journal left to open as it is: before,
    it took the journal's place, and a sound journal of 870 actions became "0 recovered, 870
    lost". Returns the words for that, or None. ``tables``: those a whole file holds, ``what``: its
    name in the words (the club board's file is repaired the same way: club/store_repair.py)."""
    ready = path + AFTER_RECOVERY
    if not os.path.lexists(ready):
        return None
    if not _whole_journal(ready, tables):
        aside = _aside_name(path) + AFTER_RECOVERY
        os.replace(ready, aside)
        return (f"{os.path.basename(ready)} (a repaired {what} an interrupted repair leaves) is not "
                f"one: kept as {os.path.basename(aside)}; the {what} is opened as it is")
    if any(os.path.lexists(path + s) for s in ("", "-wal", "-shm")):
        _move_aside(path)
    os.replace(ready, path)
    sync_dir(path)
    return None


def _whole_journal(path, tables):
    """A regular file that SQLite reads whole, holding ``tables``."""
    import sqlite3
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    try:
        db = sqlite3.connect(read_only_uri(path) + "&immutable=1", uri=True)
        try:
            held = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            return set(tables) <= held and \
                db.execute("PRAGMA integrity_check(1)").fetchone() == ("ok",)
        finally:
            db.close()
    except sqlite3.Error:
        return False


SIDE = ("-wal", "-shm", "-journal")  # the names SQLite opens beside a database file


def odd_side_files(path):
    """The names SQLite opens beside the journal that something other than a regular file holds:
    a pipe there held every connection for ever (SQLite reads a ``-journal`` to see whether it
    must roll one back, and a pipe's read waits for a writer), a folder made the journal unusable."""
    return [s for s in SIDE if os.path.lexists(path + s) and (os.path.islink(path + s) or not os.path.isfile(path + s))]


def move_odd_aside(path, what="the journal"):
    """Set aside (renamed, never deleted) what ``odd_side_files`` finds: it holds no saved action
    (SQLite could not have written one there). The words for the log (``what``: the file's
    name in them), or None."""
    odd = odd_side_files(path)
    if not odd:
        return None
    aside = _aside_name(path)
    for suffix in odd:
        os.replace(path + suffix, aside + suffix)
    sync_dir(path)
    names = ", ".join(os.path.basename(path) + s for s in odd)
    return f"{names} (where SQLite keeps its own files) was not a file: moved aside as " \
           f"{os.path.basename(aside)}{odd[0]}; {what} is opened as it is"


def remove_files(path):
    """Remove a database file and the files SQLite keeps beside it."""
    for name in (path, *(path + s for s in SIDE)):
        if os.path.lexists(name):
            os.remove(name)


def _aside_name(path):
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside, n = f"{path}.damaged-{stamp}", 1
    while any(os.path.lexists(aside + s) for s in ("",) + SIDE):
        n += 1
        aside = f"{path}.damaged-{stamp}-{n}"
    return aside


def _move_aside(path, had=("", "-wal", "-shm"), shm=None):
    """Rename the journal's files to a dated name, the -wal first (never left beside another
    file); those not in ``had`` (made by a connection since) are removed; ``shm``: the -shm's
    bytes as they were before any connection, kept instead of what is there now."""
    aside = _aside_name(path)
    for suffix in ("-wal", "-shm", ""):
        name = path + suffix
        if suffix == "-shm" and shm is not None:
            _write_private(aside + suffix, shm)
            if os.path.lexists(name):
                os.remove(name)
        elif suffix in had and os.path.lexists(name):
            os.replace(name, aside + suffix)
        elif suffix and os.path.lexists(name):
            os.remove(name)
    return aside


def set_aside_copy(path):
    """Copy the journal's files, byte for byte, to a dated name before a connection that is
    open on them closes (closing folds the -wal into the file and deletes it)."""
    import shutil
    aside = _aside_name(path)
    for suffix in ("", "-wal", "-shm"):
        if os.path.isfile(path + suffix):
            fd = os.open(aside + suffix, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with open(path + suffix, "rb") as src, open(fd, "wb") as dst:
                shutil.copyfileobj(src, dst)
                dst.flush()
                os.fsync(dst.fileno())
    sync_dir(path)
    return aside


def _write_private(name, data):
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "wb") as f:
        f.write(data)


def replace_with_recovered(path, write, had=("", "-wal", "-shm"), shm=None, aside=None):
    """Write a repaired journal with ``write(tmp)``, set the damaged one (and its -wal/-shm)
    aside under a dated name, put the repaired one in its place. The name set aside.
    ``had``/``shm``: what was there before any connection (see ``_move_aside``); ``aside``: the
    files were already copied there (``set_aside_copy``), so what is left is replaced."""
    tmp = path + ".recovering"
    if os.path.isdir(tmp) and not os.path.islink(tmp):  # a folder under the name (never the box's):
        os.replace(tmp, _aside_name(path) + ".recovering")  # moved aside, it held up every repair
    remove_files(tmp)
    private_file(tmp)
    write(tmp)
    _fsync(tmp)
    os.replace(tmp, path + AFTER_RECOVERY)
    if aside is None:
        aside = _move_aside(path, had, shm)
    else:
        for suffix in ("-wal", "-shm"):  # never left beside the repaired file
            if os.path.lexists(path + suffix):
                os.remove(path + suffix)
    os.replace(path + AFTER_RECOVERY, path)
    sync_dir(path)
    return aside


def _unavailable(path, e, what):
    return JournalUnavailable(say(path, e, what))


def _fsync(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _open_file(path, flags):
    """A descriptor of the regular file at ``path``; OSError for anything else: a pipe in its
    place held the box's start for ever (opening one waits for the other end), and a link had the
    record written through it (one to the journal wrote it over the journal's header)."""
    import stat
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_NOFOLLOW, 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a file")
    os.set_blocking(fd, True)
    return fd


def journal_tag(started):
    """Which journal a count record is of: its first match's start time (never changed), hashed."""
    import zlib
    return None if started is None else f"{zlib.crc32(repr(float(started)).encode()):08X}"


class CountRecord:
    """How many actions the journal had saved, kept beside it in a small file of its own
    (``journal.sqlite3.count``) and synced after each commit: ``match`` (the current match),
    ``count`` (that match's rows) and ``total`` (all rows). SQLite cannot tell that a lost or torn
    ``-wal`` took committed transactions with it (it starts from what is left); this record can,
    since it is written after the journal's own sync and is not part of the -wal.

    One line of at most 64 bytes with its own CRC-32, written in place at offset 0: a torn write
    fails the CRC and is read as "unknown", never as a loss."""

    SIZE = 64

    def __init__(self, path):
        self.path = path
        self.fd = None
        self.journal = None  # whose record this is (journal_tag), written with it: set by the journal
        self.read_journal = None  # whose the record read was, or None (a record before that was kept)

    def read(self):
        """``(match, count, total)`` or None (no record, or a torn one)."""
        import zlib
        try:
            fd = _open_file(self.path, os.O_RDONLY)
        except OSError:
            return None
        try:
            data = os.read(fd, self.SIZE)
        except OSError:
            return None
        finally:
            os.close(fd)
        try:
            text = data.decode("ascii").rstrip(" \n")
            body, _, crc = text.rpartition(" ")
            words = body.split()
            if (words[0], len(words)) not in (("count1", 4), ("count2", 5)) or \
                    int(crc, 16) != zlib.crc32(body.encode()):
                return None
            self.read_journal = words[4] if words[0] == "count2" else None
            return tuple(int(w) for w in words[1:4])
        except (UnicodeDecodeError, ValueError, IndexError):
            return None

    def write(self, match, count, total):
        import zlib
        body = f"count2 {match or 0} {count} {total} {self.journal}" if self.journal else \
            f"count1 {match or 0} {count} {total}"
        line = f"{body} {zlib.crc32(body.encode()):08X}".ljust(self.SIZE - 1).encode() + b"\n"
        if self.fd is not None and os.fstat(self.fd).st_nlink == 0:  # removed under the box (the whole
            self.close()  # folder, say): written anew beside the journal, not into a nameless file
        if self.fd is None:
            self.fd = _open_file(self.path, os.O_WRONLY | os.O_CREAT)
        os.pwrite(self.fd, line, 0)
        os.fdatasync(self.fd)

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
