"""Faults met by a Pi owner following hardware/BUILD.md in the systemd chroot: the box's state
folder is 0700 and its service user's, so a command typed as the Pi's own user cannot look
inside. Each said something wrong or unhelpful: `players list` only 'Permission denied',
`enroll DECK --verify` 'internal error (PermissionError) ... report it', `export` 'no journal
there' (there was one). Each now says, in one line, to run it as the box's user or with sudo.

As root (CI) the command runs as the user nobody with the system Python (root's own may be out
of its reach) on a 0700 folder of root's; as a normal user, on a folder of mode 000.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED = "import sys; from assistant.box.journal import Journal; Journal(sys.argv[1]).close()"


def as_another_user(args, state):
    kw, python = {}, sys.executable
    if os.geteuid() == 0:  # the box's folder as the Pi's user sees it: another user's, 0700
        state.chmod(0o700)
        kw["user"] = 65534
        python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    else:
        state.chmod(0o000)
    try:
        return subprocess.run([python, "-m", "assistant.cli", *args], capture_output=True, text=True,
                              timeout=60, env={"PYTHONPATH": str(ROOT)}, cwd=ROOT, **kw)
    finally:
        state.chmod(0o700)


@pytest.fixture
def state():
    top = Path(tempfile.mkdtemp(prefix="another-user-", dir="/tmp"))  # reachable by all, as /var/lib
    try:
        top.chmod(0o755)
        d = top / "state"
        d.mkdir()
        (d / "players.txt").write_text("Ann 04AABBCCDDEE01\n", encoding="utf-8")
        (d / "deck.txt").write_text("04AABBCCDD0001 JS\n", encoding="utf-8")
        subprocess.run([sys.executable, "-c", SEED, str(d / "journal.sqlite3")], check=True, cwd=ROOT)
        yield d
    finally:
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.parametrize("command", [
    ["players", "list", "--state-dir", "{s}"],
    ["enroll", "{s}/deck.txt", "--verify", "--port", "/nonexistent/reader"],
    ["export", "--all", "--state-dir", "{s}", "/nonexistent/out"],
], ids=["players", "enroll-verify", "export"])
def test_fault_a_command_typed_as_another_user_says_to_use_the_boxs_user_or_sudo(state, command):
    res = as_another_user([a.replace("{s}", str(state)) for a in command], state)
    err = res.stderr.strip()
    assert res.returncode not in (0, 70) and "Traceback" not in err and "internal error" not in err, err
    assert len(err.splitlines()) == 1, err
    assert "ermission denied" in err and "sudo" in err, err
