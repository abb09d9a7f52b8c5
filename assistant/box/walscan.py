"""Reading a journal's ``-wal`` frame by frame, without SQLite (file format, section 4: the WAL).

After a power cut almost every recent action is only in the ``-wal``. SQLite reads its frames
from the start and stops at the first one whose checksum or salts are wrong: a damaged stretch in
the middle (a bad sector, junk written over it) silently drops every frame after it, and SQLite
then overwrites them. This module reads the file as bytes: a 32-byte header (magic, page size,
salts, its checksum), then frames of a 24-byte header (page number, the database size in pages
for a commit frame, the header's salts, a checksum) and one page each. A frame belongs to the
current generation when its salts are the header's; its checksum is seeded by the previous
frame's stored checksum, so a frame after a damaged stretch can be checked on its own.

``read(data)`` (the -wal's bytes) says which frames SQLite uses (``used``: its valid prefix up to the last commit)
and which committed frames after a damaged stretch can still be read (``after``); ``pages``
gives the latest readable version of every page, as SQLite would have had it. Nothing here
writes: the rows on those pages are decoded by pagescan and checked by salvage before use.
"""
import struct
from collections import Counter
from dataclasses import dataclass, field

HEADER, FRAME_HEADER = 32, 24
MAGIC = (0x377F0682, 0x377F0683)  # checksums of little-endian words, of big-endian words


@dataclass
class Wal:
    page_size: int
    frames: list = field(default_factory=list)  # (index, page, commit size, offset, readable)
    used: int = 0  # frames SQLite reads: its valid prefix up to the last commit frame
    after: list = field(default_factory=list)  # indexes of readable committed frames past ``used``

    @property
    def damaged(self):
        """Committed frames SQLite would drop (and the box can still read)."""
        return bool(self.after)

    def pages(self, data):
        """{page number: bytes}: the latest readable version of each page in the -wal."""
        out = {}
        for i, page, _, at, _ in self.frames[:self.used]:
            out[page] = data[at + FRAME_HEADER:at + FRAME_HEADER + self.page_size]
        for i in self.after:
            _, page, _, at, _ = self.frames[i]
            out[page] = data[at + FRAME_HEADER:at + FRAME_HEADER + self.page_size]
        return out

    def older(self, data):
        """``(page number, bytes)`` of the readable frames ``pages`` leaves out for a later version
        of their page: rows a damaged later frame lost may still be on them (salvage.py)."""
        taken = list(range(self.used)) + self.after
        latest = {self.frames[i][1]: i for i in taken}
        return ((page, data[at + FRAME_HEADER:at + FRAME_HEADER + self.page_size])  # one at a time
                for i in taken for _, page, _, at, _ in (self.frames[i],) if latest[page] != i)

    def unchecked(self, data):
        """The pages of the frames ``pages`` leaves out (a checksum or salt that fails: a damaged
        header, a torn write, an older generation): for rows that cannot change (salvage.py)."""
        taken = set(range(self.used)) | set(self.after)
        return (data[at + FRAME_HEADER:at + FRAME_HEADER + self.page_size]  # one at a time: a -wal may be large
                for i, _, _, at, _ in self.frames if i not in taken)


def checksum(data, start, end, s0, s1, big):
    """SQLite's WAL checksum of ``data[start:end]`` (a multiple of 8 bytes) seeded with s0, s1."""
    words = struct.unpack_from((">" if big else "<") + f"{(end - start) // 4}I", data, start)
    it = iter(words)
    for a in it:
        s0 = (s0 + a + s1) & 0xFFFFFFFF
        s1 = (s1 + next(it) + s0) & 0xFFFFFFFF
    return s0, s1


def _page_size(value):
    return value if 512 <= value <= 65536 and value & (value - 1) == 0 else None


def _generation(heads):
    """The salts of the generation SQLite writes now, from the frame headers alone (the -wal's own
    header is damaged): the first in the file that another frame shares, or that is one restart
    after another's (a restart adds 1 to the first salt). A restart writes from the first frame on
    and leaves the older generation's frames behind the newer: after a checkpoint those are most
    of the file, so the salts most frames share are the older generation's. None when no salts
    are shared (nothing to tell a frame from junk)."""
    seen = [(h[2], h[3]) for h in heads if h[0]]
    count = Counter(seen)
    firsts = {s[0] for s in count}
    for salts in dict.fromkeys(seen):  # in the order of the file
        if count[salts] >= 2 or (salts[0] - 1) % (1 << 32) in firsts:
            return salts
    return None


def read(data, main_page_size=None):
    """The frames of the -wal whose bytes are ``data``; None when it holds no frame at all."""
    if len(data) < HEADER + FRAME_HEADER:
        return None
    magic, version, size, _, salt1, salt2, c0, c1 = struct.unpack_from(">8I", data, 0)
    big = magic == MAGIC[1]
    header_ok = magic in MAGIC and _page_size(size) is not None \
        and checksum(data, 0, 24, 0, 0, big) == (c0, c1)
    if not header_ok:  # SQLite ignores such a -wal whole; its frames may still be read
        size = _page_size(size) or main_page_size or 4096
    step = FRAME_HEADER + size
    count = (len(data) - HEADER) // step
    heads = [struct.unpack_from(">6I", data, HEADER + i * step) for i in range(count)]
    salts = (salt1, salt2) if header_ok else _generation(heads)
    if salts is None:
        return Wal(size)
    if header_ok:
        return _frames(Wal(size), data, heads, salts, (c0, c1), big)
    # the byte order of the checksums is the magic number's, which may be the damaged part: the
    # one the frames' own checksums agree with (a flipped bit made every frame but the first fail)
    read_as = [_frames(Wal(size), data, heads, salts, None, order) for order in (big, not big)]
    return max(read_as, key=lambda w: sum(f[4] for f in w.frames))


def _frames(wal, data, heads, salts, seed, big):
    """``wal`` with its frames, used and after, checked from ``seed`` (the header's checksum, or
    None when the header is damaged) in the byte order ``big``."""
    ours_before = chain = seed is not None
    step = FRAME_HEADER + wal.page_size
    for i, (page, commit, s1, s2, k0, k1) in enumerate(heads):
        at = HEADER + i * step
        ours = (s1, s2) == salts and page >= 1
        readable = False
        if ours:
            if seed is not None and ours_before:  # checked from the previous frame's checksum
                first = checksum(data, at, at + 8, *seed, big)
                readable = checksum(data, at + FRAME_HEADER, at + step, *first, big) == (k0, k1)
            else:  # the header before it is damaged: nothing to check it from; its rows are checked
                readable = True
        chain = chain and ours and readable
        if chain and commit:
            wal.used = i + 1
        wal.frames.append((i, page, commit, at, readable))
        seed, ours_before = (k0, k1), ours
    last_commit = max((f[0] for f in wal.frames[wal.used:] if f[4] and f[2]), default=None)
    if last_commit is not None:
        wal.after = [f[0] for f in wal.frames[wal.used:last_commit + 1] if f[4]]
    return wal
