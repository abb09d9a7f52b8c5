"""`card-assistant export` (issue 10, item 4): the journal's matches as scenario files, read-only,
while the box runs. The real command as a subprocess; the journal's bytes (its file and its
-wal) are compared before and after every export."""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

from assistant.replay import replay_lines
from journal_faults import fill

ROOT = Path(__file__).resolve().parents[1]
HANG = 30.0


def digest(path):
    """The journal's bytes: its file and its write-ahead log. (The -shm beside them is SQLite's
    shared-memory lock table, where every reader, read-only ones too, marks what it reads.)"""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.parent.iterdir())
            if p.name in (path.name, path.name + "-wal")}


def export(*args):
    return subprocess.run([sys.executable, "-m", "assistant.cli", "export", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=HANG, stdin=subprocess.DEVNULL)


def test_export_while_the_box_writes_changes_no_byte_and_replays_the_match(tmp_path):
    path = tmp_path / "journal.sqlite3"
    stored, box = fill(path, (("towers-random.scn", 60), ("twenty-nine-random.scn", 40)), close=False)
    try:  # the box's connection stays open: its last actions are in the -wal, not yet in the file
        assert Path(str(path) + "-wal").exists()
        want = box.resume().match
        before = digest(path)
        out = tmp_path / "latest.scn"
        proc = export("--state-dir", tmp_path, out)
        assert proc.returncode == 0, proc.stderr
        assert digest(path) == before
        got = replay_lines(out.read_text().splitlines())
        assert (got.game, got.options, got.actions) == (want.game, want.options, want.actions)
        assert got.engine.snapshot() == want.engine.snapshot()
        assert "hidden cards" in out.read_text().splitlines()[1]
        assert os.stat(out).st_mode & 0o077 == 0  # it holds the hidden cards: private
        proc = export("--state-dir", tmp_path, "--match", 1, "-")
        assert proc.returncode == 0 and replay_lines(proc.stdout.splitlines()).game == "towers"
        assert digest(path) == before
    finally:
        box.close()


def test_export_all_writes_one_scenario_per_match(tmp_path):
    path = tmp_path / "state" / "journal.sqlite3"
    path.parent.mkdir()
    fill(path, (("towers-random.scn", 10), ("towers-random.scn", 20), ("twenty-nine-random.scn", 5)))
    before = digest(path)
    proc = export("--all", "--state-dir", path.parent, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    files = sorted((tmp_path / "out").iterdir())
    assert [f.name for f in files] == ["match-1.scn", "match-2.scn", "match-3.scn"]
    assert [len(replay_lines(f.read_text().splitlines()).actions) for f in files][1] > 0
    assert digest(path) == before
    assert not Path(str(path) + "-shm").exists()  # nobody was writing: not even a -shm was made


def test_export_problems_are_one_line(tmp_path):
    proc = export("--state-dir", tmp_path / "nothing", tmp_path / "x.scn")  # no such folder: said so
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and "does not exist" in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = export("--state-dir", tmp_path / "empty", tmp_path / "x.scn")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and "no journal" in proc.stderr
    fill(tmp_path / "journal.sqlite3", (("towers-random.scn", 3),))
    proc = export("--state-dir", tmp_path, "--match", 7, tmp_path / "x.scn")
    assert proc.returncode == 1 and proc.stderr.strip().endswith("no match 7 (matches: 1 to 1)")
    proc = export("--state-dir", tmp_path, tmp_path / "no-folder" / "x.scn")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1 and "cannot write" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_earlier_match_with_a_line_that_cannot_be_read_is_not_cut_silently(tmp_path):
    """Fault (rows changed with the sqlite3 shell): row 5 of match 1 made a line no towers match
    has ('bid P1 16'). The box sets aside such a tail only in the match it resumes, so `export
    --all` wrote match 1 cut after row 4 without a word, a bug report missing 25 actions. Now the
    file ends with a comment saying how many were left out and why, and export says it too."""
    import sqlite3
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 30), ("towers-random.scn", 10)))
    db = sqlite3.connect(path)
    db.execute("UPDATE actions SET line='bid P1 16' WHERE match=1 AND seq=5")
    db.commit()
    db.close()
    proc = export("--all", "--state-dir", tmp_path, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    said = proc.stderr.splitlines()
    assert said[0] == ("card-assistant export: match 1: its last 26 action(s) in the journal cannot be read "
                       "(unreadable line) and are left out"), said
    text = (tmp_path / "out" / "match-1.scn").read_text().splitlines()
    assert text[-1] == "# its last 26 action(s) in the journal cannot be read (unreadable line) and are left out"
    assert len([ln for ln in text if not ln.startswith(("#", "game", "seats"))]) == 4
    assert replay_lines(text).actions  # still a scenario that replays


def test_export_onto_a_named_pipe_nothing_reads_is_one_line_not_a_hang(tmp_path):
    """`export` opened a pipe the usual way and waited for a reader for ever (replay --export had
    the fault fixed on its own; the two exports now share one writer, textfile.write_out)."""
    fill(tmp_path / "journal.sqlite3", (("towers-random.scn", 3),))
    pipe = tmp_path / "out.scn"
    os.mkfifo(pipe)
    proc = export("--state-dir", tmp_path, pipe)
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert "named pipe that nothing reads from" in proc.stderr


def test_replay_export_is_private_and_replaces_a_file_whole(tmp_path):
    """replay --export wrote over the file in place, readable by all, though it holds the deal: a
    kill or a full disk mid-write left half a scenario, and other users of the machine could read
    the hands. It is written as `export` writes: a new private file renamed over the old one."""
    out = tmp_path / "out.scn"
    out.write_text("an older export\n")
    os.chmod(out, 0o644)
    before = os.stat(out).st_ino
    proc = subprocess.run([sys.executable, "-m", "assistant.cli", "replay", ROOT / "tests" / "scenarios"
                           / "examples" / "towers-random.scn", "--export", out], cwd=ROOT,
                          capture_output=True, text=True, timeout=HANG)
    assert proc.returncode == 0, proc.stderr
    assert os.stat(out).st_ino != before  # renamed over: never half written
    assert os.stat(out).st_mode & 0o077 == 0
    assert replay_lines(out.read_text().splitlines()).game == "towers"


def test_an_export_onto_a_socket_says_it_is_a_socket_not_a_named_pipe(tmp_path):
    """Fault (review of the one writer, textfile.write_out): a listening Unix socket under the
    export's name was refused as "it is a named pipe that nothing reads from" (opening a socket
    fails as a reader-less pipe does, ENXIO), sending its owner to look for a pipe that is not
    there; both exports share the writer, so both said it."""
    import socket
    fill(tmp_path / "journal.sqlite3", (("towers-random.scn", 3),))
    path = tmp_path / "out.scn"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        sock.listen()
        proc = export("--state-dir", tmp_path, path)
        again = subprocess.run([sys.executable, "-m", "assistant.cli", "replay", ROOT / "tests" / "scenarios"
                                / "examples" / "towers-random.scn", "--export", path], cwd=ROOT,
                               capture_output=True, text=True, timeout=HANG)
    for p in (proc, again):
        assert p.returncode != 0 and len(p.stderr.splitlines()) == 1, p.stderr
        assert "is a socket, not a file" in p.stderr and "named pipe" not in p.stderr, p.stderr


def test_replay_export_to_standard_output_by_name_then_its_json_follow_each_other(tmp_path):
    """Fault (review of the one writer, textfile.write_out): `replay FILE --export /dev/stdout
    --json > f` opened /dev/stdout anew (a file position of its own) and wrote the scenario there;
    the JSON, printed through the process's own standard output still at position 0, then wrote
    over the scenario's first bytes: f held the JSON and the tail of a scenario cut at random. As
    the shell's `>` does, the scenario and then the JSON follow each other through one descriptor."""
    scenario = ROOT / "tests" / "scenarios" / "examples" / "towers-random.scn"
    out = tmp_path / "f"
    alone = [subprocess.run([sys.executable, "-m", "assistant.cli", "replay", scenario, *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=HANG) for args in (("--export", "-"), ("--json",))]
    with open(out, "w") as f:
        got = subprocess.run([sys.executable, "-m", "assistant.cli", "replay", scenario, "--export", "/dev/stdout",
                              "--json"], cwd=ROOT, stdout=f, stderr=subprocess.PIPE, text=True, timeout=HANG)
    assert got.returncode == 0 and all(p.returncode == 0 for p in alone), got.stderr
    assert out.read_text() == alone[0].stdout + alone[1].stdout


def test_an_export_to_standard_input_by_name_never_writes_into_the_file_read(tmp_path):
    """Fault (as above: the name opened anew): `replay FILE --export /dev/stdin < notes.txt` opened
    notes.txt again, for writing, and added the whole deal to the end of the file it only read. A
    descriptor open for reading is not written through: one line, the file as it was."""
    notes = tmp_path / "notes.txt"
    notes.write_text("kept as it was\n")
    with open(notes) as f:
        got = subprocess.run([sys.executable, "-m", "assistant.cli", "replay", ROOT / "tests" / "scenarios"
                              / "examples" / "towers-random.scn", "--export", "/dev/stdin"], cwd=ROOT, stdin=f,
                             capture_output=True, text=True, timeout=HANG)
    assert got.returncode == 2 and len(got.stderr.splitlines()) == 1, got.stderr
    assert notes.read_text() == "kept as it was\n"
