"""The reader's Tracker alone (no port): sequence rules and pad reconciliation (issue 4, item 4).

Lines go straight into Tracker.feed; each test names the fault it covers.
"""
import pytest

from assistant.hw.events import PadCleared, PadConflict, ReaderStatus, TagArrived, TagRemoved
from assistant.hw.protocol import frame
from assistant.hw.tracker import Tracker

A, B = "04A1B2C3D4E5F6", "04C0FFEE123456"
HELLO = "HELLO card-reader 1.0.0 boot={} pads=2 present=3 gone=4"


def feed(t, *lines):
    out = []
    for seq, body in lines:
        out += t.feed(frame(seq, body))
    return out


def booted():
    t = Tracker()
    feed(t, (0, HELLO.format("AAAA")), (1, "STATE 1 -"), (2, "STATE 2 -"))
    assert not t.want_sync and t.npads == 2
    return t


def test_sequence_wraps_from_65535_to_0_without_a_fault():
    t = booted()
    t.last_seq = 65534
    assert feed(t, (65535, f"ARRIVE 1 {A}"), (0, f"REMOVE 1 {A}")) == [TagArrived(1, A), TagRemoved(1, A)]
    assert not t.counts


def test_stale_line_is_refused_not_replayed():
    t = booted()
    feed(t, (3, f"ARRIVE 1 {A}"), (4, f"REMOVE 1 {A}"))
    assert feed(t, (3, f"ARRIVE 1 {A}")) == []  # held: a stale copy, or a new boot's first line
    assert feed(t, (5, "HB AAAA 9")) == []  # the old sequence goes on: it was stale
    assert t.counts == {"out of order": 1}


def test_heartbeat_with_a_new_boot_id_means_a_missed_restart():
    t = booted()
    assert feed(t, (3, "HB AAAA 5")) == []
    assert feed(t, (7, "HB BBBB 1")) == [ReaderStatus(True, "card reader restarted")]
    assert t.want_sync and t.counts["restart"] == 1


def test_snapshot_with_a_loss_inside_it_asks_again():
    t = booted()
    feed(t, (3, f"ARRIVE 2 {B}"))
    t.want_sync = True  # a SYNC went out
    t.feed(b"4 STATE 1 -*0000")  # corrupted
    assert feed(t, (5, f"STATE 2 {B}")) == []
    assert t.want_sync, "pad 1's state was lost inside the snapshot"
    assert feed(t, (6, "STATE 1 -"), (7, f"STATE 2 {B}")) == []
    assert not t.want_sync


def test_snapshot_reconciles_every_kind_of_pad():
    t = booted()
    feed(t, (3, f"ARRIVE 1 {A}"), (4, "CONFLICT 2"))
    assert feed(t, (5, f"STATE 1 {B}"), (6, "STATE 2 -")) == [TagRemoved(1, A, True), TagArrived(1, B, True),
                                                              PadCleared(2)]
    assert feed(t, (7, "STATE 1 MANY")) == [TagRemoved(1, B, True), PadConflict(1)]


def test_removal_of_a_tag_never_seen_implies_its_arrival():
    t = booted()
    assert feed(t, (4, f"REMOVE 2 {B}")) == [TagArrived(2, B, inferred=True), TagRemoved(2, B)]
    assert t.counts == {"dropped": 1, "recovered": 1}


def test_refused_line_asks_for_a_snapshot():
    t = booted()
    assert t.feed(b"\x00\x01garbage") == []
    assert t.want_sync and t.counts == {"not plain ASCII": 1}


def test_doubled_hello_is_one_boot_not_a_restart():
    t = Tracker()
    hello = frame(0, HELLO.format("AAAA"))
    assert t.feed(hello) == [ReaderStatus(True, "card reader firmware 1.0.0 ready")]
    assert t.feed(hello) == []
    assert t.counts == {"duplicate": 1}


def test_hello_with_a_new_boot_id_is_a_restart():
    t = booted()
    assert feed(t, (0, HELLO.format("BBBB"))) == [ReaderStatus(True, "card reader restarted")]
    assert t.counts == {"restart": 1}


def test_same_seq_different_line_is_refused_as_out_of_order():
    t = booted()
    feed(t, (3, f"ARRIVE 1 {A}"))
    assert feed(t, (3, f"ARRIVE 2 {B}")) == []
    assert feed(t, (4, f"REMOVE 1 {A}")) == [TagRemoved(1, A)]
    assert t.counts == {"out of order": 1}


def test_swap_without_its_removal_line_is_recovered():
    t = booted()
    feed(t, (3, f"ARRIVE 1 {A}"))
    assert feed(t, (5, f"ARRIVE 1 {B}")) == [TagRemoved(1, A, inferred=True), TagArrived(1, B)]
    assert t.counts == {"dropped": 1, "recovered": 1}


