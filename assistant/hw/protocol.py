"""Host side of the reader wire protocol (firmware/PROTOCOL.md): framing and parsing.

Pure functions, no I/O: ``parse`` turns one received line into a ``Message`` or
raises ``BadLine`` with the plain-words reason that gets counted and logged.
``frame`` builds lines for both directions (the virtual firmware uses it too).
"""
import binascii
from dataclasses import dataclass

SEQ_MOD = 65536
MAX_LINE = 96
MAX_PADS = 4
MANY = "MANY"  # a pad holding two or more tags
_HEX = frozenset("0123456789ABCDEF")
_PRINTABLE = bytes(range(32, 127))  # deleted by translate: what remains of an ASCII line is a control byte
_ARITY = {"HELLO": None, "STATUS": 4, "STATE": 2, "ARRIVE": 2, "REMOVE": 2, "CONFLICT": 1,
          "CLEAR": 1, "HB": 2, "PONG": 1, "OK": 2, "ERR": None}


class BadLine(ValueError):
    """A received line that is refused; ``reason`` is short and fixed, for counting."""

    def __init__(self, reason, line=b""):
        super().__init__(f"{reason}: {line[:60]!r}")
        self.reason = reason
        self.line = line


@dataclass(frozen=True, slots=True)
class Message:
    seq: int
    kind: str  # HELLO, STATE, ARRIVE, ...
    fields: tuple
    pad: int = 0  # 1..4 for messages about a pad
    uid: str = ""  # a UID, "" for an empty pad, or MANY (STATE only)


def crc16(data):
    """CRC-16/CCITT-FALSE, as the firmware computes it (binascii does it in C)."""
    return binascii.crc_hqx(data, 0xFFFF)


def frame(seq, body):
    head = f"{seq} {body}".encode("ascii")
    return b"%s*%04X\n" % (head, crc16(head))


def unframe(line):
    """``(seq, words)`` of one line (bytes, newline optional); raises BadLine.

    Exactly PROTOCOL.md's grammar: ``<seq> <WORD> [<field> ...]*<CRC>``, a decimal ``seq`` with
    no leading zero, single spaces, no tab or white space at either end; the CRC covers every byte
    before the ``*``, so no byte of a line goes unchecked."""
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    if not line.isascii() or line.translate(None, _PRINTABLE):  # a control byte is left
        raise BadLine("not plain ASCII", line)
    if len(line) > MAX_LINE:
        raise BadLine("too long", line)
    head, star, tail = line.rpartition(b"*")
    if not star:
        raise BadLine("no checksum", line)
    if len(tail) != 4 or not all(c in b"0123456789ABCDEF" for c in tail):
        raise BadLine("bad checksum field", line)
    if crc16(head) != int(tail, 16):
        raise BadLine("checksum mismatch", line)
    words = head.decode().split(" ")
    if len(words) < 2 or not words[0].isdigit():
        raise BadLine("no sequence number", line)
    if len(words[0]) > 1 and words[0][0] == "0" or len(words[0]) > 5:
        raise BadLine("sequence number not in decimal", line)
    seq = int(words[0])
    if seq >= SEQ_MOD:
        raise BadLine("sequence number out of range", line)
    if any(not w or "*" in w for w in words):
        raise BadLine("fields not separated by one space", line)
    return seq, words[1:]


def _pad(text, line):
    if not text.isdigit() or not 1 <= int(text) <= MAX_PADS:
        raise BadLine("pad out of range", line)
    return int(text)


def _uid(text, line):
    if len(text) not in (8, 14, 20) or not set(text) <= _HEX:
        raise BadLine("bad uid", line)
    return text


def parse(line):
    """One line from the firmware as a Message; raises BadLine saying why not."""
    seq, words = unframe(line)
    kind, fields = words[0], tuple(words[1:])
    if kind not in _ARITY:
        raise BadLine("unknown message", line)
    want = _ARITY[kind]
    if want is not None and len(fields) != want:
        raise BadLine("wrong number of fields", line)
    pad, uid = 0, ""
    if kind in ("STATE", "ARRIVE", "REMOVE", "CONFLICT", "CLEAR", "STATUS"):
        pad = _pad(fields[0], line)
    if kind in ("ARRIVE", "REMOVE"):
        uid = _uid(fields[1], line)
    elif kind == "STATE":
        uid = "" if fields[1] == "-" else MANY if fields[1] == MANY else _uid(fields[1], line)
    elif kind == "HELLO" and not fields:
        raise BadLine("wrong number of fields", line)
    return Message(seq, kind, fields, pad, uid)


def hello_info(msg):
    """``{"version": ..., "boot": ..., "pads": ...}`` from a HELLO's fields."""
    info = {"version": msg.fields[1] if len(msg.fields) > 1 else "?"}
    for f in msg.fields[2:]:
        key, _, value = f.partition("=")
        info[key] = value
    return info
