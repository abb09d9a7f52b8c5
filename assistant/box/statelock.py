"""One box per state folder: `run` and `sim` hold a lock on ``box.lock`` in the folder while they
run, and a second writer (a `card-assistant run` started by hand beside the service, a second
`sim` on one ``--state-dir``) refuses at start in one line naming the first; before, the two
boxes each refused the other's actions as a database error, and the second one's start-up repair
could set aside the journal the first was writing. Readers (`export`, `web`) take no lock.

The lock is ``flock``: the kernel lets it go when its process ends, however it ends (SIGKILL, a
crash), so there is no stale lock to clear; the file only tells who holds it (process number,
host, command), written after the lock is taken. A folder where ``box.lock`` cannot be written (a
read-only card, a file root made) is locked read-only, or through the folder itself; a file
system that takes no lock (an NFS mount without its lock service) is one warning, and the box
runs without the guard. A process that already holds the folder (the sim's own box) holds it again.
"""
import errno
import fcntl
import logging
import os
import socket
import stat

from assistant.box.journal_files import JournalBusy, private_dir

log = logging.getLogger("card-assistant")
NAME = "box.lock"
JOURNAL = "journal.sqlite3"  # locked too: the same file may be another folder's journal (a hard link)
_held = {}  # (st_dev, st_ino) of a folder this process holds: [descriptor, count]


class StateBusy(JournalBusy):
    """Another box holds the state folder."""


def hold(folder, command):
    """Lock ``folder`` for this process (``command``: "run" or "sim", for the one refused), or
    raise StateBusy naming the holder. Returns the key for :func:`release`, or None when no
    lock could be taken (said in the log when that is the file system's doing)."""
    private_dir(folder)  # the folder is made (0700) or is one line, as the journal says it
    try:
        st = os.stat(folder)
    except OSError:
        return None  # the journal says why
    key = (st.st_dev, st.st_ino)
    if key in _held:
        _held[key][1] += 1
        return key
    folder_fd, file_fd = _open_folder(folder), _open_file(folder)
    journal_fd = _open_journal(folder)
    fds = [fd for fd in (folder_fd, file_fd, journal_fd) if fd is not None]
    locked = []
    for fd in fds:  # the folder first, so that two starting at once never hold one each
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            locked.append(fd)
        except OSError as e:
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                for each in fds:
                    os.close(each)
                raise StateBusy(busy_words(folder) if fd != journal_fd else linked_words(folder)) from None
            # ENOLCK, EOPNOTSUPP, EBADF: NFS without its lock service (or a folder on NFS), FUSE
    if fds and not locked:
        log.warning("%s: the file system takes no lock: a second box started on this folder would "
                    "not be refused", folder)
    if file_fd in locked:
        _tell(file_fd, command)
    _held[key] = [fds, 1]
    return key


def busy_words(folder):
    command, holder = _holder(folder)
    hint = " (the service's box: sudo systemctl stop card-assistant)" if command == "run" else ""
    return (f"{folder} is in use by {holder}: quit that one first{hint}; two boxes on one journal "
            f"would each refuse the other's actions")


def linked_words(folder):
    journal = os.path.join(folder, JOURNAL)
    return (f"{journal} is the journal of another card-assistant running now, in another folder (one "
            f"file under two names: a hard link): quit that one first, or give this folder a journal of "
            f"its own; two boxes on one journal would each write into the other's match")


def release(key):
    """Undo one :func:`hold` (the lock ends with the last, or with the process)."""
    if key is None or key not in _held:
        return
    _held[key][1] -= 1
    if _held[key][1] == 0:
        for fd in _held.pop(key)[0]:
            os.close(fd)


def _open_folder(folder):
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None  # the journal says why


def _open_file(folder):
    """``box.lock``, to tell who holds the folder (and to lock where a folder takes no lock: NFS),
    or None: a link, pipe or folder under that name is left alone (the folder's lock guards)."""
    path = os.path.join(folder, NAME)
    flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    for mode in (os.O_RDWR | os.O_CREAT, os.O_RDONLY):
        try:
            fd = os.open(path, mode | flags, 0o600)
        except OSError as e:
            if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                continue  # root's file, a read-only card: read-only, or none
            return None  # none, and none can be made (a full card); a link, a folder
        return _regular(fd)
    return None


def _open_journal(folder):
    """The journal's file (made 0600 when missing, as the journal makes it), locked too: two state
    folders holding one journal under two names (a hard link, made by a copy with ``cp -al`` or
    by hand) are two folders and two ``box.lock``; before, both boxes started and wrote into one
    match, each through its own -wal. None when it cannot be opened (a link, not a file, a
    read-only card: the journal says why)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    path = os.path.join(folder, JOURNAL)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            return None
    except OSError:
        return None
    return _regular(fd)


def _regular(fd):
    """``fd`` if it is open on a regular file, else None (and closed): a pipe or a device under
    the name."""
    if stat.S_ISREG(os.fstat(fd).st_mode):
        return fd
    os.close(fd)
    return None


def _tell(fd, command):
    """Write who holds the lock; a full card leaves it empty (the lock holds all the same)."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {socket.gethostname()} {command}\n".encode(), 0)
    except OSError:
        pass


def _holder(folder):
    """The holder in words, from what it wrote."""
    try:  # never through a link, never waiting on a pipe
        fd = os.open(os.path.join(folder, NAME), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            text = os.read(fd, 200) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        finally:
            os.close(fd)
        pid, host, command = text.decode().split()
        pid = int(pid)
    except (OSError, ValueError, UnicodeDecodeError):
        return None, "another card-assistant"
    where = "" if host == socket.gethostname() else f" on {host[:60]}"
    return command, f"another card-assistant ({command[:10]}, process {pid}{where})"
