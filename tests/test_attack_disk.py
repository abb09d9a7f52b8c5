"""Faults the attack on the box's storage and processes found (folders replaced or removed under a
running box, journals of two boxes in one folder, ...): real files, real processes. Each test
names the fault and what the box did before."""
import os
import shutil
import stat

from assistant.box.screen_file import ScreenFile, runtime_dir
from assistant.box.view import View


def test_a_state_folder_removed_under_the_box_is_not_made_again_open_to_all(tmp_path):
    """Fault (the state folder removed, or moved away, while the box ran; and a box stopped just
    as its folder was removed): the next frame's screen file made the state folder again with
    os.makedirs, 0755 whatever the box's own rule (0700: the journal written back into it holds
    the hidden cards). The screen file makes only its own folder; the journal makes the state
    folder, private."""
    old = os.umask(0o022)
    try:
        state = tmp_path / "state"
        state.mkdir(mode=0o700)
        screen = ScreenFile(runtime_dir(str(state), env={}))
        shutil.rmtree(state)
        screen.write(View(game="towers", seats=("P1", "P2"), phase="play", score=(0, 0)), None, 0)
    finally:
        os.umask(old)
    assert not state.exists() or stat.S_IMODE(state.stat().st_mode) == 0o700


def test_a_pipe_left_where_players_txt_was_written_never_holds_players_for_ever(tmp_path):
    """Fault (a pipe, or a folder, under players.txt.tmp, the fixed name the list was written
    through): `players rename` waited for ever for a reader of the pipe (a folder: refused). The
    new list is written through a name of its own each time, keeping the file's mode."""
    import subprocess
    import sys
    from pathlib import Path
    (tmp_path / "players.txt").write_text("04A1B2C3D4E5F6 Ann\n")
    os.chmod(tmp_path / "players.txt", 0o640)
    os.mkfifo(tmp_path / "players.txt.tmp")
    got = subprocess.run([sys.executable, "-m", "assistant.cli", "players", "--state-dir", str(tmp_path),
                          "rename", "Ann", "Bea"], cwd=Path(__file__).resolve().parents[1],
                         capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert got.returncode == 0, got.stderr
    assert "04A1B2C3D4E5F6 Bea" in (tmp_path / "players.txt").read_text()
    assert stat.S_IMODE((tmp_path / "players.txt").stat().st_mode) == 0o640
    # no file of its own left behind (players.txt.previous: the list before, test_attack_disk4)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["players.txt", "players.txt.previous", "players.txt.tmp"]


def test_a_journal_copied_in_from_another_box_is_no_loss_of_the_storage(tmp_path, caplog):
    """Fault (two boxes' journals in one folder: box B's journal.sqlite3 copied over box A's, A's
    count record left beside it): the box said "the storage lost the latest match (358 action(s)
    saved) and 417 saved action(s) of earlier matches", on the screen, a loss no storage made.
    The record says whose it is (its journal's first match's start): another journal's record is
    one log line and written anew; a loss of this journal's own actions is still said."""
    from journal_faults import fill
    from assistant.box.journal import Journal
    from assistant.box.journal_files import CountRecord
    a, b = tmp_path / "a", tmp_path / "b"
    fill(a / "journal.sqlite3", (("towers-random.scn", 40), ("twenty-nine-random.scn", 30)))
    fill(b / "journal.sqlite3", (("towers-random.scn", 20),))
    shutil.copy(b / "journal.sqlite3", a / "journal.sqlite3")
    with caplog.at_level("WARNING"):
        j = Journal(str(a / "journal.sqlite3"))
    j.close()
    assert j.problems == [] and j.summary is None
    assert "is of another journal" in caplog.text
    assert CountRecord(str(a / "journal.sqlite3.count")).read() == (1, 20, 20)
    shutil.copy(b / "journal.sqlite3", tmp_path / "b-before")  # B's own journal, then one more match
    fill(b / "journal.sqlite3", (("towers-random.scn", 5),))
    shutil.copy(tmp_path / "b-before", b / "journal.sqlite3")  # B's storage loses its latest match
    j = Journal(str(b / "journal.sqlite3"))
    j.close()
    assert j.problems == ["the storage lost the latest match (5 action(s) saved); the box goes on from match 1"]


def test_an_export_killed_mid_write_leaves_no_half_match_under_its_name(tmp_path):
    """Fault (export killed while it wrote, here by the kernel's file size limit, SIGXFSZ; a
    SIGKILL or a full card does the same): half a scenario was left as match-1.scn, a file that
    reads as a shorter match. Each file is written under a name of its own, then renamed."""
    import resource
    import subprocess
    import sys
    from pathlib import Path
    from journal_faults import fill
    fill(tmp_path / "state" / "journal.sqlite3", (("towers-random.scn", None),))
    out = tmp_path / "out"

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
    got = subprocess.run([sys.executable, "-m", "assistant.cli", "export", "--all", "--state-dir",
                          str(tmp_path / "state"), str(out)], cwd=Path(__file__).resolve().parents[1],
                         capture_output=True, text=True, timeout=30, preexec_fn=small_files)
    assert got.returncode != 0
    assert not (out / "match-1.scn").exists()


def test_bots_on_a_card_that_refuses_a_new_match_stop_in_one_line(tmp_path):
    """Fault (a full card under `sim --bots`, killed and started again: a Twenty-Nine match left in
    play and no room for a new one): the box refused the new match, the bots went on with the old
    match they never dealt, and the sim ended in "internal error (TypeError)". Now the bots take
    up the match in play (they finish one left in play) and stop in one line at the first action
    the box cannot store, saying why (here a read-only card)."""
    import subprocess
    import sys
    from pathlib import Path
    from journal_faults import fill
    from readonly import run_read_only
    state = tmp_path / "state"
    fill(state / "journal.sqlite3", (("twenty-nine-random.scn", 40),))  # in the play phase
    from assistant.box.deck import save_deck
    from assistant.sim import simbox
    save_deck({simbox.sim_uid(c): c for c in sorted(simbox.TWENTY_NINE_PACK)}, state / "deck.txt")
    got = run_read_only(state, [sys.executable, "-m", "assistant.cli", "sim", "--bots", "--matches", "1",
                                "--game", "twenty-nine", "--state-dir", str(state)],
                        cwd=Path(__file__).resolve().parents[1], timeout=60, stdin=subprocess.DEVNULL)
    assert got.returncode == 1, got.stderr
    last = got.stderr.strip().splitlines()[-1]
    assert last.startswith("card-assistant sim: the bots stopped: the box did not take ") and \
        "(the storage card is mounted read-only" in last, got.stderr


def test_a_state_folder_that_is_a_link_in_a_loop_is_called_one(tmp_path):
    """Fault (the state folder a link round in a loop, or to nothing): the box said "it is a file,
    not a folder" and export "cannot be reached (Too many levels of symbolic links): run this as
    the box's user, or with sudo", sending people to look for a file, or to sudo."""
    import pytest
    from assistant.box.journal import Journal, JournalUnavailable
    from assistant.cli import state_dir_problem
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert state_dir_problem(str(tmp_path / "a")).startswith(f"{tmp_path / 'a'} is a link that leads round in a loop")
    with pytest.raises(JournalUnavailable, match="a link that leads to no folder"):
        Journal(str(tmp_path / "a" / "journal.sqlite3"))


def test_another_boxs_wal_beside_the_journal_is_not_read_by_export_or_the_page(tmp_path):
    """Fault (two boxes' files in one folder: box B's journal.sqlite3-wal copied beside box A's
    journal): the box sets such a -wal aside at start, but export and the web page read through
    it and showed B's Twenty-Nine match as A's match 1 ("1 match(es) written", B's cards under A's
    header). Now they say the journal needs the box's repair and read nothing."""
    import pytest
    from journal_faults import fill
    from assistant.box.journal import Journal, JournalNeedsRepair
    fill(tmp_path / "a" / "journal.sqlite3", (("towers-random.scn", 30),))
    _, b = fill(tmp_path / "b" / "journal.sqlite3", (("twenty-nine-random.scn", 30),), close=False)
    shutil.copy(tmp_path / "b" / "journal.sqlite3-wal", tmp_path / "a" / "journal.sqlite3-wal")
    b.close()
    with pytest.raises(JournalNeedsRepair, match="its -wal is another journal's"):
        Journal(str(tmp_path / "a" / "journal.sqlite3"), readonly=True)


def _journal_with_a_wal_of_no_journal(folder):
    """A journal holding one match, and beside it the -wal of an SQLite file that is no journal
    (its schema has no matches table), copied in."""
    import sqlite3
    from assistant.box.journal import Journal
    j = Journal(str(folder / "journal.sqlite3"))
    j.new_match("towers", ("P1", "P2"), {})
    j.close()
    other = sqlite3.connect(str(folder.parent / "other.db"), isolation_level=None)
    other.execute("PRAGMA journal_mode=WAL")
    other.execute("PRAGMA wal_autocheckpoint=0")
    other.execute("CREATE TABLE x (a)")
    other.execute("INSERT INTO x VALUES (1)")
    shutil.copy(folder.parent / "other.db-wal", folder / "journal.sqlite3-wal")
    other.close()


def test_a_wal_of_no_journal_beside_the_journal_is_one_line_for_export_not_an_internal_error(tmp_path):
    """Fault (review of the foreign -wal check, 49f5f80): a -wal copied in from an SQLite file
    that is no journal (no matches table) made export end in "internal error (OperationalError)",
    status 70: the check asked the journal read through the -wal for its matches and did not
    expect the table to be gone. Its -wal is not this journal's: one line, nothing read."""
    import subprocess
    import sys
    from test_sim_newcomer import ROOT, environ
    (tmp_path / "s").mkdir()
    _journal_with_a_wal_of_no_journal(tmp_path / "s")
    got = subprocess.run([sys.executable, "-m", "assistant.cli", "export", "--state-dir", str(tmp_path / "s"), "-"],
                         capture_output=True, text=True, cwd=ROOT, env=environ(), timeout=60)
    assert got.returncode == 1 and got.stdout == "", got.stderr
    assert "its -wal is another journal's" in got.stderr and "internal error" not in got.stderr, got.stderr


def test_a_wal_of_no_journal_beside_the_journal_never_takes_its_matches_at_start(tmp_path):
    """Fault (S-rulings' journal rule, nothing accepted is lost; found in review): a -wal copied
    in from an SQLite file that is no journal was taken for a journal's unfinished first start
    (no matches table read through it), so the box opened it for writing: SQLite laid the other
    file's pages over the journal and folded them in, and every match was gone ("the storage lost
    the latest match"), with no copy kept. It is now set aside as another journal's -wal, and the
    journal is recovered from the file alone."""
    from assistant.box.journal import Journal
    (tmp_path / "s").mkdir()
    _journal_with_a_wal_of_no_journal(tmp_path / "s")
    j = Journal(str(tmp_path / "s" / "journal.sqlite3"))
    try:
        assert [r[1] for r in j.db.execute("SELECT id, game FROM matches")] == ["towers"]
        assert any("another journal's" in p for p in j.problems), j.problems
    finally:
        j.close()
    assert [p.name for p in (tmp_path / "s").iterdir() if p.name.endswith("-wal") and ".damaged-" in p.name]


def test_sim_on_a_state_folder_that_is_a_link_in_a_loop_or_to_nothing_says_what_it_is(tmp_path):
    """Fault (found in review, beside the loop link above): `sim --state-dir` naming a link round
    in a loop, or to nothing, said "cannot make the folder ...: File exists", which sent people
    looking for a folder that was never there. Now it says what the path is."""
    import contextlib
    import io
    from assistant.sim.simulator import main
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "c").symlink_to(tmp_path / "nothing")
    for path in ("a", "c"):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main(["--bots", "--state-dir", str(tmp_path / path)]) == 1
        assert err.getvalue() == (f"card-assistant sim: {tmp_path / path}: the state folder is not a folder "
                                  "(a link that leads to no folder)\n")  # the journal's words (one private_dir)
