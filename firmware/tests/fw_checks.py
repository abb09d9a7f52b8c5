"""Checks of the firmware logic that run unchanged under MicroPython (wasm, in
node) and CPython (pytest): framing against the shared vectors, the MFRC522
driver against the register model, debounce, polling order, two tags, boot.

Each check is a plain function that raises AssertionError on failure.
``run_all`` prints ``ok NAME`` or ``FAIL NAME: why`` per check and a summary.
"""
import json

import app
import mfrc522
import proto
from presence import CONFLICT, EMPTY, Presence
from sim_mfrc522 import Clock, SimReader, SimTag

UID_A, UID_B, UID_C, UID_D = "04A1B2C3D4E5F6", "04A1B2C3D4E5F7", "0452F1227A6B80", "04C0FFEE123456"
VECTORS = {}


def eq(got, want, what=""):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


class Table:
    """The firmware on a bench: ``pads`` simulated readers and a list for the wire."""

    def __init__(self, pads=4, present=3, gone=3, versions=None, heartbeat_ms=1000):
        self.sims = [SimReader(version=(versions[i] if versions else 0x92)) for i in range(pads)]
        self.wire = []
        self.feedback = []
        self.fields = []  # for every transceive: which readers had their field on
        for i, s in enumerate(self.sims):
            s.transceive = self._spy(i, s.transceive)
        self.app = app.App([mfrc522.Mfrc522(s) for s in self.sims], self.wire.append,
                           lambda *a: self.feedback.append(list(a)), present, gone,
                           heartbeat_ms, "BEEF")
        self.app.start(0)
        self.seen = 0

    def _spy(self, i, inner):
        def transceive():
            self.fields.append((i, [j for j, s in enumerate(self.sims) if s.field()]))
            inner()
        return transceive

    def rounds(self, n):
        for _ in range(n * max(1, len(self.app.live))):
            self.app.poll_next()

    def lines(self):
        """Bodies written since the last call; every line must frame correctly."""
        out = []
        for raw in self.wire[self.seen:]:
            seq, words = proto.unframe(raw)
            if seq is None:
                raise AssertionError("firmware wrote a bad line %r: %s" % (raw, words))
            out.append(" ".join(words))
        self.seen = len(self.wire)
        return out

    def put(self, pad, *uids, answers=(True,)):
        self.sims[pad - 1].tags[:] = [SimTag(u, answers) for u in uids]


# --- framing: the shared vectors
def check_crc16_vectors():
    for v in VECTORS["crc16"]:
        eq("%04X" % proto.crc16(v["ascii"].encode()), v["crc"], v["ascii"])


def check_frame_vectors():
    for v in VECTORS["frames"]:
        eq(proto.frame(v["seq"], v["body"]), (v["line"] + "\n").encode(), v["body"])
        eq(proto.unframe(v["line"]), (v["seq"], v["body"].split()), v["line"])


def check_bad_frame_vectors():
    for v in VECTORS["bad_frames"]:
        line = bytes(int(v["hex"][i:i + 2], 16) for i in range(0, len(v["hex"]), 2)) if "hex" in v else v["line"].encode()
        eq(proto.unframe(line), (None, v["reason"]), repr(line))


def check_grammar_frame_vectors():
    # the host's grammar, read the same way by the firmware: a lenient reader would act on lines
    # the host would never send (a space in front, a leading zero, a tab)
    for v in VECTORS["grammar_frames"]["bad"]:
        eq(proto.unframe(v["line"].encode()), (None, v["reason"]), v["line"])
    for line in VECTORS["grammar_frames"]["good"]:
        eq(proto.unframe(line.encode())[0] is not None, True, line)


def check_command_vectors():
    for v in VECTORS["commands"]:
        t = Table()
        t.lines()
        t.app.on_line((v["line"] + "\n").encode())
        eq(t.lines(), v["reply"], v["line"])
        eq(t.feedback, [v["feedback"]] if "feedback" in v else [], v["line"])


def check_line_buffer_drops_overlong_lines_whole():
    lb = proto.LineBuffer()
    eq(lb.feed(b"1 PI"), [], "partial")
    eq(lb.feed(b"NG x*0000\n" + b"y" * 300 + b"\n2 SYNC"), [b"1 PING x*0000", None], "split and overlong")
    eq(lb.feed(b"\n"), [b"2 SYNC"], "after overlong")


