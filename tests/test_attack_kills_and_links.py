"""Faults a fourth attack on the box's storage found: one journal under two state folders (a
hard link), and processes killed mid-write. Real processes, real files, real locks; each test
names the fault and what the box did before."""
import os

from test_state_lock import cli, second_boxes, start_box


def test_a_second_box_on_a_hard_link_of_a_running_boxs_journal_is_refused_in_one_line(tmp_path):
    """Fault (two state folders, one journal inode: `ln A/journal.sqlite3 B/`, or a copy made with
    `cp -al`): each folder has its own box.lock, so a box on B started beside the box on A, and
    both wrote into one match, each through its own -wal (B/journal.sqlite3-wal beside the same
    file). Now the journal's file is locked too: the box on B refuses in one line and changes
    nothing, whether it is `run` or `sim`; once A is stopped, B starts on it."""
    a, b = tmp_path / "a", tmp_path / "b"
    first = start_box(tmp_path, a)  # a fresh folder: its journal made during this run
    try:
        b.mkdir(mode=0o700)
        os.link(a / "journal.sqlite3", b / "journal.sqlite3")
        for line in second_boxes(tmp_path, b):
            assert f"{b / 'journal.sqlite3'} is the journal of another card-assistant running now, in another " \
                "folder (one file under two names: a hard link): quit that one first" in line, line
        assert sorted(p.name for p in b.iterdir()) == ["box.lock", "journal.sqlite3"]
    finally:
        first.terminate()
        first.wait(30)
    got = cli("sim", "--bots", "--matches", "1", "--state-dir", str(b))
    assert got.returncode == 0 and "Traceback" not in got.stderr, got.stderr
