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
