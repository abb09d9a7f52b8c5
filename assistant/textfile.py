"""A small text file (a deck, players.txt, the config) read whole, or a refusal in plain words
naming it: never Python's own ``'utf-8' codec can't decode byte 0xff`` or ``[Errno 21] Is a
directory``, and never a read that does not end: a pipe, a device (``/dev/zero``) or a file far
too big for what it is, is refused before it is read.

>>> read_text("/")
Traceback (most recent call last):
ValueError: / is a folder, not a file
>>> read_text("/dev/zero")
Traceback (most recent call last):
ValueError: /dev/zero is a device (a character device), not a file
"""
import errno
import os
import stat
import sys
from pathlib import Path

LIMIT = 1 << 20  # bytes: a deck is under 1 KiB, players.txt and the config a few


class NotSmallFile(ValueError):
    """A path that is not a regular file, or one bigger than the limit; the message names neither
    the path nor the reader (the caller says what the file is for)."""


def not_a_file(mode, wanted="a file"):
    """What a name that is neither a file nor a folder is, in words ("is a socket, not a file";
    ``wanted``: what it should have been, "a folder" for a state folder):
    "not a file (a device, a pipe or a socket)" left the owner to find out which, and a socket
    was "cannot be read (No such device or address)", the kernel's words for opening one."""
    kind = ("a socket" if stat.S_ISSOCK(mode) else "a named pipe (a FIFO)" if stat.S_ISFIFO(mode)
            else "a device (a character device)" if stat.S_ISCHR(mode)
            else "a device (a block device)" if stat.S_ISBLK(mode) else "not a regular file")
    return f"is {kind}, not {wanted}" if kind != "not a regular file" else f"is not {wanted}"


