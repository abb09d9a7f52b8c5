"""Reading a journal's rows straight from its pages, when SQLite's own b-tree walk cannot reach
them (a damaged root or interior page, a damaged schema on page 1, a damaged file header).

This is the part of the ``sqlite3`` shell's ``.recover`` that this journal needs: every page
that looks like a table leaf (SQLite file format, section 1.6) is decoded cell by cell, and a
cell whose record has the shape of an ``actions`` row (integer, integer, text) or a ``matches``
row (its id as the rowid, then text, text, text, number) is returned. Each row is checked again
by salvage.py before it is kept; a cell that does not decode is skipped, never guessed at.
"""
import struct

LEAF = 0x0D


def varint(buf, i):
    """SQLite's big-endian varint at ``buf[i]``: (value, next index)."""
    value = 0
    for k in range(9):
        if i + k >= len(buf):
            raise ValueError("varint past the end")
        b = buf[i + k]
        if k == 8:
            return (value << 8) | b, i + 9
        value = (value << 7) | (b & 0x7F)
        if b < 0x80:
            return value, i + k + 1
    raise ValueError("varint")


def _value(kind, body, j):
    """(value, next index) of serial type ``kind`` at ``body[j]``."""
    sizes = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8, 8: 0, 9: 0}
    if kind in sizes:
        n = sizes[kind]
        raw = body[j:j + n]
        if len(raw) != n:
            raise ValueError("short value")
        if kind == 0:
            return None, j
        if kind in (8, 9):
            return kind - 8, j
        if kind == 7:
            return struct.unpack(">d", raw)[0], j + n
        return int.from_bytes(raw, "big", signed=True), j + n
    if kind >= 12:
        n = (kind - 12) // 2 if kind % 2 == 0 else (kind - 13) // 2
        raw = body[j:j + n]
        if len(raw) != n:
            raise ValueError("short value")
        return (bytes(raw) if kind % 2 == 0 else raw.decode("utf-8")), j + n
    raise ValueError("reserved serial type")


def record(payload):
    """The column values of one record."""
    size, i = varint(payload, 0)
    if not 1 <= size <= len(payload):
        raise ValueError("record header size")
    kinds = []
    while i < size:
        kind, i = varint(payload, i)
        kinds.append(kind)
    values, j = [], size
    for kind in kinds:
        value, j = _value(kind, payload, j)
        values.append(value)
    return values


def leaf_cells(page, offset, usable):
    """(rowid, values) of every cell of a table-leaf page that decodes whole on the page."""
    head = offset
    if page[head] != LEAF:
        return
    count = int.from_bytes(page[head + 3:head + 5], "big")
    for n in range(min(count, (usable - head - 8) // 2)):
        at = int.from_bytes(page[head + 8 + 2 * n:head + 10 + 2 * n], "big")
        try:
            length, i = varint(page, at)
            rowid, i = varint(page, i)
            if length > usable - 35 or i + length > usable:  # overflowed: this journal's rows never do
                continue
            yield rowid, record(page[i:i + length])
        except (ValueError, UnicodeDecodeError, IndexError):
            continue


def scan(path, page_size=None, overlay=None, hidden=None):
    """``(matches, actions)`` found on every table-leaf page of the file at ``path``: matches as
    ``(id, game, seats, options, started)``, actions as ``(match, seq, line)``. ``overlay``
    ({page number: bytes}, the -wal's latest version of each page) is read in place of the file's
    own version of those pages, as SQLite would; the file's versions it hides are appended to the
    list ``hidden``, as ``(page number, bytes)``."""
    overlay = overlay or {}
    with open(path, "rb") as f:
        data = f.read()
    if page_size is None:
        size = int.from_bytes(data[16:18], "big") if len(data) >= 100 else 0
        page_size = 65536 if size == 1 else size if size >= 512 and size & (size - 1) == 0 else 4096
    count = max(len(data) // page_size, max(overlay, default=0))
    if hidden is not None:
        hidden += [(n, data[(n - 1) * page_size:n * page_size]) for n in sorted(overlay)
                   if n * page_size <= len(data)]
    return scan_pages(((overlay.get(n) or data[(n - 1) * page_size:n * page_size], 100 if n == 1 else 0)
                       for n in range(1, count + 1)), page_size)


def scan_pages(pages, page_size):
    """``(matches, actions)`` on the given ``(page bytes, header offset)`` pages."""
    matches, actions = [], []
    for page, offset in pages:
        if len(page) != page_size:
            continue
        for rowid, values in leaf_cells(page, offset, page_size):
            if len(values) == 3 and all(isinstance(v, int) for v in values[:2]) and isinstance(values[2], str):
                actions.append(tuple(values))
            elif len(values) == 5 and values[0] is None and all(isinstance(v, str) for v in values[1:4]):
                matches.append((rowid, *values[1:]))
    return matches, actions
