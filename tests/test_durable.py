"""The frame is drawn while the journal commit is made durable, and sent only once it is
(issue 12 item 5; the log is the truth: nothing is shown before it is stored).

A real SQLite journal, luma's dummy device, the daemon's Box; the journal's append is slowed or
made to fail by subclassing our own Journal (as tests/test_table.py does), never by timing.
"""
import gc
import sys
import threading

import pytest

from assistant.box import loop
from assistant.box.daemon import Box
from assistant.hw.display import open_display
from assistant.box.config import Display as DisplayCfg
from assistant.box.durable import DeferredJournal, Renderer
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

    def append(self, action, seats=None, setting=None):
        self.entered.set()
        assert self.gate.wait(HANG)
        if self.fail:
            raise JournalError("the storage card is full: this action was not saved")
        super().append(action, seats, setting)


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
    b.renderer.close()
    display.close()
    b.table.journal.close()


def test_the_frame_is_drawn_during_the_commit_and_sent_after_it(box, monkeypatch):
    b, journal, display = box
    assert isinstance(b.table.journal, DeferredJournal)
    import assistant.box.screen as screen
    drawn, during, viewed = threading.Event(), [], []
    real_render, real_view = screen.render, Table.view

    def view(table):  # the table lent to the renderer: read there, while the box only stores
        viewed.append((journal.gate.is_set(), threading.current_thread().name))
        return real_view(table)
    monkeypatch.setattr(Table, "view", view)

    def render(view):
        during.append((journal.gate.is_set(), threading.current_thread().name))
        drawn.set()
        return real_render(view)
    monkeypatch.setattr(screen, "render", render)
    sent_before = display.sent
    journal.gate.clear()  # the commit of the next action hangs until the gate opens
    journal.entered.clear()
    done = threading.Thread(target=b.step, args=(TagArrived(3, "U%02d" % parse_card("JH")),), name="box")
    done.start()
    assert journal.entered.wait(HANG)  # the commit is under way on the box's thread ...
    assert drawn.wait(HANG)  # ... and the frame is drawn meanwhile, on the renderer's thread
    assert during == [(False, "render")], "the frame was not drawn while the commit was under way"
    assert viewed == [(False, "render")], "the view was not worked out while the commit was under way"
    assert display.sent == sent_before, "a frame was sent before its action was stored"
    journal.gate.set()
    done.join(HANG)
    assert display.sent == sent_before + 1
    assert stored_lines(journal) == ["flip JH"]


def test_a_frame_the_renderer_has_not_begun_is_drawn_by_the_box_itself():
    """A renderer thread slow to wake never holds the screen up: the box draws the frame."""
    threads, woken = [], threading.Event()
    r = Renderer(lambda view: threads.append(threading.current_thread()) or ("frame", view))
    work = r._work
    r._work = lambda: (woken.wait(HANG), work())  # a thread that has not woken yet
    try:
        r.start("view")
        assert r.result() == ("frame", "view")
        woken.set()  # the thread wakes and passes by the job the box drew
        assert threads == [threading.current_thread()]
        r.start("next")  # the thread is still there for the next frame
        assert r.result() == ("frame", "next")
    finally:
        r.close()
    assert r._thread is None


def test_a_failure_while_drawing_is_raised_on_the_box_thread():
    """The box's loop logs an internal error and goes on; the renderer's thread does not die."""
    taken = threading.Event()

    def draw(view):
        if view == "bad":
            taken.set()
            raise ValueError("a drawing bug")
        return view
    r = Renderer(draw)
    try:
        r.start("bad")
        assert taken.wait(HANG)  # drawn (and failed) on the renderer's thread, not taken back
        with pytest.raises(ValueError, match="a drawing bug"):
            r.result()
        assert r._thread.is_alive()
        r.start("good")
        assert r.result() == "good"
    finally:
        r.close()


def test_every_other_use_of_the_journal_stores_the_kept_actions_first(tmp_path):
    """The journal sees the actions in order; after a failed store the event's next append is refused."""
    from assistant.rules.scenario import parse_action as parse

    def parse_action(line, seats):
        return parse(line.split(), "towers", seats, 1)
    j = DeferredJournal(GatedJournal(str(tmp_path / "j.sqlite3")))
    try:
        j.new_match("towers", ("P1", "P2"), {})
        j.append(parse_action("flip JH", ("P1", "P2")))
        assert j.pending
        assert j.rows == 1 and not j.pending  # stored before the journal was asked
        assert j.settle() == (None, [parse_action("flip JH", ("P1", "P2"))])
        j.journal.fail = True
        j.append(parse_action("flip JS", ("P1", "P2")))
        assert j.rows == 1  # the store failed: not counted
        with pytest.raises(JournalError):
            j.append(parse_action("flip QH", ("P1", "P2")))
        error, stored = j.settle()
        assert "storage card is full" in str(error) and stored == []
        j.journal.fail = False
        j.append(parse_action("flip JS", ("P1", "P2")))  # the next event stores again
        assert j.settle()[0] is None and j.rows == 2
    finally:
        j.close()


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


