"""The reader adapter: the pads' firmware over USB serial.

``Reader(port, queue)`` opens the port with pyserial, turns protocol lines
(firmware/PROTOCOL.md) into TagArrived/TagRemoved/PadConflict/PadCleared and
ReaderStatus events, one ``poll()`` at a time (the box's own thread polls it;
``start()`` gives it a thread that posts them on ``queue``), and never dies: a bad line is
refused with a counted reason (logged when a storm of them starts and ends); an unplug (SerialException, OSError or
termios.error, depending on the call that notices) closes the port and reopens
it with growing back-off. ``Tracker`` is the pure part, testable without a port.
"""
import logging
import queue
import threading
import time
from collections import Counter

import serial
import termios

from assistant.hw import protocol
from assistant.hw.events import PadCleared, PadConflict, ReaderStatus, TagArrived, TagRemoved, post
from assistant.hw.protocol import MANY, BadLine
from assistant.repeated import Repeated

log = logging.getLogger(__name__)
LINK_ERRORS = (serial.SerialException, OSError, termios.error)
STALE_WINDOW = 64  # a seq this far behind the last is an old line, not a restart
WRITE_TIMEOUT = 0.05  # seconds a command may wait for room on the line before it is dropped
QUIET = 30.0  # seconds without a line of a kind that can storm (refused, lost, doubled...): that storm is over


def _storm_words(key):
    """What a storm of ``key`` was, for the line that says it is over."""
    words = {"restart": "a restart", "duplicate": "a line arriving twice", "lost": "a lost line",
             "stale": "a stale line", "err": "a refused command"}
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
        self.repeated = Repeated(log, logging.INFO)
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
            return [ReaderStatus(True, "card reader restarted")]
        return [ReaderStatus(True, f"card reader firmware {self.version or '?'} ready")]

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
        self.repeated.ended(("conflict", m.pad), f"pad {m.pad}: reads one tag again")
        return self._implied(m.pad, "") + self._move(m.pad, m.uid)

    def _on_remove(self, m):
        return self._implied(m.pad, m.uid) + self._move(m.pad, "")

    def _on_conflict(self, m):
        # a pile at the edge of a pad's field can conflict and clear many times a minute: its
        # start is logged, then counted until the pad reads a single tag again
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


