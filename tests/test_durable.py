"""The frame is rendered while the journal commit is made durable, and sent only once it is
(issue 12 item 5; the log is the truth: nothing is shown before it is stored).

A real SQLite journal, luma's dummy device, the daemon's Box; the journal's append is slowed or
made to fail by subclassing our own Journal (as tests/test_table.py does), never by timing.
"""
import threading

import pytest

from assistant.box.daemon import Box
from assistant.hw.display import open_display
from assistant.box.config import Display as DisplayCfg
from assistant.box.durable import OverlappedJournal
from assistant.hw.events import ButtonPressed, TagArrived
from assistant.box.journal import Journal, JournalError
from assistant.box.table import Table
from assistant.rules.cards import parse_card

DECK = {f"U{c:02d}": c for c in range(32)}
HANG = 30.0  # a guard against a hang, never a measurement


class GatedJournal(Journal):
    """Our journal whose append waits for the test to open the gate, and can be told to fail."""
    fail = False

    def __init__(self, path):
        super().__init__(path)
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()

    def append(self, action, seats=None):
        self.entered.set()
        assert self.gate.wait(HANG)
        if self.fail:
            raise JournalError("the storage card is full: this action was not saved")
        super().append(action, seats)


def stored_lines(journal):
    return [r[0] for r in journal.db.execute("SELECT line FROM actions ORDER BY seq")]


@pytest.fixture
def box(tmp_path):
    journal = GatedJournal(str(tmp_path / "journal.sqlite3"))
    table = Table(journal, DECK, pads=("P1", "P2", "centre"))
    display = open_display(DisplayCfg(driver="dummy"))
    b = Box(table, display)
    b.step(ButtonPressed("ok"))  # a new towers match
    yield b, journal, display
    display.close()
    b.table.journal.close()


def test_the_frame_is_rendered_during_the_commit_and_sent_after_it(box, monkeypatch):
    b, journal, display = box
    assert isinstance(b.table.journal, OverlappedJournal)
    import assistant.box.screen as screen
    rendered = []
    real_render = screen.render
    monkeypatch.setattr(screen, "render", lambda view: rendered.append(journal.gate.is_set()) or real_render(view))
    sent_before = display.sent
    journal.gate.clear()  # the commit of the next action hangs until the gate opens
    journal.entered.clear()
    done = threading.Thread(target=b.step, args=(TagArrived(3, "U%02d" % parse_card("JH")),))
    done.start()
    assert journal.entered.wait(HANG)  # the commit is under way ...
    overlapped = b.table.journal
    for _ in range(3000):  # ... the frame gets rendered meanwhile, then the box waits for it
        if overlapped._cv._waiters:  # (CPython's Condition: the box's thread waits in settle())
            break
        done.join(0.01)
    assert rendered == [False], "the frame was not rendered while the commit was under way"
    assert display.sent == sent_before, "a frame was sent before its action was stored"
    journal.gate.set()
    done.join(HANG)
    assert display.sent == sent_before + 1
    assert stored_lines(journal) == ["flip JH"]


def test_a_failed_commit_puts_the_table_back_and_shows_why(box):
    b, journal, display = box
    b.step(TagArrived(3, "U%02d" % parse_card("JH")))
    journal.fail = True
    b.step(TagArrived(3, "U%02d" % parse_card("JS")))
    assert [a.kind for a in b.table.match.actions] == ["flip"]  # not stored, so not accepted
    assert b.view.alert.kind == "refused" and "storage card is full" in b.view.alert.text
    assert display.last.tobytes() == b.frame.tobytes()
    journal.fail = False
    b.step(TagArrived(3, "U%02d" % parse_card("JS")))
    assert stored_lines(journal) == ["flip JH", "flip JS"]
    assert len(b.table.match.actions) == 2


def test_an_idle_journal_worker_waits_without_waking(tmp_path):
    """The worker blocks on a condition with no timeout (issue 12 item 6: an idle box sleeps)."""
    j = OverlappedJournal(Journal(str(tmp_path / "j.sqlite3")))
    try:
        assert j._thread.is_alive()
        assert j.settle() == (None, [])
    finally:
        j.close()
    assert not j._thread.is_alive()


def test_run_timing_logs_each_stage_and_each_oled_write_naming_no_card(box, monkeypatch, caplog, tmp_path):
    """card-assistant run --timing (issue 12 item 4): per-event stages and the bus, no card named."""
    import logging

    from assistant.box import daemon
    from assistant.hw import timing
    from assistant.hw.oled import PartialSSD1306, capture_i2c

    monkeypatch.setattr(timing, "enabled", False)
    assert daemon.main(["--timing", "--config", str(tmp_path / "missing.toml")]) == 2
    assert timing.enabled  # the flag turned it on (the missing config then stopped the run)
    b, journal, display = box
    b.timing = timing.clock()
    caplog.set_level(logging.INFO, logger="card-assistant.hw.timing")
    b.step(TagArrived(3, "U%02d" % parse_card("JH")))
    line = [r.getMessage() for r in caplog.records if r.name == "card-assistant.hw.timing"][-1]
    assert line.startswith("TagArrived: table ") and "render" in line and "commit wait" in line
    assert "to display" in line and "JH" not in line and "U" + "%02d" % parse_card("JH") not in line
    PartialSSD1306(capture_i2c())  # luma's init clears the screen: one whole frame
    assert any(r.getMessage().startswith("OLED: 1034 bytes on I2C in ") for r in caplog.records)