def test_a_failed_commit_is_taken_back_even_when_the_drawing_failed_too(box, monkeypatch):
    """Both at once: the drawing's error reaches the box's loop (logged there), and the match is
    still as stored, with the journal's alert, not holding an action the journal never took."""
    import assistant.box.screen as screen
    b, journal, display = box
    b.step(TagArrived(3, "U%02d" % parse_card("JH")))

    def render(view):
        raise ValueError("a drawing bug")
    monkeypatch.setattr(screen, "render", render)
    journal.fail = True
    with pytest.raises(ValueError, match="a drawing bug"):
        b.step(TagArrived(3, "U%02d" % parse_card("JS")))
    assert [a.kind for a in b.table.match.actions] == ["flip"]  # not stored, so not accepted
    assert b.table.alert.kind == "refused" and "storage card is full" in b.table.alert.text
    assert stored_lines(journal) == ["flip JH"]


def test_the_box_waits_for_the_renderer_even_when_storing_raises(box, monkeypatch):
    """The table is lent to the render thread until its result is taken: a store that raises
    (nothing the journal can say: it catches every Exception) must not hand the table back early."""
    b, journal, display = box

    class Halt(BaseException):
        pass

    def settle(self):
        raise Halt()
    monkeypatch.setattr(DeferredJournal, "settle", settle)
    awaited, real = [], Renderer.result
    monkeypatch.setattr(Renderer, "result", lambda self: awaited.append(True) or real(self))
    with pytest.raises(Halt):
        b.step(TagArrived(3, "U%02d" % parse_card("JS")))
    assert awaited == [True] and b.renderer._claim is None  # the result taken: the table is back


def test_the_render_thread_never_uses_the_deferred_journal(box, monkeypatch):
    """The table is lent to the render thread while the box's thread stores: were the view to
    reach the DeferredJournal, both threads would store the kept actions at once."""
    b, journal, display = box
    threads = []
    real = DeferredJournal._store

    def store(self):
        threads.append(threading.current_thread().name)
        return real(self)
    monkeypatch.setattr(DeferredJournal, "_store", store)
    for card in ("JH", "JS"):
        b.step(TagArrived(3, "U%02d" % parse_card(card)))
    b.step(ButtonPressed("ok"))
    assert threads and "render" not in threads
    assert stored_lines(journal) == ["flip JH", "flip JS"]


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
    assert line.startswith("TagArrived: table ") and ", commit " in line and ", render " in line
    assert "to display" in line and "JH" not in line and "U" + "%02d" % parse_card("JH") not in line
    PartialSSD1306(capture_i2c())  # luma's init clears the screen: one whole frame
    assert any(r.getMessage().startswith("OLED: 1034 bytes on I2C in ") for r in caplog.records)


def test_a_failed_store_stores_nothing_after_it_in_the_same_event(tmp_path):
    """The log is the truth: an action kept after one that could not be stored is not stored
    either (it may depend on it), and no setting of that event is written."""
    from assistant.rules.scenario import parse_action

    class FailsOnce(GatedJournal):
        def append(self, action, seats=None, setting=None):
            if self.fail:
                self.fail = False
                raise JournalError("the storage card is full: this action was not saved")
            super().append(action, seats, setting)
    j = DeferredJournal(FailsOnce(str(tmp_path / "j.sqlite3")))
    try:
        j.new_match("towers", ("P1", "P2"), {})
        j.journal.fail = True
        j.append(parse_action(["flip", "JH"], "towers", ("P1", "P2"), 1))
        j.append(parse_action(["flip", "JS"], "towers", ("P1", "P2"), 1))
        with pytest.raises(JournalError):
            j.set_setting("deal_scan", "on")
        error, stored = j.settle()
        assert error is not None and stored == []
        assert j.rows == 0 and stored_lines(j.journal) == [] and j.setting("deal_scan") is None
    finally:
        j.close()