# --- the driver against the register model
def scan(sim):
    d = mfrc522.Mfrc522(sim)
    d.init()
    d.antenna(True)
    return d.scan()


def check_driver_reads_7_byte_ntag_uid():
    eq(scan(SimReader(tags=[SimTag(UID_A)])), (mfrc522.ONE, UID_A), "7-byte")


def check_driver_reads_4_and_10_byte_uids():
    eq(scan(SimReader(tags=[SimTag("DEADBEEF")])), (mfrc522.ONE, "DEADBEEF"), "4-byte")
    eq(scan(SimReader(tags=[SimTag("0411223344556677889A")])), (mfrc522.ONE, "0411223344556677889A"), "10-byte")


def check_driver_empty_field():
    eq(scan(SimReader()), (mfrc522.NONE, ""), "empty")


def check_driver_two_tags_colliding_at_level_1():
    eq(scan(SimReader(tags=[SimTag(UID_A), SimTag(UID_C)]))[0], mfrc522.MANY, "CL1 collision")


def check_driver_two_tags_colliding_at_level_2():
    # same first three bytes: level 1 selects both, level 2 collides
    eq(scan(SimReader(tags=[SimTag(UID_A), SimTag(UID_B)]))[0], mfrc522.MANY, "CL2 collision")


def check_driver_antenna_off_resets_tags():
    sim = SimReader(tags=[SimTag(UID_A)])
    d = mfrc522.Mfrc522(sim)
    d.init()
    d.antenna(True)
    eq(d.scan(), (mfrc522.ONE, UID_A), "first")
    eq(d.scan(), (mfrc522.NONE, ""), "halted tag stays silent while the field stays on")
    d.antenna(False)
    d.antenna(True)
    eq(d.scan(), (mfrc522.ONE, UID_A), "field cycled")


def check_driver_no_field_no_read():
    sim = SimReader(tags=[SimTag(UID_A)])
    d = mfrc522.Mfrc522(sim)
    d.init()
    eq(d.scan(), (mfrc522.NONE, ""), "antenna off")


# --- presence debounce
def check_debounce_tap_gives_one_arrival_one_removal():
    p = Presence(3, 2)
    got = []
    for r in [EMPTY, UID_A, UID_A, UID_A, UID_A, UID_A, EMPTY, EMPTY, EMPTY, EMPTY]:
        got += p.poll(r)
    eq(got, [("arrive", UID_A), ("remove", UID_A)], "tap")


def check_debounce_resting_card_that_flickers_stays():
    p = Presence(2, 3)
    got = []
    for r in [UID_A, UID_A] + [EMPTY, UID_A, EMPTY, EMPTY, UID_A, None] * 20:
        got += p.poll(r)
    eq(got, [("arrive", UID_A)], "flicker")


def check_debounce_blip_shorter_than_n_is_ignored():
    p = Presence(3, 3)
    got = []
    for r in [UID_A, UID_A, EMPTY, UID_A, UID_A, EMPTY, UID_B, EMPTY]:
        got += p.poll(r)
    eq(got, [], "blips")


def check_debounce_card_read_two_polls_in_three_arrives_once():
    """A card lying at the edge of a pad's field that answers two polls in three never gave
    three reads in a row, so with the shipped counts (present after 3, gone after 4) it was
    never reported, however long it lay there (leftover of issue 12: a card laid and never
    seen). Twice present_after reads of one card, with fewer than gone_after misses in a row
    between them, now count too; it still goes only after gone_after misses in a row."""
    p = Presence(3, 4)
    got = []
    for r in [EMPTY] * 3 + [UID_A, UID_A, EMPTY] * 20 + [EMPTY] * 4:
        got += p.poll(r)
    eq(got, [("arrive", UID_A), ("remove", UID_A)], "two in three")


def check_debounce_scattered_reads_of_a_passing_card_do_not_arrive():
    """The other side of the rule above: reads with gone_after misses in a row between them are
    separate blips (a card passed over a pad on its way to another), never added together."""
    p = Presence(3, 4)
    got = []
    for r in ([UID_A, UID_A] + [EMPTY] * 4) * 10:
        got += p.poll(r)
    eq(got, [], "scattered")


