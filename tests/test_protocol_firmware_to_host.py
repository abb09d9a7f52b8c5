"""The real firmware logic talking to the real host tracker (issue 4, items 1, 2 and 4).

The firmware's App (on simulated MFRC522 readers, under CPython) writes its
lines; assistant.hw.tracker.Tracker reads them. So the two sides agree on the
protocol beyond the shared vectors: boot banner and snapshot, taps, two tags
on a pad, a missing reader, and a host command answered.
"""

from assistant.hw.events import PadCleared, PadConflict, ReaderStatus, TagArrived, TagRemoved
from assistant.hw.protocol import frame
from assistant.hw.tracker import Tracker

from firmware_import import FIRMWARE, import_firmware

TESTS = FIRMWARE / "tests"
(fw_checks,) = import_firmware("fw_checks")

A, B = "04A1B2C3D4E5F6", "04A1B2C3D4E5F7"


class Wire:
    def __init__(self, **kw):
        self.table = fw_checks.Table(**kw)
        self.tracker = Tracker()
        self.read = 0

    def events(self):
        out = []
        for line in self.table.wire[self.read:]:
            out += self.tracker.feed(line)
        self.read = len(self.table.wire)
        return out


def test_boot_then_taps_conflict_and_clear_reach_the_host_as_events():
    w = Wire(pads=3, present=2, gone=2, versions=[0x92, 0x00, 0x91])
    w.table.put(3, A)  # resting on pad 3 at boot
    w.table.rounds(2)
    assert w.events() == [ReaderStatus(True, f"card reader firmware {fw_checks.app.VERSION} ready"),
                          TagArrived(3, A, inferred=True)]  # from the boot snapshot
    assert w.tracker.status[2] == ("missing", "00", "0")
    w.table.put(1, B)
    w.table.rounds(3)
    w.table.put(1, A, B)
    w.table.put(3)
    w.table.rounds(3)
    w.table.put(1)
    w.table.rounds(3)
    assert w.events() == [TagArrived(1, B), TagRemoved(1, B), PadConflict(1), TagRemoved(3, A), PadCleared(1)]
    assert not w.tracker.counts


def test_host_command_is_answered_without_a_fault():
    w = Wire(pads=1)
    w.table.app.on_line(frame(7, "PING abc"))
    w.table.app.on_line(frame(8, "LED 1 on"))
    assert w.events()[-1:] == [ReaderStatus(True, f"card reader firmware {fw_checks.app.VERSION} ready")]
    assert w.table.feedback == [[1, "led", "on"]]
    assert not w.tracker.counts


def test_a_reader_whose_wire_comes_loose_after_boot_reaches_the_log_once(caplog):
    """Fault (attack on the firmware: a pad's reader reads all zeros once play has begun): the
    firmware failed every poll of that pad without a word, so a card laid there was lost and the
    box's log said nothing. Now the host hears the pad's STATUS missing once and logs one line
    asking for its wiring; no tap is made up, and the card that lay there stays."""
    w = Wire(pads=2, present=2, gone=2)
    w.table.put(2, A)
    w.table.rounds(3)
    w.events()
    sim = w.table.sims[1]
    sim.xfer = lambda tx: bytes(len(tx))  # every register reads 0
    with caplog.at_level("WARNING", logger="assistant.hw.reader"):
        w.table.rounds(fw_checks.app.FAILING_AFTER * 20)
        assert w.events() == []
    said = [r.getMessage() for r in caplog.records]
    assert said == ["pad 2: no MFRC522 answers (version 00): check its wiring (logged once until it ends)"]
    assert w.tracker.pads == {2: A} and w.tracker.status[2][:2] == ("missing", "00")
    del sim.xfer
    w.table.rounds(3)
    assert w.events() == [] and w.tracker.status[2][:2] == ("ok", "92")
