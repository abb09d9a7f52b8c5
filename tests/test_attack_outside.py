"""Faults a third attack from outside found (the command line as a hostile user calls it: closed
or full standard streams, names that lead to a file descriptor; the reader's firmware fed a
chip and a host that lie; the web pages and the club board from raw sockets), each one the earlier
attacks (test_attack_io.py, test_attack_faults.py) did not reach. The real commands as
subprocesses; each test names the fault and what it did before."""
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from journal_faults import fill

ROOT = Path(__file__).resolve().parents[1]
HANG = 60.0


def card_assistant(*args, **kw):
    """``card-assistant ARGS`` to its end, run from this checkout, standard input closed unless
    ``stdin`` says otherwise; ``kw`` go to subprocess.run."""
    kw.setdefault("stdin", subprocess.DEVNULL)
    kw.setdefault("cwd", ROOT)
    if "stdout" not in kw and "stderr" not in kw:
        kw["capture_output"] = True
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("CARD_ASSISTANT_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "assistant.cli", *map(str, args)],
                          text=True, timeout=HANG, env=env, **kw)


def test_export_to_a_name_of_standard_output_writes_through_it_and_leaves_the_link(tmp_path):
    """Fault: `card-assistant export /dev/stdout > file` (or `/dev/fd/1`) took the name for a file,
    wrote beside it and renamed over it: run as root, the link /dev/stdout itself became a file
    holding the match (every program's /dev/stdout on the machine then wrote into it), and the
    command's own output was empty; written through as a file to be emptied, `>> log` lost what
    the log held. Here a link of the test's own to /proc/self/fd/1 stands in
    for /dev/stdout, so broken code replaces only that."""
    fill(tmp_path / "journal.sqlite3")
    out = tmp_path / "stdout"
    out.symlink_to("/proc/self/fd/1")
    with open(tmp_path / "file", "w") as file:  # `> file`: a pipe there was written through
        proc = card_assistant("export", "--state-dir", tmp_path, out, stdout=file, stderr=subprocess.PIPE)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    written = (tmp_path / "file").read_text()
    assert written.startswith("# match 1 of the box's journal"), written[:200]
    with open(tmp_path / "file", "a") as file:  # `>> file`: what it held stays
        proc = card_assistant("export", "--state-dir", tmp_path, out, stdout=file, stderr=subprocess.PIPE)
    assert proc.returncode == 0 and (tmp_path / "file").read_text() == written * 2
    assert out.is_symlink() and os.readlink(out) == "/proc/self/fd/1"


def test_export_to_a_link_planted_in_a_shared_folder_never_writes_where_it_leads(tmp_path):
    """Guard (the fix above, first written to follow any link to the file it leads to): `sudo
    card-assistant export /tmp/m.scn`, where another user had put a link /tmp/m.scn -> a file of
    root's, would have written over that file, the rename going past the kernel's
    protected_symlinks. A link that is no descriptor's name is replaced, never followed."""
    fill(tmp_path / "journal.sqlite3")
    target = tmp_path / "roots-own"
    target.write_text("kept\n")
    link = tmp_path / "m.scn"
    link.symlink_to(target)
    proc = card_assistant("export", "--state-dir", tmp_path, link)
    assert proc.returncode == 0, proc.stderr
    assert target.read_text() == "kept\n" and not link.is_symlink()
    assert link.read_text().startswith("# match 1 of the box's journal")


def closed_reader():
    """The writing end of a pipe whose reader has already gone (`| head -c1` once head is done):
    the first write gets EPIPE, whatever the timing."""
    r, w = os.pipe()
    os.close(r)
    return w


def test_players_list_into_a_pipe_whose_reader_left_says_nothing(tmp_path):
    """Fault: `card-assistant players list | head -c1` said "card-assistant players: [Errno 32]
    Broken pipe" and ended with status 1: the list's own catch of any OSError (meant for the deck)
    took the closed pipe for a fault of the box. Now it is silent, status 141, as for every other
    command."""
    (tmp_path / "players.txt").write_text("04A1B2C3D4E5F6 Ann\n04A1B2C3D4E5F7 Bob\n")
    w = closed_reader()
    try:
        proc = card_assistant("players", "list", "--state-dir", tmp_path, stdout=w, stderr=subprocess.PIPE)
    finally:
        os.close(w)
    assert (proc.returncode, proc.stderr) == (141, "")