def check_debounce_swap_and_conflict():
    p = Presence(2, 2)
    got = []
    for r in [UID_A, UID_A, UID_B, UID_B, CONFLICT, CONFLICT, EMPTY, EMPTY]:
        got += p.poll(r)
    eq(got, [("arrive", UID_A), ("remove", UID_A), ("arrive", UID_B), ("remove", UID_B),
             ("conflict", ""), ("clear", "")], "swap")


def check_debounce_rejects_zero_thresholds():
    try:
        Presence(0, 1)
    except ValueError:
        return
    raise AssertionError("Presence(0, 1) accepted")


# --- the whole firmware
def check_boot_banner_status_then_state_snapshot():
    t = Table(pads=4, present=3, gone=4, versions=[0x92, 0x91, 0x00, 0x92])
    t.put(1, UID_A)
    eq(t.wire[0][:8], b"0 HELLO ", "banner is seq 0")
    eq(t.lines(), ["HELLO card-reader %s boot=BEEF pads=4 present=3 gone=4" % app.VERSION,
                   "STATUS 1 ok 92 0", "STATUS 2 ok 91 0", "STATUS 3 missing 00 0", "STATUS 4 ok 92 0"], "boot")
    t.rounds(3)
    eq(t.lines(), [], "settling is quiet")
    t.rounds(1)
    eq(t.lines(), ["STATE 1 %s" % UID_A, "STATE 2 -", "STATE 3 -", "STATE 4 -"], "a resting card is state, not a tap")


def check_tap_reports_one_arrive_and_one_remove():
    t = Table(pads=2, present=2, gone=3)
    t.rounds(3)
    t.lines()
    t.put(2, UID_A)
    t.rounds(10)
    t.put(2)
    t.rounds(10)
    eq(t.lines(), ["ARRIVE 2 %s" % UID_A, "REMOVE 2 %s" % UID_A], "tap")


def check_card_at_edge_of_field_gives_one_arrival():
    t = Table(pads=1, present=2, gone=3)
    t.rounds(3)
    t.lines()
    t.put(1, UID_A, answers=(True, True, False, True, False, False))
    t.rounds(60)
    eq(t.lines(), ["ARRIVE 1 %s" % UID_A], "flaky")


def check_card_answering_two_polls_in_three_reported_with_shipped_counts():
    """The whole firmware with config.py's counts (present 3, gone 4) and a card at the edge
    of the field answering two polls in three: laid, it gives one ARRIVE; lifted, one REMOVE."""
    t = Table(pads=4, present=3, gone=4)
    t.rounds(4)
    t.lines()
    t.put(3, UID_A, answers=(True, True, False))
    t.rounds(12)
    t.put(3)
    t.rounds(5)
    eq(t.lines(), ["ARRIVE 3 %s" % UID_A, "REMOVE 3 %s" % UID_A], "two in three")


def check_200_taps_on_four_flaky_pads_each_reported_once():
    """Cards at the edge of the field (missing one read in three), tapped for
    random lengths on random pads: every tap is one ARRIVE and one REMOVE."""
    t = Table(pads=4, present=2, gone=3)
    t.rounds(3)
    t.lines()
    seed, want = 12345, []
    for n in range(200):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF  # an LCG: the same on both Pythons
        pad, hold = 1 + seed % 4, 3 + (seed >> 8) % 5
        uid = "04%012X" % (0xC0DE00000000 + n)
        t.put(pad, uid, answers=(True, True, False))
        t.rounds(hold)
        t.put(pad)
        t.rounds(4)
        want += ["ARRIVE %d %s" % (pad, uid), "REMOVE %d %s" % (pad, uid)]
    eq(t.lines(), want, "taps")


def check_two_tags_on_one_pad_reported_as_conflict():
    t = Table(pads=2, present=2, gone=2)
    t.rounds(2)
    t.lines()
    t.put(1, UID_A, UID_B)
    t.rounds(5)
    t.put(1, UID_B)
    t.rounds(5)
    t.put(1)
    t.rounds(5)
    eq(t.lines(), ["CONFLICT 1", "CLEAR 1", "ARRIVE 1 %s" % UID_B, "REMOVE 1 %s" % UID_B], "conflict")


