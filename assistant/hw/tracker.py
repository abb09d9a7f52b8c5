"""The pure part of the reader adapter: protocol lines in, pad events out, no port.

``Tracker`` turns the firmware's lines (firmware/PROTOCOL.md) into TagArrived/TagRemoved/
PadConflict/PadCleared and ReaderStatus events, spots doubled, dropped, stale and corrupted lines
and firmware restarts, and keeps its own view of every pad so that a ``STATE`` snapshot fills in
what was lost. The serial link around it is reader.py; tests feed it lines directly.
"""
import logging
import time
from collections import Counter

from assistant.hw import protocol
from assistant.hw.events import PadCleared, PadConflict, ReaderStatus, TagArrived, TagRemoved
from assistant.hw.protocol import MANY, BadLine
from assistant.repeated import Repeated

log = logging.getLogger("assistant.hw.reader")  # the reader's log lines, wherever they are made
STALE_WINDOW = 64  # a seq this far behind the last is an old line, not a restart
QUIET = 30.0  # seconds without a line of a kind that can storm (refused, lost, doubled...): that storm is over


def _storm_words(key):
    """What a storm of ``key`` was, for the line that says it is over."""
    words = {"restart": "a restart", "duplicate": "a line arriving twice", "lost": "a lost line",
             "stale": "a stale line", "err": "a refused command",
             "pads gone": "a firmware with fewer pads than before"}
    if key in words:
        return words[key]
    kind, detail = key
    return {"refused": f"a refused line ({detail})", "implied": f"a lost line implied on pad {detail}",
            "no chip": f"pad {detail} saying no MFRC522 answers"}[kind]


