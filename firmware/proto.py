"""Wire framing for the reader: ``<seq> <body>*<crc>`` lines, CRC-16/CCITT-FALSE.

Runs unchanged on the Pico (MicroPython) and under CPython in tests; the host
side (assistant/hw/protocol.py) reads the same format. PROTOCOL.md is the spec,
protocol_vectors.json the shared test vectors.
"""

SEQ_MOD = 65536  # sequence numbers wrap from 65535 to 0; only HELLO restarts at 0 on boot
MAX_LINE = 96  # bytes, without the newline


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): catches swapped and flipped characters."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def frame(seq, body):
    """One line, newline included, as bytes."""
    head = "%d %s" % (seq, body)
    return ("%s*%04X\n" % (head, crc16(head.encode()))).encode()


def unframe(line):
    """``(seq, words)`` for a good line, or ``(None, reason)`` for a bad one; never raises.

    Exactly PROTOCOL.md's grammar, as the host reads it: a decimal seq with no leading zero,
    single spaces, nothing at either end but an optional CR; every byte before the ``*`` is
    under the CRC, so nothing is trimmed before the check."""
    if isinstance(line, str):
        line = line.encode()
    line = bytes(line)
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    for b in line:
        if b > 126 or b < 32:
            return None, "not plain ASCII"
    if len(line) > MAX_LINE:
        return None, "too long"
    line = line.decode()
    star = line.rfind("*")
    if star < 0:
        return None, "no checksum"
    head, tail = line[:star], line[star + 1:]
    if len(tail) != 4 or [c for c in tail if c not in "0123456789ABCDEF"]:
        return None, "bad checksum field"
    if crc16(head.encode()) != int(tail, 16):
        return None, "checksum mismatch"
    words = head.split(" ")
    if len(words) < 2 or not words[0].isdigit():
        return None, "no sequence number"
    if (len(words[0]) > 1 and words[0][0] == "0") or len(words[0]) > 5:
        return None, "sequence number not in decimal"
    seq = int(words[0])
    if seq >= SEQ_MOD:
        return None, "sequence number out of range"
    for w in words:
        if not w or "*" in w:
            return None, "fields not separated by one space"
    return seq, words[1:]


class LineBuffer:
    """Cuts a byte stream into lines; a line longer than MAX_LINE is dropped whole
    (returned as None so the caller can say so) instead of growing without bound."""

    def __init__(self):
        self.buf = bytearray()
        self.overlong = False

    def feed(self, data):
        out = []
        for b in data:
            if b == 10:
                out.append(None if self.overlong else bytes(self.buf))
                self.buf = bytearray()
                self.overlong = False
            elif not self.overlong:
                if len(self.buf) >= MAX_LINE + 2:
                    self.overlong = True
                    self.buf = bytearray()
                else:
                    self.buf.append(b)
        return out