def check_polling_round_robin_with_idle_antennas_off():
    t = Table(pads=4, versions=[0x92, 0x92, 0x00, 0x92])
    t.fields[:] = []
    t.put(1, UID_A)
    t.put(4, UID_C)
    t.rounds(4)
    order = []
    for i, on in t.fields:
        eq(on, [i], "only the polled reader's field is on")
        if not order or order[-1] != i:
            order.append(i)
    eq(order, [0, 1, 3] * 4, "polling order skips the missing reader")
    eq(t.sims[2].field_on_polls, 0, "missing reader never polled")


def check_a_reader_that_stops_answering_is_said_once_and_again_when_it_answers():
    """Fault (attack on the firmware: a reader's SPI wire come loose after boot, its chip read as
    all zeros): every poll of its pad failed, counted in a number only a STATUS command shows, so
    a card laid there was never reported and the host heard nothing at all. Now the pad's STATUS
    says missing once after FAILING_AFTER failed polls, and ok once when the chip answers again;
    no ARRIVE, REMOVE or CONFLICT is made up meanwhile, and the card that lay there stays."""
    t = Table(pads=2, present=2, gone=2)
    t.put(2, UID_A)
    t.rounds(3)
    t.lines()
    sim = t.sims[1]
    sim.xfer = lambda tx: bytes(len(tx))  # MISO stuck low: every register reads 0
    t.rounds(app.FAILING_AFTER * 5)
    said = t.lines()
    eq([x.split()[:4] for x in said], [["STATUS", "2", "missing", "00"]], "said once")
    t.app.on_line(proto.frame(7, "STATUS"))
    eq([x.split()[:3] for x in t.lines()], [["STATUS", "1", "ok"], ["STATUS", "2", "missing"]], "asked")
    del sim.xfer
    t.rounds(5)
    eq([x.split()[:4] for x in t.lines()], [["STATUS", "2", "ok", "92"]], "answers again, the card still there")
    t.put(2)
    t.rounds(5)
    eq(t.lines(), ["REMOVE 2 %s" % UID_A], "lifted")


def check_a_hung_reader_that_still_gives_its_version_is_reset_and_reads_again():
    """Fault (as above, a chip hung with its wiring sound: its transceive never completes, its
    version still reads 92): its pad heard nothing for ever. Now, after FAILING_AFTER failed polls,
    the chip is reset and configured again, as at boot, without a STATUS line (the chip answers),
    and a card laid there is reported."""
    t = Table(pads=2, present=2, gone=2)
    t.rounds(3)
    t.lines()
    sim = t.sims[1]
    works, command = sim.transceive, sim.command
    sim.transceive = lambda: None  # the command is taken and never ends: no interrupt bit ever

    def reset_mends(cmd):
        if cmd == 0x0F:
            sim.transceive = works
        command(cmd)
    sim.command = reset_mends
    t.rounds(app.FAILING_AFTER + 1)
    t.put(2, UID_A)
    t.rounds(5)
    eq(t.lines(), ["ARRIVE 2 %s" % UID_A], "reset, then read")


def check_sync_and_status_commands():
    t = Table(pads=2, present=1, gone=1)
    t.rounds(1)
    t.put(2, UID_D)
    t.rounds(1)
    t.lines()
    t.app.on_line(proto.frame(40, "SYNC"))
    t.app.on_line(proto.frame(41, "STATUS"))
    eq(t.lines(), ["STATE 1 -", "STATE 2 %s" % UID_D, "STATUS 1 ok 92 0", "STATUS 2 ok 92 0"], "sync")


def check_heartbeat_every_interval():
    t = Table(pads=1, heartbeat_ms=1000)
    t.lines()
    for now in (500, 999, 1000, 1500, 2100, 2200, 65000):
        t.app.tick(now)
    eq(t.lines(), ["HB BEEF 1", "HB BEEF 2", "HB BEEF 65"], "heartbeats")