def test_a_scanned_hand_that_cannot_be_stored_keeps_its_cards(tmp_path):
    """Deal scan (issue 9): the hand line is stored before its taps are forgotten, so a full
    storage card costs the last tap only, on the screen and in the journal's scan line."""
    class HandFails(Journal):
        fail = False

        def append(self, action, seats=None, setting=None):
            if self.fail and action.kind == "hand":
                raise JournalError("the storage card is full: this action was not saved")
            super().append(action, seats, setting)
    journal = HandFails(str(tmp_path / "journal.sqlite3"))
    b = Box(Table(journal, DECK, pads=("P1", "P2", "centre"), deal_scan=True), open_display(DisplayCfg(driver="dummy")))
    try:
        b.step(ButtonPressed("ok"))
        for pad, card in ((3, "JH"), (3, "JS"), (2, "9S"), *((1, c) for c in ("AS", "KS", "QS", "AC", "KC", "QC"))):
            b.step(TagArrived(pad, "U%02d" % parse_card(card)))
        assert "P1 6/7" in b.view.prompt
        journal.fail = True
        b.step(TagArrived(1, "U%02d" % parse_card("AD")))  # P1's seventh: its hand line fails
        assert "P1 6/7" in b.view.prompt and "storage card is full" in b.view.alert.text
        assert [a.kind for a in b.table.match.actions] == ["flip", "flip"]
        assert journal.setting("scan").count("0:") == 6  # P1's six taps still in the journal
        journal.fail = False
        b.step(TagArrived(1, "U%02d" % parse_card("AD")))
        assert [a.kind for a in b.table.match.actions] == ["flip", "flip", "hand"]
    finally:
        b.renderer.close()
        b.display.close()
        b.table.journal.close()


def test_the_loop_collects_garbage_after_the_frame_not_inside_the_next_tap(box):
    """Issue 12 item 5: CPython collects its youngest generation inside whatever allocates the
    700th new object: a tap's rules or frame (0.1 ms here, 1 ms for the next generation, ten
    times that on a Pi). The loop makes that collection itself after an event's frame is sent."""
    b, journal, display = box
    made = []

    def seen(phase, info):
        if phase == "start":
            made.append((sys._getframe(1).f_code.co_name, display.sent))
    b._handle(TagArrived(1, "U%02d" % parse_card("9H")), queued=False)  # the first tap's imports and caches
    gc.collect()
    junk = [[] for _ in range(loop.GC_DUE)]  # the youngest generation past the loop's mark
    sent = display.sent
    gc.callbacks.append(seen)
    try:
        b._handle(TagArrived(3, "U%02d" % parse_card("JS")), queued=False)
    finally:
        gc.callbacks.remove(seen)
    assert display.sent == sent + 1
    assert ("collect_garbage", sent + 1) in made, made  # after the frame, by the loop
    assert gc.get_count()[0] < loop.GC_DUE
    del junk


@pytest.mark.parametrize("grown, generation", [(False, 1), (True, 2)])
def test_the_loop_collects_the_oldest_generation_under_cpythons_own_rule(monkeypatch, grown, generation):
    """Issue 12 item 5: the oldest generation holds every object (17 ms to collect here, ten times
    that on a Pi, while a tap would wait); CPython collects it only once a quarter more objects
    than after its last collection have reached it, and so does the loop."""
    gc.collect()
    for _ in range(gc.get_threshold()[2]):
        gc.collect(1)  # the oldest generation's count at its threshold
    for _ in range(gc.get_threshold()[1]):
        gc.collect(0)  # ... and the middle one's
    oldest = len(gc.get_objects(2))
    monkeypatch.setattr(loop, "_oldest", [oldest // 2 if grown else oldest])
    made = []

    def seen(phase, info):
        if phase == "start":
            made.append(info["generation"])
    junk = [[] for _ in range(loop.GC_DUE)]
    gc.callbacks.append(seen)
    try:
        loop.collect_garbage()
    finally:
        gc.callbacks.remove(seen)
    assert made == [generation]
    del junk


def test_a_new_match_over_one_in_play_is_logged_as_a_new_match_not_an_undo(box, caplog):
    """The log read by the table's owner (journalctl) said 'undo (0 actions in effect)' when a
    match was begun over one in play (the menu's New match, or the bots on a resumed box)."""
    b, journal, display = box
    b.step(TagArrived(3, "U%02d" % parse_card("JS")))  # an action of the match in play
    caplog.set_level("INFO", logger="card-assistant")
    caplog.clear()
    before = b.table.match
    b._after = before, list(before.actions)
    b.table.new_match("towers")
    b.show()
    said = [r.getMessage() for r in caplog.records]
    assert not any(s.startswith("undo") for s in said), said
    assert "new match: towers, P1 P2" in said