class Reader:
    """The serial link. ``events`` is the daemon's queue; ``port`` a path such as
    /dev/card-reader (the udev rule in hardware/ makes that name).

    ``start()`` runs it on a thread of its own that posts events on the queue (``enroll``, the
    players' list). The box instead calls ``poll()`` on its own thread, so a tap's line is read,
    checked and applied by one thread with no hand-over between them (docs/latency.md); an event
    posted on the queue meanwhile ends the read's wait (``wake()``)."""

    def __init__(self, port, events, *, baudrate=115200, backoff=(0.1, 5.0), silence=5.0):
        self.port = port
        self.events = events
        self.baudrate = baudrate
        self.backoff = backoff
        self.silence = silence
        self.tracker = Tracker()
        self.counts = self.tracker.counts
        self._stop = threading.Event()
        self._thread = None
        self._serial = None
        self._send_lock = threading.Lock()
        self._seq = 0
        self._up = None  # last link state given out
        self._repeated = Repeated(log)  # a retry every 5 s is two log lines, not 17,000 a day
        self._woken = False  # a wake() byte waits in the abort pipe for the next read
        self._delay = backoff[0]  # the wait after the next failed open
        self.next_open = 0.0  # monotonic time of the next attempt to open the port

    def start(self):
        self._thread = threading.Thread(target=self._run, name="card-reader", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout=5.0):
        self._stop.set()
        self.wake()
        if self._thread:
            self._thread.join(timeout)
        else:
            self._close()

    def wake(self):
        """End a ``poll()`` waiting for the line (pyserial's abort pipe); harmless otherwise. Never
        blocks, so any thread may call it, even holding a lock: it takes none, and one byte at most
        waits in the pipe (a read takes it)."""
        ser = self._serial
        if ser is None or self._woken:
            return
        self._woken = True
        try:
            ser.cancel_read()
        except (*LINK_ERRORS, ValueError):  # closed meanwhile: no read to end
            pass

    @property
    def stopped(self):
        return self._stop.is_set()

    @property
    def linked(self):
        return self._serial is not None

    def send(self, body):
        """Send one command (``PING x``, ``LED 2 on``, ``BEEP 1 100``, ``STATUS``, ``SYNC``); False if the link is down."""
        with self._send_lock:
            ser = self._serial
            if ser is None:
                return False
            line = protocol.frame(self._seq, body)
            self._seq = (self._seq + 1) % protocol.SEQ_MOD
            try:
                ser.write(line)
            except LINK_ERRORS as e:  # a firmware that stops reading: said once, not each second
                self._repeated.happened("send", f"reader: could not send {body.split()[0]}: {e}")
                return False
        self._repeated.ended("send", "reader: commands go through again")
        return True

    def _run(self):
        while not self._stop.is_set():
            for event in self.poll():
                post(self.events, event, self._stop)  # a full queue: wait, and read nothing meanwhile
            if not self.linked:
                self._stop.wait(max(0.0, self.next_open - time.monotonic()))
        self._close()

    def poll(self):
        """One step: open the port if it is closed and an attempt is due, else read what the line
        brings (a read waits up to 0.5 s for it: few idle wake-ups on a slow Pi; ``wake()`` ends
        the wait). The events it makes, in order; never raises for the link's troubles."""
        out = []
        if self._serial is None:
            if time.monotonic() >= self.next_open and not self._stop.is_set():
                try:
                    self._open(out)
                except Exception:  # a bug here must not stop the box's loop: log it, try later
                    self.counts["internal error"] += 1
                    log.exception("reader error while opening the port")
                    self.next_open = time.monotonic() + self.backoff[1]
        else:
            try:
                self._read(out)
            except LINK_ERRORS as e:
                self.counts["unplugged"] += 1
                log.warning("reader link lost: %s", e)
                out.append(ReaderStatus(False, "card reader unplugged"))
                self._close()
            except Exception:  # a bug here must not silence the table: log it, reopen
                self.counts["internal error"] += 1
                log.exception("reader error; reopening the port")
                out.append(ReaderStatus(False, "card reader error"))
                self._close()
                self.next_open = time.monotonic() + self._delay
        return [e for e in out if self._fresh(e)]

    def _fresh(self, event):
        if isinstance(event, ReaderStatus):
            if event.connected == self._up and not event.connected:
                return False  # one "down" per outage, not one per retry
            self._up = event.connected
        return True

    def _open(self, out):
        try:
            # exclusive: two programs reading one port would each get half the lines; a firmware
            # that stops reading must not hold the box's thread in a write: a send gives up
            ser = serial.Serial(self.port, self.baudrate, timeout=0.5, write_timeout=WRITE_TIMEOUT,
                                exclusive=True)
        except (*LINK_ERRORS, ValueError) as e:
            self.counts["open failed"] += 1
            busy = "exclusively lock" in str(e)
            out.append(ReaderStatus(False, f"card reader busy: another program has {self.port} open"
                                    if busy else f"card reader not found at {self.port}"))
            self._repeated.happened("open", f"reader: cannot open {self.port} ({e}); retrying "
                                    f"every {self.backoff[1]:g} s at most")
            self.next_open = time.monotonic() + self._delay
            self._delay = min(self._delay * 2, self.backoff[1])
            return
        self._delay = self.backoff[0]
        self._repeated.ended("open", f"reader: {self.port} opened")
        with self._send_lock:
            self._serial = ser
        self.tracker.link_opened()
        out.append(ReaderStatus(True, "card reader connected"))
        self._buf, self._skipping, self._quiet = bytearray(), False, False
        self._last_good, self._good, self._sync_at, self._sync_snap = time.monotonic(), self.tracker.good, 0.0, None

    def _read(self, out):
        ser, t = self._serial, self.tracker
        now = time.monotonic()
        if t.want_sync and (self._sync_snap != t.snapshots or now - self._sync_at > 1.0):
            # one SYNC at a time: its snapshot answers every loss seen before it
            self._sync_at, self._sync_snap = now, t.snapshots
            self.send("SYNC")
        data = ser.read(ser.in_waiting or 1)
        self._woken = False
        if len(data) == 1 and (more := ser.in_waiting):  # the rest of the line that woke
            data += ser.read(more)                       # the read, in the same pass
        if not data:
            if self.silence and not self._quiet and now - self._last_good > self.silence:
                self._quiet = True
                self.counts["silent"] += 1
                out.append(ReaderStatus(False, "card reader not answering"))
            return
        buf = self._buf
        buf += data
        while (end := buf.find(b"\n")) >= 0:
            line = bytes(buf[:end])
            del buf[:end + 1]
            if self._skipping:
                self._skipping = False
                continue
            out.extend(t.feed(line))
        if len(buf) > protocol.MAX_LINE + 2 and not self._skipping:
            t.feed(bytes(buf))  # refused as too long, and counted
            buf.clear()
            self._skipping = True
        elif self._skipping:
            buf.clear()
        if t.good != self._good:
            self._good, self._last_good = t.good, time.monotonic()
            if self._quiet:
                self._quiet = False
                out.append(ReaderStatus(True, "card reader answering again"))

    def _close(self):
        with self._send_lock:
            ser, self._serial = self._serial, None
        if ser is None:
            return
        if getattr(self, "_buf", None):
            self.counts["cut off"] += 1
            log.warning("reader: partial line of %d bytes discarded", len(self._buf))
            self._buf = bytearray()
        try:
            ser.close()
        except LINK_ERRORS:
            pass