def check_heartbeat_uptime_counts_on_past_the_ticks_wrap():
    """Fault (attack on the firmware, a box left on for a week): the uptime was one ticks_diff
    from boot, which MicroPython keeps right only within half the ticks period (2**29 ms on the
    Pico: 6.2 days); past that each heartbeat said a negative uptime. Here the Pico's ticks_ms
    and ticks_diff, wrapping at 2**30."""
    period = 1 << 30

    def ticks_diff(a, b):
        return ((a - b + period // 2) & (period - 1)) - period // 2

    sims = [SimReader()]
    wire = []
    fw = app.App([mfrc522.Mfrc522(s) for s in sims], wire.append, None, 3, 4, 1000, "BEEF", ticks_diff)
    fw.start(period - 5000)  # booted 5 s before the ticks wrap
    day = 86400 * 1000
    for ms in range(1000, 8 * day, 3600 * 1000):  # a beat an hour for eight days
        fw.tick((period - 5000 + ms) % period)
    beats = [int(proto.unframe(x)[1][2]) for x in wire if b" HB " in x]
    eq(beats, [ms // 1000 for ms in range(1000, 8 * day, 3600 * 1000)], "uptime in seconds")


def check_sequence_numbers_count_up_and_wrap():
    t = Table(pads=1)
    t.app.seq = proto.SEQ_MOD - 1
    t.app.on_line(proto.frame(1, "PING a"))
    t.app.on_line(proto.frame(2, "PING b"))
    seqs = [proto.unframe(x)[0] for x in t.wire]
    eq(seqs, list(range(len(seqs) - 2)) + [proto.SEQ_MOD - 1, 0], "seq")


# --- timing, on the model's clock (TIMING.md)
def timed_table(pads, powerup_us):
    clock = Clock()
    sims = [SimReader(clock=clock) for _ in range(pads)]
    wire = []
    fw = app.App([mfrc522.Mfrc522(s) for s in sims], wire.append, None, 3, 4, 1000, "BEEF",
                 powerup_us=powerup_us, sleep_us=clock.sleep_us)
    fw.start(0)
    while not fw.settled:
        fw.poll_next()
    return clock, sims, wire, fw


def check_a_tag_slow_to_power_up_is_read_after_the_wait():
    """ISO 14443-3 lets a tag take 5 ms after the field goes on; a REQA sent sooner goes unheard."""
    for wait, want in ((5000, ["ARRIVE 1 %s" % UID_A]), (0, [])):
        clock, sims, wire, fw = timed_table(1, wait)
        del wire[:]
        sims[0].tags[:] = [SimTag(UID_A, powerup_us=5000)]
        for _ in range(10):
            fw.poll_next()
        eq([" ".join(proto.unframe(x)[1]) for x in wire], want, "power-up wait %d us" % wait)


def check_an_empty_pad_answers_after_the_driver_timer():
    """The model completes a transceive no one answers when the driver's timer runs out (1 ms)."""
    clock = Clock(access_us=40)
    d = mfrc522.Mfrc522(SimReader(clock=clock))
    d.init()
    d.antenna(True)
    t0 = clock.us
    eq(d.request(), mfrc522.NONE, "empty")
    took = clock.us - t0  # the timer, the frame on air, and the register accesses around them
    if not 1025 <= took <= 1025 + 85 + 12 * 45:
        raise AssertionError("REQA on an empty pad took %d us of model time, want the 1.0 ms timer" % took)


def check_a_card_being_laid_is_polled_again_at_once():
    """Fast re-poll: after a first read of a new card, its pad is polled until the card counts."""
    t = Table(pads=4, present=3, gone=3)
    t.rounds(3)
    t.lines()
    t.put(2, UID_A)
    order = []
    for _ in range(5):
        before = [s.field_on_polls for s in t.sims]
        t.app.poll_next()
        order += [i for i, s in enumerate(t.sims) if s.field_on_polls != before[i]]
    eq(order, [0, 1, 1, 1, 2], "pad 2 again until its card counts, then the round goes on")
    eq(t.lines(), ["ARRIVE 2 %s" % UID_A], "arrived within one round")


CHECKS = [v for k, v in sorted(globals().items()) if k.startswith("check_")]


def load_vectors(path):
    with open(path) as f:
        VECTORS.update(json.load(f))


def run_all(vectors_path):
    load_vectors(vectors_path)
    failed = 0
    for check in CHECKS:
        try:
            check()
            print("ok", check.__name__)
        except Exception as e:
            failed += 1
            print("FAIL %s: %s %s" % (check.__name__, type(e).__name__, e))
    print("fw_checks: %d passed, %d failed" % (len(CHECKS) - failed, failed))
    return failed
