"""One box per state folder (assistant/box/statelock.py). Fault: `card-assistant run` took no lock,
so a box started by hand beside the service (or a `sim` on the service's folder) ran a second box
on the same journal: each refused the other's actions as a database error, and the second one's
start-up repair could set aside the files the first was writing. Real processes, real locks."""
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from readonly import run_read_only

ROOT = Path(__file__).resolve().parents[1]
HANG = 30.0  # a guard against a hang, never a measurement
ENV = dict(os.environ, GPIOZERO_PIN_FACTORY="mock")


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=HANG, stdin=subprocess.DEVNULL, **kw)


def second_boxes(tmp_path, state):
    """`run` and `sim --bots` started on ``state`` beside a running box: each one's one line on
    standard error (each must fail with exactly one, no traceback)."""
    said = []
    for args in (("run", "--config", str(tmp_path / "config.toml")), ("sim", "--bots", "--matches", "1")):
        got = cli(*args, "--state-dir", str(state))
        lines = got.stderr.strip().splitlines()
        assert got.returncode == 1 and len(lines) == 1 and "Traceback" not in got.stderr, got.stderr
        said.append(lines[0])
    return said


def start_box(tmp_path, state):
    """The real daemon on ``state``, up (READY=1 sent): the process."""
    config = tmp_path / "config.toml"
    config.write_text(f'[display]\ndriver = "dummy"\n[reader]\ndevice = "{tmp_path / "no-reader"}"\n')
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / f"notify-{len(list(tmp_path.glob('notify-*')))}"))
    notify.settimeout(HANG)
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "run", "--config", str(config),
                             "--state-dir", str(state)], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=dict(ENV, NOTIFY_SOCKET=notify.getsockname()))
    try:
        while "READY=1" not in notify.recv(4096).decode().split("\n"):
            pass
    finally:
        notify.close()
    return proc


def test_a_second_run_or_sim_on_a_folder_a_box_runs_on_is_refused_naming_it(tmp_path):
    """Fault: a `card-assistant run` by hand beside the service (or a `sim --bots` on its folder)
    started a second box on the journal. Now each says in one line which process holds the folder
    and exits 1, touching no file; export still reads beside the box; once the first box is
    killed (SIGKILL: no stale lock), a new one starts."""
    state = tmp_path / "state"
    first = start_box(tmp_path, state)
    try:
        before = {p.name: p.read_bytes() for p in state.iterdir() if p.is_file() and "-shm" not in p.name}
        for line in second_boxes(tmp_path, state):
            assert f"{state} is in use by another card-assistant (run, process {first.pid}): quit that one first" \
                   in line
        after = {p.name: p.read_bytes() for p in state.iterdir() if p.is_file() and "-shm" not in p.name}
        assert after == before
        got = cli("export", "--all", "--state-dir", str(state), str(tmp_path / "out"))  # a reader: no lock
        assert got.stderr.endswith("no match in the journal yet\n"), got.stderr
    finally:
        first.kill()
        first.wait()
    again = start_box(tmp_path, state)  # the kernel let go of the killed box's lock
    again.send_signal(signal.SIGTERM)
    assert again.wait(HANG) == 0
    assert "in use" not in again.stderr.read()


HOLD = ("import sys; from assistant.box import statelock; statelock.hold(sys.argv[1], 'run'); "
        "print('held', flush=True); sys.stdin.read()")


def holder(folder):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "held\n"
    return proc


@pytest.mark.parametrize("odd", ["a link", "a folder", "a pipe"])
def test_a_link_folder_or_pipe_named_box_lock_still_leaves_the_folder_held(tmp_path, odd):
    """Fault (the attack on the lock file itself): whatever sits under box.lock, the folder is
    locked through itself, a link is never written through, and a second box is still refused."""
    outside = tmp_path / "outside"
    outside.write_text("x")
    state = tmp_path / "state"
    state.mkdir()
    {"a link": lambda p: p.symlink_to(outside), "a folder": lambda p: p.mkdir(),
     "a pipe": lambda p: os.mkfifo(p)}[odd](state / "box.lock")
    first = holder(state)
    try:
        got = cli("sim", "--bots", "--matches", "1", "--state-dir", str(state))
        assert got.returncode == 1 and got.stderr.strip().splitlines() == [
            f"card-assistant sim: {state} is in use by another card-assistant: quit that one first; two "
            "boxes on one journal would each refuse the other's actions"]
    finally:
        first.communicate("")
    assert outside.read_text() == "x"


def test_a_read_only_state_folder_is_still_held_by_one_box(tmp_path):
    """A read-only card: box.lock cannot be made, the folder itself is locked, and a second box
    (here `sim`, with the folder mounted read-only) is refused all the same."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    first = holder(state)
    try:
        (state / "box.lock").unlink()  # as on a card that never held one
        got = run_read_only(state, [sys.executable, "-m", "assistant.cli", "sim", "--bots", "--matches", "1",
                                    "--state-dir", str(state)], cwd=ROOT, env=ENV, timeout=HANG,
                            stdin=subprocess.DEVNULL)
        assert got.returncode == 1 and "is in use by another card-assistant" in got.stderr, got.stderr
    finally:
        first.communicate("")


@pytest.mark.parametrize("fault", [RuntimeError("a bug in resuming"), KeyboardInterrupt()])
def test_the_folder_is_let_go_whatever_ends_the_start(tmp_path, monkeypatch, fault):
    """Fault (leftover of the last session): run_box released the folder only when opening the
    journal raised a JournalError; a bug in resuming, or Ctrl-C during a long repair, left the
    lock's count taken in the process (the sim's, or a test's), so the next box that process
    started on that folder, and every other process, was refused as "in use". Now it is let go whatever
    ends the start."""
    from assistant.box import config, daemon, statelock

    def failing_open_table(*args, **kw):
        raise fault
    monkeypatch.setattr(daemon, "open_table", failing_open_table)
    state = tmp_path / "state"
    with pytest.raises(type(fault)):
        daemon.run_box(config.Config(), str(state), {}, command="sim")
    assert statelock._held == {}
    first = holder(state)  # another process takes the folder: nobody holds it now
    first.communicate("")