def read_small(path, limit=LIMIT):
    """The bytes of the regular file at ``path``, at most ``limit``; OSError as ``open()`` raises it
    (a folder: IsADirectoryError), NotSmallFile for anything else that is not a small file. The
    file is opened without blocking, so a pipe with no writer is refused, not waited for."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ENXIO:  # a socket (or a device with no driver): say which it is
            try:
                raise NotSmallFile(not_a_file(os.stat(path).st_mode)) from None
            except OSError:
                pass
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not stat.S_ISREG(st.st_mode):
            raise NotSmallFile(not_a_file(st.st_mode))
        data = f.read(limit + 1)
    if len(data) > limit:
        raise NotSmallFile(f"is too big ({st.st_size} bytes; at most {limit} are read)")
    return data


def read_text(path):
    """The UTF-8 text of ``path`` (without a byte-order mark); ValueError saying why not (a folder, not UTF-8, unreadable,
    not a file, too big)."""
    path = Path(path)
    try:
        return read_small(path).decode("utf-8-sig")  # an editor's byte-order mark is no text
    except IsADirectoryError:
        raise ValueError(f"{path} is a folder, not a file") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file (not UTF-8)") from None
    except NotSmallFile as e:
        raise ValueError(f"{path} {e}") from None
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist") from None
    except OSError as e:
        raise ValueError(f"{path} cannot be read ({e.strerror or type(e).__name__})") from None


def what_is_at(path):
    """``"file"``, ``"folder"``, ``"other"`` (a device, a pipe, a socket) or None when nothing is
    there: no such name, a file where a folder was expected, a link loop, a NUL in the name (as
    ``Path.exists()`` answers False). OSError when the name cannot be looked at: a folder this
    user may not enter, a name too long for the file system. Python 3.11's ``exists()``,
    ``is_file()`` and ``is_dir()`` raise then too, but each caller had to know it; here it is the
    one documented answer, and each caller says what it means for its own file.

    >>> what_is_at("/"), what_is_at("/dev/null"), what_is_at("/no/such/name"), what_is_at("a\\0b")
    ('folder', 'other', None, None)
    """
    try:
        mode = os.stat(path).st_mode
    except ValueError:  # a NUL in the name: no file can have it
        return None
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return None
        raise
    return "folder" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"


def write_text(path, text, mode=None):
    """Write ``text`` (UTF-8) to ``path`` atomically: into a new file beside it (0600), synced,
    renamed over it, and the folder synced, so neither a crash mid-write (never half a file: a
    deck, players.txt) nor a power cut just after (the rename kept) undoes it. The new file has a
    name of its own each time: a pipe left under a fixed one held `players add` for ever, a
    folder there refused it. It keeps the file's mode and owner (a deck `sudo enroll` rewrites
    stays readable by the box's user); ``mode``: the file's mode whatever it had (an export's 0600:
    it holds hidden cards).

    A name that leads into a process's open files (``/dev/stdout``, ``/proc/1/fd/7``) is refused
    (OSError): renamed over, the link ``/dev/stdout`` itself became a file (`sudo card-assistant
    export /dev/stdout` broke every program's standard output on the machine); written through, a
    link planted in the box's folder would reach a file of root's that a root process holds open.
    ``write_out`` writes through this process's own. Any other link is renamed over, never
    followed: the rename would land wherever a link planted in a shared folder leads (``/tmp/x ->
    /etc/passwd``, written by root), past the kernel's protected_symlinks, which guards opening a
    link only."""
    path = Path(path)
    if names_a_descriptor(path):
        raise OSError(errno.EINVAL, "it names an open file descriptor, not a file", str(path))
    _sweep(path)
    fd, tmp = _new_file(path)
    try:
        if mode is None:
            _same_access(fd, path)
        else:
            os.fchmod(fd, mode)
        with open(fd, "w", encoding="utf-8", closefd=False) as f:
            f.write(text)
            f.flush()
            os.fsync(fd)
        os.replace(tmp, path)  # still locked: no sweep takes it away before it has its name
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    finally:
        os.close(fd)
    sync_dir(path)


def _new_file(path):
    """``(descriptor, name)`` of a new file of its own beside ``path`` (0600), held locked (flock)
    until it is closed: a file under such a name that nobody holds is the leftover of a writer
    killed before its rename (``_sweep``). One a sweep took away before it was locked is made again."""
    import fcntl
    import tempfile
    for _ in range(10):
        try:
            fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        except OSError as e:  # named as the file it was for
            raise OSError(e.errno, e.strerror, str(path)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # a sweep holding it unlinks it first: seen just below
        except OSError:  # no locks on this file system: a name of its own is enough
            return fd, tmp
        try:
            if os.lstat(tmp).st_ino == os.fstat(fd).st_ino:
                return fd, tmp
        except FileNotFoundError:  # a sweep took it away before the lock: made again
            pass
        os.close(fd)
    return tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)


def _sweep(path):
    """Remove what writers of ``path`` killed before their rename left beside it (``NAME.xxxxxxxx.tmp``:
    a SIGKILL or power cut during `players add` or `export --all` left one at each kill, for good, in
    the box's state folder and, a match's hidden cards in it, in the folder export wrote to). A file
    a living writer holds (its flock) is left alone; so is anything that is not a regular file."""
    import fcntl
    import re
    leftover = re.compile(re.escape(path.name) + r"\.[a-z0-9_]{8}\.tmp")
    try:
        names = [n for n in os.listdir(path.parent) if leftover.fullmatch(n)]
    except OSError:
        return
    for name in names:
        there = path.parent / name
        try:
            fd = os.open(there, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.lstat(there).st_ino == st.st_ino:
                os.unlink(there)
        except OSError:
            continue  # held by a writer at work, or not ours to remove
        finally:
            os.close(fd)


def write_out(path, text, mode=None):
    """Write ``text`` where a user sent a command's output: a file (or a new name) atomically, as
    ``write_text``; a pipe, a terminal or /dev/null as it is. A named pipe that nothing reads from
    is refused at once (OSError, ENXIO): opened the usual way it held the command for ever; a
    socket there is said to be one (it fails as a pipe with no reader does). A name
    of this process's own open descriptor (``/dev/stdout``, ``/dev/fd/1``) is written through that
    descriptor, as ``>`` or ``>> log`` opened it (never emptied again: ``>> log`` keeps what it
    gathered), followed by what the command prints after it."""
    if (number := own_descriptor(path)) is not None:
        # through the descriptor itself (a copy of it), at its own position, as the shell's `>` writes:
        # opened anew it had a position of its own, and what the command printed after it (replay's
        # --json) wrote over the export from the start of the file
        for stream in (sys.stdout, sys.stderr):  # what Python holds for it goes first
            try:
                if stream is not None and stream.fileno() == number:
                    stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        with open(os.dup(number), "w", encoding="utf-8") as f:
            f.write(text)
        return
    if what_is_at(path) in (None, "file"):
        return write_text(path, text, mode)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as e:
        if e.errno == errno.ENXIO:  # a pipe with no reader, or a socket (opened, it fails alike)
            try:
                kind = os.stat(path).st_mode
            except OSError:
                kind = stat.S_IFIFO
            words = ("it is a named pipe that nothing reads from" if stat.S_ISFIFO(kind)
                     else "it " + not_a_file(kind))
            raise OSError(e.errno, words, str(path)) from None
        raise
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        os.set_blocking(fd, True)
        f.write(text)


def own_descriptor(path):
    """The number of this process's open descriptor that ``path`` names (``/dev/stdout``: 1), else
    None (another process's, or no descriptor at all).

    >>> own_descriptor("/dev/stdout"), own_descriptor("/dev/fd/2"), own_descriptor("/proc/1/fd/0")
    (1, 2, None)
    """
    found = _in_a_descriptor_table(path)
    if found is None or found[0] != os.path.realpath("/proc/self/fd") or not found[1].isdigit():
        return None
    return int(found[1])


def names_a_descriptor(path):
    """True when ``path`` leads, through links, into a process's table of open files (``/dev/stdout``,
    ``/dev/fd/N``, ``/proc/1/fd/N``): a name for whatever that descriptor is open on, which no
    rename may replace.

    >>> names_a_descriptor("/dev/stdout"), names_a_descriptor("/proc/1/fd/0"), names_a_descriptor("/tmp/x")
    (True, True, False)
    """
    return _in_a_descriptor_table(path) is not None


def _in_a_descriptor_table(path):
    """``(the table's folder, the name in it)`` where ``path`` leads through links into a process's
    table of open files (``/proc/PID/fd``), else None."""
    path = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit of links in a row
        folder = os.path.realpath(os.path.dirname(path))
        if folder.startswith("/proc/") and os.path.basename(folder) == "fd":
            return folder, os.path.basename(path)
        if not os.path.islink(path):
            return None
        path = os.path.join(folder, os.readlink(path))
    return None


def read_only_mount(folder):
    """True when ``folder`` is on a file system mounted read-only, False when not, None when the
    system cannot say (the folder cannot be looked at).

    >>> read_only_mount("/proc/sys") is not None, read_only_mount("/no/such/folder")
    (True, None)
    """
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return None


def sync_dir(path):
    """Make what was renamed or made in ``path``'s folder durable (the folder's fsync); a folder
    that cannot be synced is passed by: the rename is as durable as its file system makes it."""
    try:
        folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(folder)
    except OSError:
        pass
    finally:
        os.close(folder)


def _same_access(fd, path):
    """Give the new file ``path``'s mode and owner, or a new file's mode (the umask's)."""
    try:
        st = os.stat(path)
    except OSError:
        mask = os.umask(0o077)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        return
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except OSError:
        pass  # not root: the file is this user's, as it would have been before
    os.fchmod(fd, stat.S_IMODE(st.st_mode))