def test_reboot_with_its_hello_lost_delivers_the_tap():
    """Issue 10, item 3: the reader restarts while its counter is low (30, inside the stale
    window) and the new boot's HELLO is garbled. Its lines are held, not refused; the second one
    follows the first, so it is a reboot: said, a SYNC asked for, the held lines applied."""
    t = booted()
    t.last_seq = 30
    assert t.feed(b"0 HELLO card-reader 1.0.0 boot=BBBB pads=2 present=3 gone=4*0000") == []
    assert feed(t, (1, "STATUS 1 ok 92 0")) == []
    assert feed(t, (2, "STATUS 2 ok 92 0")) == [ReaderStatus(True, "card reader restarted")]
    assert feed(t, (3, "STATE 1 -"), (4, "STATE 2 -"), (5, f"ARRIVE 2 {B}"), (6, f"REMOVE 2 {B}")) \
        == [TagArrived(2, B), TagRemoved(2, B)]
    assert t.snapshots == 2  # the new boot's snapshot was taken
    assert t.counts == {"checksum mismatch": 1, "restart": 1, "hello lost": 1}
    assert feed(t, (7, "HB BBBB 2")) == []  # the new boot's id, learnt: not one more restart


def test_a_tap_among_the_held_lines_arrives_in_order():
    t = booted()
    feed(t, (3, f"ARRIVE 1 {A}"))
    t.last_seq = 40
    assert feed(t, (0, f"REMOVE 1 {A}")) == []  # the new boot's first line: its HELLO was lost
    assert feed(t, (1, f"ARRIVE 2 {B}")) == [ReaderStatus(True, "card reader restarted"),
                                               TagRemoved(1, A), TagArrived(2, B)]


def test_heartbeat_with_a_new_boot_id_behind_the_last_is_a_restart_at_once():
    t = booted()
    t.last_seq = 50
    assert feed(t, (9, "HB BBBB 1")) == [ReaderStatus(True, "card reader restarted")]
    assert feed(t, (10, f"ARRIVE 1 {A}")) == [TagArrived(1, A)]
    assert t.counts == {"restart": 1}


def test_lost_lines_are_logged_as_lost_with_their_numbers(caplog):
    t = booted()
    feed(t, (8, f"ARRIVE 1 {A}"))
    assert "reader lines 3..7 lost (5)" in caplog.text
    assert t.counts == {"dropped": 5}


def test_a_pad_that_keeps_conflicting_is_logged_at_its_start_and_end_with_a_count(caplog):
    """Issue 16, item 3: a repeated condition is logged when it starts and when it ends, with a
    count; a pile flickering on a pad's edge made one line per conflict. Fault (attacker, serial):
    the conflict ended at the pad's next single tag, so a pile flickering between two tags and its
    top card alone (CONFLICT, CLEAR, ARRIVE, REMOVE, again) wrote two lines a flicker, without end.
    Now it ends once 30 s pass without a conflict on that pad, at the next good line."""
    import logging
    caplog.set_level(logging.INFO, logger="assistant.hw.reader")
    now = [0.0]
    t = booted()
    t.repeated.clock = lambda: now[0]
    seq = 3
    for _ in range(50):
        feed(t, (seq, "CONFLICT 1"), (seq + 1, "CLEAR 1"))
        seq += 2
    for _ in range(50):  # the top card read alone between conflicts
        feed(t, (seq, f"ARRIVE 1 {A}"), (seq + 1, f"REMOVE 1 {A}"), (seq + 2, "CONFLICT 1"), (seq + 3, "CLEAR 1"))
        seq += 4
        now[0] += 1.0
    said = [r.getMessage() for r in caplog.records if "pad" in r.getMessage()]
    assert said == ["pad 1: two or more tags at once (conflict) (logged once until it ends)"]
    now[0] += 29.0  # 30 s after the last conflict
    feed(t, (seq, "HB AAAA 99"))
    said = [r.getMessage() for r in caplog.records if "pad 1" in r.getMessage()]
    assert said[1:] == ["pad 1: 30 s without two tags at once (after 100 times in 79 s)"]


def test_refused_lines_closer_than_30_s_are_one_storm_logged_twice(caplog):
    """Harden item 1: a line that is noisy now and then is one condition while refused lines come
    less than 30 s apart (counted, not logged), and ends with its count at the first good line
    30 s after the last; a refused line after that starts a new one."""
    now = [0.0]
    t = booted()
    t.troubles.clock = lambda: now[0]
    seq = 3
    for n in range(20):  # one refused line every 20 s for 400 s, a heartbeat every 10 s
        t.feed(b"x")
        for _ in range(2):
            now[0] += 10
            feed(t, (seq, "HB AAAA 1"))
            seq += 1
    said = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert said == ["reader line refused (no checksum), 1 bytes (logged once until it ends)"]
    now[0] += 10
    feed(t, (seq, "HB AAAA 1"))
    t.feed(b"x")
    said = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert said[1:] == ["reader: 30 s without a refused line (no checksum) (after 20 times in 410 s)",
                        "reader line refused (no checksum), 1 bytes (logged once until it ends)"]
    assert t.counts["no checksum"] == 21