class Tracker:
    """Turns good lines into events, spots doubled, dropped and corrupted lines and
    restarts, and keeps its own view of every pad so a ``STATE`` snapshot can
    fill in what was lost. ``want_sync`` asks the owner to send ``SYNC``."""

    def __init__(self, clock=time.monotonic):
        self.pads = {}  # pad -> uid or MANY; absent = empty
        self.last_seq = None
        self.boot = None
        self.version = None
        self.want_sync = False
        self.counts = Counter()  # refused reasons, "duplicate", "dropped", "restart", ...
        self.status = {}  # pad -> the last STATUS fields
        self.npads = protocol.MAX_PADS  # from HELLO; a snapshot is STATE 1..npads
        self.good = 0  # lines accepted
        self.losses = 0  # lost or refused lines: each may have been a tap
        self.snapshots = 0  # complete STATE snapshots received
        self._losses_at_snapshot = 0
        self._last_line = b""
        self.held = []  # lines behind the last one, held until the next line says what they are
        self.repeated = Repeated(log, logging.INFO, clock=clock)  # a pad that keeps conflicting
        # a refused line (per reason), a restart, and each kind of well-framed line that is wrong
        # (doubled, lost, stale, a pad's change that implies a lost one, an ERR, a missing chip) is
        # logged when it starts; a storm of them is counted, then logged with its exact count once
        # QUIET seconds pass without one (a garbage, reboot or doubling storm writes two lines, not
        # thousands that hit journald's rate limit and push the `action:` lines out)
        self.troubles = Repeated(log, clock=clock)

    def link_opened(self):
        """A fresh connection: sequence numbers start over, the pads are re-read."""
        self.last_seq = None
        self.held = []
        self.want_sync = True

    def feed(self, line):
        """Events for one received line (bytes, no newline needed)."""
        try:
            msg = protocol.parse(line)
        except BadLine as e:
            self.counts[e.reason] += 1
            self._lost()  # the line may have been a tap: ask for the truth
            # the line itself is not logged: it may carry the tag of a face-down card
            self._trouble(("refused", e.reason), f"reader line refused ({e.reason}), {len(e.line)} bytes")
            return []
        self.good += 1
        if self.troubles.active:
            self._troubles_over()
        if self.repeated.active:  # a pad's conflicts end QUIET s after its last, not at its next single tag
            self.repeated.quiet(QUIET, lambda key: f"pad {key[1]}: {QUIET:g} s without two tags at once")
        line = line.rstrip(b"\r\n")
        if self._is_copy(msg, line):
            self.counts["duplicate"] += 1
            self._trouble("duplicate", f"reader line {msg.seq} arrived twice: dropped the copy")
            return []
        self._last_line = line
        out = self._sequence(msg)
        if out is None:
            return []
        return out + self._handle(msg)

    def _handle(self, msg):
        return getattr(self, "_on_" + msg.kind.lower())(msg)

    def _is_copy(self, msg, line):
        if self.held:
            return msg.seq == self.held[-1].seq and line == self._last_line
        return msg.seq == self.last_seq and line == self._last_line

    def _sequence(self, msg):
        """Events that the line's number implies, [] to go on, or None to hold or drop the line."""
        last = self.last_seq
        if msg.kind == "HELLO":
            self._drop_held()
            self.last_seq = msg.seq
            return self._restart(msg, protocol.hello_info(msg).get("boot"))
        new_boot = msg.kind == "HB" and self.boot is not None and msg.fields[0] != self.boot
        if self.held:
            old_goes_on = msg.seq == (last + 1) % protocol.SEQ_MOD  # checked first: it wins a tie
            if new_boot or (not old_goes_on and msg.seq == (self.held[-1].seq + 1) % protocol.SEQ_MOD):
                return self._reboot_without_hello(msg)
            self._drop_held()  # the old sequence goes on (or neither does): they were stale
        self.last_seq = msg.seq
        if last is None or msg.seq == (last + 1) % protocol.SEQ_MOD or new_boot:
            return []  # a new boot id: _on_hb says it restarted
        behind = (last - msg.seq) % protocol.SEQ_MOD
        if behind < STALE_WINDOW:
            # a stale copy, or the first line of a boot whose HELLO was lost: the next line tells
            self.last_seq = last
            self.held.append(msg)
            self._lost()
            return None
        lost = (msg.seq - last - 1) % protocol.SEQ_MOD
        self.counts["dropped"] += lost
        self._lost()
        self._trouble("lost", f"reader lines {(last + 1) % protocol.SEQ_MOD}..{(msg.seq - 1) % protocol.SEQ_MOD} "
                              f"lost ({lost}): asking for the pads' state")
        return []

    def _drop_held(self):
        if self.held:
            self.counts["out of order"] += len(self.held)
            self._trouble("stale", f"reader lines {','.join(str(m.seq) for m in self.held)} after "
                                   f"{self.last_seq}: refused as stale")
            self.held = []

    def _reboot_without_hello(self, msg):
        """The held lines began a new boot whose HELLO was lost: say so, then apply them in order."""
        held, self.held = self.held, []
        self.last_seq = msg.seq
        self.boot = msg.fields[0] if msg.kind == "HB" else None  # the next heartbeat names it
        self.counts["restart"] += 1
        self.counts["hello lost"] += 1
        self._lost()
        self._trouble("restart", f"reader firmware restarted and its HELLO line was lost; "
                                 f"{len(held)} held line(s) applied")
        out = [ReaderStatus(True, "card reader restarted")]
        for m in held:
            out += self._handle(m)
        return out

    def _trouble(self, key, text):
        self.troubles.happened(key, text)

    def _troubles_over(self):
        self.troubles.quiet(QUIET, lambda key: f"reader: {QUIET:g} s without " + _storm_words(key))

    def _lost(self):
        self.losses += 1
        self.want_sync = True

    def _restart(self, msg, boot):
        known = self.boot is not None
        self.boot = boot
        if msg.kind == "HELLO":
            info = protocol.hello_info(msg)
            self.version = info["version"]
            if info.get("pads", "").isdigit() and 1 <= int(info["pads"]) <= protocol.MAX_PADS:
                self.npads = int(info["pads"])
        self._lost()  # a settled firmware answers SYNC; a booting one sends its snapshot anyway
        if known:
            self.counts["restart"] += 1
            self._trouble("restart", f"reader firmware restarted (boot {boot})")
            return [ReaderStatus(True, "card reader restarted")] + self._forget_gone_pads()
        return [ReaderStatus(True, f"card reader firmware {self.version or '?'} ready")] + self._forget_gone_pads()

    def _forget_gone_pads(self):
        """A HELLO with fewer pads: what lay on the pads it no longer has is forgotten (its snapshot
        never names them again), as removals, so no tag or conflict of a pad that is gone stays."""
        gone = sorted(p for p in set(self.pads) | set(self.status) if p > self.npads)
        out = []
        for pad in gone:
            self.status.pop(pad, None)
            self.repeated.ended(("conflict", pad), f"pad {pad}: gone")
            out += self._move(pad, "", inferred=True)
        if out:
            held = sorted({e.pad for e in out})
            # a firmware whose HELLO says 4 pads, then 2, then 4... (a loose jumper, a bad build) is
            # one storm: a line at every HELLO was one per reboot, without end
            self._trouble("pads gone", f"reader firmware has {self.npads} pad(s) now: what lay on "
                                       f"pad{'s' if len(held) > 1 else ''} {' and '.join(map(str, held))}, "
                                       f"which it no longer has, is forgotten (nothing played is lost)")
        return out

    # --- pads
    def _move(self, pad, new, inferred=False):
        """Events that take our view of ``pad`` from what it was to ``new``."""
        old = self.pads.get(pad, "")
        if old == new:
            return []
        out = [PadCleared(pad) if old == MANY else TagRemoved(pad, old, inferred)] if old else []
        if new == MANY:
            out.append(PadConflict(pad))
        elif new:
            out.append(TagArrived(pad, new, inferred))
        if new:
            self.pads[pad] = new
        else:
            self.pads.pop(pad, None)
        return out

    def _implied(self, pad, was):
        """Each change line says what the pad held before it (ARRIVE and CONFLICT:
        nothing; REMOVE: that tag; CLEAR: a conflict). If we believed otherwise,
        a line was lost: post the change it carried."""
        if self.pads.get(pad, "") == was:
            return []
        self.counts["recovered"] += 1
        self._trouble(("implied", pad), f"pad {pad}: a lost line is implied; recovering")
        return self._move(pad, was, inferred=True)

    def _on_arrive(self, m):
        return self._implied(m.pad, "") + self._move(m.pad, m.uid)

    def _on_remove(self, m):
        return self._implied(m.pad, m.uid) + self._move(m.pad, "")

    def _on_conflict(self, m):
        # a pile at the edge of a pad's field can conflict and clear many times a minute, its top
        # card read alone between: its start is logged, then counted until QUIET s pass without one
        # (ended at the pad's next single tag, a pile flickering between two tags and one wrote two
        # lines a flicker)
        self.repeated.happened(("conflict", m.pad), f"pad {m.pad}: two or more tags at once (conflict)")
        return self._implied(m.pad, "") + self._move(m.pad, MANY)

    def _on_clear(self, m):
        return self._implied(m.pad, MANY) + self._move(m.pad, "")

    def _on_state(self, m):
        if m.pad == 1:
            self._losses_at_snapshot = self.losses
        if m.pad == self.npads:
            self.snapshots += 1
            if self.losses == self._losses_at_snapshot:
                self.want_sync = False  # nothing went missing since this snapshot began
        return self._move(m.pad, m.uid, inferred=True)

    def _on_hb(self, m):
        if self.boot is not None and m.fields[0] != self.boot:
            self.last_seq = m.seq  # a new boot's numbering
            return self._restart(m, m.fields[0])
        self.boot = m.fields[0]
        return []

    def _on_status(self, m):
        self.status[m.pad] = m.fields[1:]
        if m.fields[1] != "ok":
            self._trouble(("no chip", m.pad), f"pad {m.pad}: no MFRC522 answers (version {m.fields[2]}): "
                                               "check its wiring")
        return []

    def _on_err(self, m):
        self._trouble("err", f"reader refused a command: {' '.join(m.fields)}")
        return []

    def _on_pong(self, m):
        return []

    _on_ok = _on_hello = _on_pong
