"""The reader firmware's logic: poll pads in turn, debounce, report, obey commands.

No hardware here: readers are Mfrc522 drivers on whatever bus they were given,
``write`` sends bytes to the host, ``feedback`` drives a pad's LED or beeper.
main.py wires these to hw.py on the Pico; tests wire them to the register
model and a list. See PROTOCOL.md for every line this sends and accepts.
"""
import mfrc522
import proto
from presence import CONFLICT, EMPTY, Presence

VERSION = "1.1.0"  # 1.1.0: a card answering two polls in three is seen (presence.py)
FAILING_AFTER = 10  # polls in a row a reader that answered at boot fails before the host is told
_READING = {mfrc522.NONE: EMPTY, mfrc522.MANY: CONFLICT, mfrc522.ERROR_: None}
_CHANGE = {"arrive": "ARRIVE %d %s", "remove": "REMOVE %d %s", "conflict": "CONFLICT %d", "clear": "CLEAR %d"}


def _ticks_diff(a, b):
    return a - b


class App:
    def __init__(self, readers, write, feedback=None, present_after=3, gone_after=3,
                 heartbeat_ms=1000, boot_id="0", ticks_diff=_ticks_diff, powerup_us=0, sleep_us=None):
        self.readers = readers
        self.powerup_us = powerup_us  # field time a tag may need before it answers (TIMING.md)
        self.sleep_us = sleep_us
        self.write = write
        self.feedback = feedback
        self.pads = [Presence(present_after, gone_after) for _ in readers]
        self.settle_polls = max(present_after, gone_after)
        self.heartbeat_ms = heartbeat_ms
        self.boot_id = boot_id
        self.ticks_diff = ticks_diff
        self.seq = 0
        self.versions = [0] * len(readers)
        self.live = []  # indexes of readers that answered at boot
        self.failed = [0] * len(readers)  # polls in a row each reader failed (ERROR_: no answer, garbage)
        self.next = 0
        self.repolls = 0  # polls of one pad in a row, for a card being laid on it
        self.polls = 0
        self.settled = False
        self.last_beat = None
        self.up_s, self.up_ms = 0, 0  # uptime, summed beat by beat (see tick)

    # --- output
    def send(self, body):
        self.write(proto.frame(self.seq, body))
        self.seq = (self.seq + 1) % proto.SEQ_MOD

    def send_state(self, i):
        s = self.pads[i].stable
        self.send("STATE %d %s" % (i + 1, "MANY" if s == CONFLICT else (s or "-")))

    def send_status(self, i):
        r = self.readers[i]
        ok = "ok" if i in self.live and self.failed[i] < FAILING_AFTER else "missing"
        self.send("STATUS %d %s %02X %d" % (i + 1, ok, self.versions[i], r.errors))

    def _failing(self, i, status):
        """A reader that answered at boot and now fails every poll: its pad hears no card laid and
        sees no card lifted. After FAILING_AFTER failed polls in a row its version is read again:
        00 or FF (a loose wire, the chip read as all zeros or ones) is said once, as the pad's
        STATUS missing, and ok once when it answers again; a chip that still gives its version
        (hung, or a tag that garbles every answer) is reset and configured again, as at boot."""
        if status != mfrc522.ERROR_:
            if self.failed[i] >= FAILING_AFTER:
                self.versions[i] = self.readers[i].version()
                self.failed[i] = 0  # before the STATUS: it says missing while the count is high
                self.send_status(i)
            self.failed[i] = 0
            return
        self.failed[i] += 1
        if self.failed[i] != FAILING_AFTER:
            return  # looked at once, at the FAILING_AFTER-th failure in a row
        version = self.readers[i].version()
        if version in (0x00, 0xFF):
            self.versions[i] = version
            self.send_status(i)
        else:
            self.failed[i] = 0
            self.readers[i].init()

    # --- life cycle
    def start(self, now_ms=0):
        """Initialise every reader and say hello; seq restarts at 0 so the host sees a reboot."""
        for i, r in enumerate(self.readers):
            v = r.init()
            self.versions[i] = v
            if v not in (0x00, 0xFF):
                self.live.append(i)
        self.seq = 0
        self.send("HELLO card-reader %s boot=%s pads=%d present=%d gone=%d" % (
            VERSION, self.boot_id, len(self.readers), self.pads[0].present_after if self.pads else 0,
            self.pads[0].gone_after if self.pads else 0))
        for i in range(len(self.readers)):
            self.send_status(i)
        self.last_beat = now_ms
        if not self.live:
            self.settled = True

    def poll_next(self):
        """Poll one reader (field on only for the time of its scan) and report what changed.

        Pads are polled in turn, except that a pad where a new card has just been read is
        polled again at once until the card is believed (``present_after`` reads in a row):
        a card is reported about one round after it is laid instead of three."""
        if not self.live:
            return
        i = self.live[self.next % len(self.live)]
        self.next = (self.next + 1) % len(self.live)
        r = self.readers[i]
        r.antenna(True)
        if self.powerup_us and self.sleep_us is not None:
            self.sleep_us(self.powerup_us)  # ISO 14443-3: a tag may take 5 ms to power up
        try:
            status, uid = r.scan()
        finally:
            r.antenna(False)
        self._failing(i, status)
        pad = self.pads[i]
        changes = pad.poll(_READING.get(status, uid))
        if self.settled and pad.seen and self.repolls < pad.present_after:
            # a card is being laid here: look again at once instead of after a whole round
            self.next = (self.next - 1) % len(self.live)
            self.repolls += 1
        else:
            self.repolls = 0
        if self.settled:
            for kind, value in changes:
                self.send(_CHANGE[kind] % ((i + 1, value) if value else (i + 1,)))
        if self.next == 0 and not self.settled:
            self.polls += 1
            if self.polls >= self.settle_polls:
                # Cards already resting at boot are reported once, as state, not as taps.
                self.settled = True
                for j in range(len(self.readers)):
                    self.send_state(j)

    def tick(self, now_ms):
        """A heartbeat when one is due. The uptime is summed from beat to beat: MicroPython's
        ticks_ms wraps (2**30 ms on the Pico) and ticks_diff is right only within half of that,
        so the time since boot taken in one diff went negative after 6.2 days."""
        if self.last_beat is None:
            return
        elapsed = self.ticks_diff(now_ms, self.last_beat)
        if elapsed >= self.heartbeat_ms:
            self.last_beat = now_ms
            self.up_ms += elapsed
            self.up_s, self.up_ms = self.up_s + self.up_ms // 1000, self.up_ms % 1000
            self.send("HB %s %d" % (self.boot_id, self.up_s))

    # --- commands from the host
    def on_line(self, line):
        """One line from the host (None: a line too long to keep)."""
        seq, words = proto.unframe(line) if line is not None else (None, "too long")
        if seq is None:
            self.send("ERR - %s" % words)
            return
        cmd, args = words[0], words[1:]
        # a command word is upper-case letters only (PROTOCOL.md): "ping" is unknown, as "FOO" is
        handler = getattr(self, "cmd_" + cmd.lower(), None) if cmd.isalpha() and cmd.isupper() else None
        if handler is None:
            self.send("ERR %d unknown command %s" % (seq, cmd[:16]))
            return
        reason = handler(args)
        if reason:
            self.send("ERR %d %s" % (seq, reason))

    def _pad(self, args):
        if not args or not args[0].isdigit() or not 1 <= int(args[0]) <= len(self.readers):
            return None
        return int(args[0]) - 1

    def cmd_ping(self, args):
        if len(args) != 1 or len(args[0]) > 16:
            return "ping wants one token of at most 16 characters"
        self.send("PONG %s" % args[0])

    def cmd_sync(self, args):
        if args:
            return "sync takes no fields"
        if self.settled:  # before settling, the snapshot follows by itself
            for i in range(len(self.readers)):
                self.send_state(i)

    def cmd_status(self, args):
        if args:
            return "status takes no fields"
        for i in range(len(self.readers)):
            self.send_status(i)

    def cmd_led(self, args):
        pad = self._pad(args)
        if pad is None or len(args) != 2 or args[1] not in ("on", "off", "blink"):
            return "led wants a pad number and on, off or blink"
        return self._feedback(pad, "led", args[1])

    def cmd_beep(self, args):
        pad = self._pad(args)
        if pad is None or len(args) != 2 or not args[1].isdigit() or not 0 < int(args[1]) <= 2000:
            return "beep wants a pad number and 1 to 2000 ms"
        return self._feedback(pad, "beep", int(args[1]))

    def _feedback(self, pad, what, value):
        if self.feedback is not None:
            self.feedback(pad + 1, what, value)
        self.send("OK %s %d" % (what.upper(), pad + 1))