STORMS = {  # a kind of well-framed line that is wrong, repeated: (lines of it from seq 3, what the log says)
    "doubled": (lambda s: [(s, "HB AAAA 1"), (s, "HB AAAA 1")], "arrived twice: dropped the copy"),
    "seq jumps": (lambda s: [(s + 1, "HB AAAA 1")], "lost ("),
    "implied losses": (lambda s: [(s, f"REMOVE 1 {A}")], "pad 1: a lost line is implied"),
    "a missing chip": (lambda s: [(s, "STATUS 2 missing 00 0")], "pad 2: no MFRC522 answers"),
    "refused commands": (lambda s: [(s, "ERR - bad frame")], "reader refused a command"),
}


@pytest.mark.parametrize("storm", sorted(STORMS))
def test_a_storm_of_well_framed_wrong_lines_is_logged_twice_not_once_a_line(caplog, storm):
    """Fault (found by an outside attack on the line): a firmware that doubles every line, skips
    numbers, sends REMOVE of tags it never reported, STATUS missing or ERR, each one correctly
    framed, wrote one log line per line (a CONFLICT flood two): 5,000 lines for 5,000, enough for
    journald's rate limit to drop the `action:` lines. Now such a storm is logged when it starts
    and, with its exact count, at the first good line 30 s after the last."""
    now = [0.0]
    t = Tracker(clock=lambda: now[0])
    feed(t, (0, HELLO.format("AAAA")), (1, "STATE 1 -"), (2, "STATE 2 -"))
    lines, words = STORMS[storm]
    seq = 3
    for _ in range(1000):
        for s, body in lines(seq):
            seq = s
            t.feed(frame(s, body))
        seq += 1
    said = [r.getMessage() for r in caplog.records if words in r.getMessage()]
    assert len(said) == 1 and said[0].endswith("(logged once until it ends)"), said[:3]
    now[0] += 31
    feed(t, (seq, "HB AAAA 1"))
    over = [r.getMessage() for r in caplog.records if r.getMessage().startswith("reader: 30 s without")]
    assert len(over) == 1 and "(after 1000 times in 31 s)" in over[0], over


def test_a_hello_with_fewer_pads_forgets_what_lay_on_the_pads_that_are_gone(caplog):
    """PROTOCOL.md: a snapshot is STATE 1..pads. Fault (attacker, serial): a HELLO with fewer pads
    in the middle of a match kept the tag of the old pad 4 (and a conflict on pad 3) for ever, as
    no snapshot names those pads again. Now they are forgotten, as removals, with one plain line;
    the pads that are left keep theirs."""
    t = Tracker()
    four = "HELLO card-reader 1.0.0 boot={} pads=4 present=3 gone=4"
    feed(t, (0, four.format("AAAA")), (1, f"STATE 1 {B}"), (2, "STATE 2 -"), (3, "STATE 3 MANY"),
         (4, f"STATE 4 {A}"), (5, "STATUS 4 ok 92 0"))
    assert set(t.pads) == {1, 3, 4}
    with caplog.at_level("INFO", logger="assistant.hw.reader"):
        out = feed(t, (0, HELLO.format("BBBB")))
    assert out == [ReaderStatus(True, "card reader restarted"), PadCleared(3), TagRemoved(4, A, True)]
    assert t.pads == {1: B} and t.npads == 2 and 4 not in t.status
    said = [r.getMessage() for r in caplog.records if "no longer has" in r.getMessage()]
    assert said == ["reader firmware has 2 pad(s) now: what lay on pads 3 and 4, which it no longer has, "
                    "is forgotten (nothing played is lost) (logged once until it ends)"]
    assert feed(t, (1, f"STATE 1 {B}"), (2, "STATE 2 -")) == [] and not t.want_sync


def test_a_firmware_whose_hello_alternates_its_pad_count_is_one_storm_in_the_log(caplog):
    """Fault (leftover of the last attack on the serial line): a firmware whose HELLO said pads=4,
    then pads=2, then 4 again (a card on pad 3 each time: a jumper that comes and goes, a bad build
    in a boot loop) logged "reader firmware has 2 pad(s) now..." at every second HELLO, without
    end, as the drop storm once did. Now it is logged when it starts and, with its count, once 30 s
    pass without it; each HELLO still forgets pad 3's card (nothing of it stays)."""
    now = [0.0]
    t = Tracker(clock=lambda: now[0])
    four = "HELLO card-reader 1.0.0 boot={:04X} pads=4 present=3 gone=4"
    with caplog.at_level("INFO", logger="assistant.hw.reader"):
        for boot in range(0, 400, 2):
            feed(t, (0, four.format(boot)), (1, "STATE 1 -"), (2, "STATE 2 -"), (3, f"STATE 3 {A}"),
                 (4, "STATE 4 -"))
            assert t.pads == {3: A}
            out = feed(t, (0, HELLO.format(f"{boot + 1:04X}")))
            assert TagRemoved(3, A, True) in out and t.pads == {}
        said = [r.getMessage() for r in caplog.records if "no longer has" in r.getMessage()]
        assert len(said) == 1, said[:3]
        now[0] += 31
        feed(t, (1, "STATE 1 -"), (2, "STATE 2 -"))
    over = [r.getMessage() for r in caplog.records if "fewer pads" in r.getMessage()]
    assert over == ["reader: 30 s without a firmware with fewer pads than before (after 200 times in 31 s)"]
