"""What the journal's files on disk say before SQLite opens them.

SQLite changes files when it opens them: given a journal file that is empty or missing while its
``-wal`` is there, it deletes the ``-wal`` (even read-only), and with it every action saved since
the last checkpoint, which after a power cut is almost all of them; a writing connection that
closes folds the ``-wal`` into the file; a damaged stretch in the ``-wal`` makes it drop every
frame after it. So the files are looked at first, as bytes (a stat, the 100-byte header, and the
``-wal`` frame by frame when there is one, walscan.py): when they look wrong the box sets them
aside exactly as they were and recovers from copies, and a reader (export, the web page) says
that the journal needs the box's repair and leaves every byte.

At a clean start there is no ``-wal``: the look is a stat and a 100-byte read.
"""
import os
import time
from dataclasses import dataclass

from assistant.box import walscan
from assistant.box.journal_files import odd_side_files

MAGIC = b"SQLite format 3\x00"
SHM_MAX = 1 << 22  # a -shm is 32 KiB per 4,062 frames: anything larger is not one to keep in memory


@dataclass
class Look:
    wrong: str | None  # why the files cannot be handed to SQLite as they are (plain words), or None
    had: tuple = ()  # which of "", "-wal", "-shm" were there before any connection
    shm: bytes | None = None  # the -shm's bytes then (a read-only connection may rewrite it)
    wal: walscan.Wal | None = None
    wal_data: bytes = b""  # kept only when the files look wrong (the recovery reads its frames)


def _read(path, limit=None):
    try:
        with open(path, "rb") as f:
            return f.read() if limit is None else f.read(limit)
    except OSError:
        return None


MAP_FROM = 1 << 26  # a -wal is about 4 MB (SQLite checkpoints at 1,000 pages): past 64 MB it is mapped


def read_wal(path):
    """A -wal's bytes, read whole, or mapped when large: a -wal of gigabytes (grown while a reader
    held SQLite's checkpoints back, or a size a damaged file system reports) was read into memory
    and the start ended in "internal error (MemoryError)" on a 1 GB box. None when it cannot be
    read or mapped (permissions, a 32-bit box's address space): SQLite then reads it as before."""
    import mmap
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size <= MAP_FROM:
                return f.read()
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError, OverflowError, MemoryError):
        return None


def page_size(head):
    """The page size a database header records, or None."""
    if len(head) < 100 or head[:16] != MAGIC:
        return None
    size = int.from_bytes(head[16:18], "big")
    size = 65536 if size == 1 else size
    return size if 512 <= size <= 65536 and size & (size - 1) == 0 else None


def inspect(path, deep=True):
    """Look at the journal at ``path`` and its -wal/-shm. ``deep=False`` (a reader) asks only what
    would make SQLite delete or drop saved frames: a missing or empty file with a -wal, a -wal with
    committed frames after a damaged stretch."""
    had = tuple(s for s in ("", "-wal", "-shm") if os.path.isfile(path + s))
    size = os.path.getsize(path) if "" in had else 0
    head = _read(path, 100) if size else b""
    wal_data = read_wal(path + "-wal") if "-wal" in had else b""
    if head is None or wal_data is None:  # not readable (permissions): SQLite says why, as before
        return Look(None, had)
    shm = _read(path + "-shm", SHM_MAX) if "-shm" in had and wal_data else None
    wal = walscan.read(wal_data, page_size(head)) if wal_data else None
    look = Look(None, had, shm, wal)
    if not size and len(wal_data) >= walscan.HEADER + walscan.FRAME_HEADER:
        what = "missing" if "" not in had else "empty"
        look.wrong = f"the journal file is {what} but its -wal holds {len(wal_data)} bytes"
    elif deep and size and page_size(head) is None:
        look.wrong = "the journal file's header is not a database header"
    elif deep and size and _cut_short(head, size, wal):
        look.wrong = f"the journal file is cut short ({size} bytes, its header says {_cut_short(head, size)})"
    elif wal is not None and wal.damaged:
        look.wrong = (f"its -wal is damaged: {len(wal.after)} saved page(s) after a damaged stretch, "
                      "which SQLite would drop")
    if look.wrong:
        look.wal_data = wal_data
    return look


def _cut_short(head, size, wal=None):
    """The size the header records when the file is shorter than that (0 otherwise). Pages past
    the end that the -wal holds are not missing: a power cut during a checkpoint leaves that."""
    counter, pages, valid_for = head[24:28], int.from_bytes(head[28:32], "big"), head[92:96]
    ps = page_size(head)
    want = pages * ps
    if counter != valid_for or want <= size:
        return 0
    if wal is not None and wal.page_size == ps:
        held = {f[1] for f in wal.frames[:wal.used]}
        if all(p in held for p in range(size // ps + 1, pages + 1)):
            return 0
    return want


_SAID = {}  # path -> (the files' signature, the answer): a reader asking again (the web page's
# every request while the box is away) reads the -wal again only when a file changed


def _signature(path):
    out = []
    for suffix in ("", "-wal"):
        try:
            st = os.stat(path + suffix)
            out.append((st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append(None)
    return tuple(out)


def needs_repair(path):
    """For a reader: why the journal must not be opened by SQLite until the box repairs it, or
    None. A damaged -wal is looked at twice (the box may be restarting its -wal as it is read)."""
    odd = odd_side_files(path)
    if odd:  # SQLite would wait on a pipe there for ever, even read-only
        return f"{os.path.basename(path)}{odd[0]} (where SQLite keeps its own files) is not a file"
    sig = _signature(path)
    if sig == (None, None):
        return None
    if _SAID.get(path, (None,))[0] == sig:
        return _SAID[path][1]
    look = inspect(path, deep=False)
    answer = look.wrong
    if look.wrong and look.wal is not None and look.wal.damaged and os.path.isfile(path):
        time.sleep(0.05)
        again = inspect(path, deep=False)
        if not (again.wrong and again.wal is not None and again.wal.after == look.wal.after):
            answer = None
    _SAID[path] = (sig, answer)
    return answer
