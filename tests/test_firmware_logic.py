"""The firmware logic under CPython and under real MicroPython (issue 4, items 1 and 3).

Every check in firmware/tests/fw_checks.py runs here as one pytest test (names
say what each covers: framing vectors, the MFRC522 driver against the register
model, debounce, polling order with idle antennas off, two tags on a pad, boot
banner and snapshot, heartbeat, sequence numbers), and again, all of them,
under MicroPython's WebAssembly port in node (npm
@micropython/micropython-webassembly-pyscript, installed by ``python3 dev.py
test``) via firmware/tests/run_micropython.mjs. A missing node or package
fails, never skips.
"""
import shutil
import subprocess

import pytest
from hypothesis import given, strategies as st

from firmware_import import FIRMWARE, import_firmware

TESTS = FIRMWARE / "tests"
fw_checks, presence = import_firmware("fw_checks", "presence")
CONFLICT, EMPTY, Presence = presence.CONFLICT, presence.EMPTY, presence.Presence

fw_checks.load_vectors(TESTS.parent / "protocol_vectors.json")


@pytest.mark.parametrize("check", fw_checks.CHECKS, ids=lambda c: c.__name__[len("check_"):])
def test_firmware(check):
    check()


READING = st.sampled_from([EMPTY, "04A1B2C3D4E5F6", "04A1B2C3D4E5F7", CONFLICT, None])


@given(st.lists(READING, max_size=200), st.integers(1, 5), st.integers(1, 5))
def test_debounce_reports_alternate_and_agree_with_its_state(readings, n, m):
    """Whatever the polls say: arrivals and removals alternate per tag, and the
    reported changes, replayed, land on the pad's stable state."""
    p = Presence(n, m)
    shown = EMPTY
    for r in readings:
        for kind, value in p.poll(r):
            if kind == "remove":
                assert shown == value
                shown = EMPTY
            elif kind == "clear":
                assert shown == CONFLICT
                shown = EMPTY
            else:
                assert shown == EMPTY
                shown = value if kind == "arrive" else CONFLICT
    assert shown == p.stable


@given(st.integers(1, 5), st.integers(1, 5), st.integers(0, 20), st.integers(0, 20))
def test_debounce_one_tap_is_one_arrival_and_one_removal(n, m, rest, gap):
    p = Presence(n, m)
    polls = [EMPTY] * gap + ["04A1B2C3D4E5F6"] * (n + rest) + [EMPTY] * (m + gap)
    changes = [c for r in polls for c in p.poll(r)]
    assert changes == [("arrive", "04A1B2C3D4E5F6"), ("remove", "04A1B2C3D4E5F6")]


def test_micropython_wasm_runs_every_firmware_check():
    node = shutil.which("node")
    assert node, "node is not installed: the firmware tests need Node.js (apt-get install nodejs npm)"
    package = TESTS / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
    assert package.is_dir(), f"{package} missing: run `python3 dev.py test` (it runs npm ci in {TESTS})"
    proc = subprocess.run([node, "run_micropython.mjs"], cwd=TESTS, capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert out.startswith("micropython (1,"), out[:200]
    ran = {line.split()[1] for line in out.splitlines() if line.startswith("ok ")}
    want = {c.__name__ for c in fw_checks.CHECKS}
    assert ran == want, f"not run under MicroPython: {sorted(want - ran)}"
    assert f"fw_checks: {len(want)} passed, 0 failed" in out