def closed(stream, *args, **environ):
    """``card-assistant ARGS`` started with standard input (0) or output (1) closed, as a shell's
    ``<&-`` or ``>&-`` does, ``environ`` added to its environment; (status, standard error)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **environ)
    env.pop("CARD_ASSISTANT_DEBUG", None)
    proc = subprocess.run(["sh", "-c", f'exec "$@" {stream}>&-', "sh", sys.executable, "-m", "assistant.cli",
                           *map(str, args)], cwd=ROOT, text=True, timeout=HANG, env=env,
                          stderr=subprocess.PIPE, **({"stdin": subprocess.DEVNULL} if stream == 1 else {}))
    return proc.returncode, proc.stderr


def test_the_sim_at_a_closed_keyboard_says_so_in_one_line(tmp_path):
    """Fault: `card-assistant sim <&-` (standard input closed: a job started from a script) ended in
    "internal error (AttributeError) ... report it", then, past that, input() could not read at
    all: now one line saying there is no keyboard, before any folder is made."""
    status, err = closed(0, "sim", "--state-dir", tmp_path)
    assert status == 2 and err.splitlines() == [
        "card-assistant sim: standard input is closed: there is no keyboard to play at (--bots plays without one)"]
    assert list(tmp_path.iterdir()) == []


def test_the_bots_with_standard_output_closed_say_it_in_one_line(tmp_path):
    """Fault: `card-assistant sim --bots >&-` ended in "internal error (AttributeError)": the
    terminal's width (to break the line saying where the new temporary folder is) was asked of a
    standard output that is not there. Now it is the line every command says when standard output
    cannot be written."""
    status, err = closed(1, "sim", "--bots", "--matches", "1", TMPDIR=str(tmp_path))
    assert status == 74 and err.splitlines() == [
        "card-assistant sim: standard output cannot be written (it is closed)"], err


def test_a_refused_argument_with_standard_output_closed_is_one_line(tmp_path):
    """Fault: `card-assistant export >&-` (no OUT) said its refusal, then "standard output cannot be
    written (it is closed)" under it and status 74: the closing flush of an output nothing was
    written to was taken for a failed write. Now the refusal alone, status 2."""
    status, err = closed(1, "export", "--state-dir", tmp_path)
    assert status == 2 and len(err.splitlines()) == 1 and "required: OUT" in err, err


@pytest.mark.parametrize("folder", ["club #1", "what?", "100%25"])
def test_a_board_file_whose_path_holds_a_uri_character_serves_every_page(tmp_path, folder):
    """Fault (attack on the board's command line: `--db "club #1/board.sqlite3"`): the pages that
    read the board's file on a connection of their own (Players, Nights) put its path in SQLite's
    URI unquoted, so a '#' cut the path short, a '?' began the URI's options, a '%' was read as an
    escape: "unable to open database file" or "no such table", each such page a 500 for
    everyone (and "what?" made an empty file named "what"). The same path the board writes is the
    one its pages read."""
    from assistant.club.board import Board
    from assistant.club.page import serve
    (tmp_path / folder).mkdir()
    board = Board(str(tmp_path / folder / "board.sqlite3"), "c")
    board.receive("club/c/t1/events", json.dumps({
        "v": 1, "id": ["t1", 1, 0], "kind": "start", "game": "towers", "seats": ["Ann", "Bob"], "options": {},
        "journal": "ab12ab12ab12ab12"}).encode())
    server = serve(board, "127.0.0.1", 0)
    try:
        for page in ("/players", "/nights", "/"):
            url = f"http://127.0.0.1:{server.server_address[1]}{page}"
            try:
                with urllib.request.urlopen(url, timeout=HANG) as answer:
                    assert answer.status == 200
            except urllib.error.HTTPError as e:
                pytest.fail(f"{page}: {e.code} {e.read()[:80]!r}")
    finally:
        server.shutdown()
        board.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder]


@pytest.mark.parametrize("db", ["", ":memory:"])
def test_a_board_file_named_empty_or_memory_is_refused_before_the_board_starts(tmp_path, db):
    """Fault (attack on the board's command line: `--db "$DB"` with DB unset, or `--db :memory:`):
    SQLite takes both for a database on no disk, so the board started, served its page and took
    the club's events, each lost for good when it stopped. Now one line, status 2, before
    anything starts."""
    proc = card_assistant("board", "--broker", "mqtt://board:x@127.0.0.1:1", "--db", db, "--port", "0",
                          "--club", "c", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert f"--db {db!r} names no file" in proc.stderr and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("what", ["file", "device"])
def test_a_web_runtime_folder_that_is_no_folder_is_one_line_at_start(tmp_path, what):
    """Fault (attack on the web page's command line: `--runtime-dir /dev/null`, or a file): taken
    as it was, the page served, and Now said the box was not running (its screen file never found)
    of a box playing at that moment, with no word of why. Now one line, status 2, at start; a
    folder not made yet is still fine (the box makes it as it starts)."""
    target = "/dev/null" if what == "device" else tmp_path / "screen"
    if what == "file":
        target.write_text("")
    proc = card_assistant("web", "--state-dir", tmp_path, "--port", "0", "--runtime-dir", target)
    kind = "a device (a character device)" if what == "device" else "a file"
    assert proc.returncode == 2 and proc.stderr.splitlines() == [
        f"card-assistant web: --runtime-dir {target} is {kind}, not a folder (it names the folder the box "
        f"writes its screen in)"], proc.stderr


def test_a_players_file_planted_as_a_link_into_another_process_writes_nothing_there(tmp_path):
    """Guard (the fix above, first written to write through any descriptor's name): the box's user
    could make players.txt a link to /proc/PID/fd/N of a root process holding a file of root's
    open, and `sudo card-assistant players rename` would have appended its list to that file.
    A state file is never written through such a link: one line, nothing written anywhere."""
    victim = tmp_path / "roots-own"
    victim.write_text("04A1B2C3D4E5F6 Ann\n")
    with open(victim) as held:
        holder = subprocess.Popen(["sleep", "60"], stdin=held)  # another process, the file on its fd 0
    try:
        state = tmp_path / "state"
        state.mkdir()
        (state / "players.txt").symlink_to(f"/proc/{holder.pid}/fd/0")
        proc = card_assistant("players", "--state-dir", state, "rename", "Ann", "Bea")
    finally:
        holder.kill()
        holder.wait()
    assert victim.read_text() == "04A1B2C3D4E5F6 Ann\n"
    assert proc.returncode != 0 and len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr
