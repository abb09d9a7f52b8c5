"""The simulator behaves like the real box (issue 9 item 3): the virtual firmware sends the real
firmware's heartbeat, so an idle simulated table never shows "card reader not answering", and
the bots' summary counts one kind of action in the per-match and the total lines."""
import inspect
import queue
import re
import time

from assistant.hw.events import ReaderStatus
from assistant.hw.reader import Reader
from assistant.sim.simulator import SimBox
from assistant.sim.bots import run_bots
from assistant.sim.virtual_firmware import HEARTBEAT_S, VirtualFirmware
from firmware_import import import_firmware

SILENCE = inspect.signature(Reader).parameters["silence"].default  # the box's loss timeout, seconds


def test_the_virtual_heartbeat_is_the_firmwares():
    """firmware/config.py's HEARTBEAT_MS, and the host's silence is several heartbeats long."""
    config, = import_firmware("config")
    assert HEARTBEAT_S == config.HEARTBEAT_MS / 1000
    assert SILENCE >= 3 * HEARTBEAT_S


def idle_statuses(tmp_path, heartbeat, silence, idle):
    """A reader left idle for ``idle`` seconds on a virtual firmware: the link statuses it posts."""
    tmp_path.mkdir()
    link = tmp_path / "card-reader"
    vf = VirtualFirmware(link, heartbeat=heartbeat).plug()
    q = queue.Queue()
    reader = Reader(str(link), q, silence=silence).start()
    try:
        assert vf.host_ready.wait(30)
        time.sleep(idle)  # the table is idle: nobody taps a card
    finally:
        reader.stop()
        vf.unplug()
    return [e for e in _drain(q) if isinstance(e, ReaderStatus)]


def _drain(q):
    while True:
        try:
            yield q.get_nowait()
        except queue.Empty:
            return


LOST = ReaderStatus(False, "card reader not answering")


def test_an_idle_reader_on_the_virtual_firmware_is_never_called_lost(tmp_path):
    """Issue 9 item 3, at a fifth of the real timings (heartbeat 0.2 s, silence 1 s): idle for
    two silences, no loss is reported. Without the heartbeat the same wait does report it."""
    scale = 0.2
    statuses = idle_statuses(tmp_path / "beat", HEARTBEAT_S * scale, SILENCE * scale, 2 * SILENCE * scale)
    assert LOST not in statuses and ReaderStatus(True, "card reader connected") in statuses
    assert LOST in idle_statuses(tmp_path / "mute", None, SILENCE * scale, 2 * SILENCE * scale)


def test_an_idle_simulated_table_shows_no_reader_alert(tmp_path):
    """Issue 9 item 3 at the real timings: the sim box, idle a second longer than the reader's
    loss timeout, shows no alert and its screen names no reader problem."""
    sim = SimBox(tmp_path / "idle").start()
    try:
        time.sleep(SILENCE + 1.0)
        sim.box.events.join()
        assert sim.table.alert is None, sim.table.alert
        assert sim.box.view.alert is None
    finally:
        sim.stop()


def test_the_bots_summary_counts_one_kind_of_action(tmp_path):
    """Issue 9 item 3: the total line's actions are the sum of the per-match lines' actions,
    which are the lines of each match's record."""
    sim = SimBox(tmp_path / "bots").start()
    lines = []
    try:
        assert run_bots(sim, "towers", 2, 3, 0.0, out=lines.append) == 0
        last = len(sim.table.match.actions)
    finally:
        sim.stop()
    per_match = [int(re.search(r"(\d+) actions recorded", x).group(1)) for x in lines[:-1]]
    total = int(re.search(r"(\d+) actions recorded", lines[-1]).group(1))
    assert len(per_match) == 2 and per_match[-1] == last
    assert total == sum(per_match)
