"""The firmware logic runs unchanged under real MicroPython (issue 4, item 3).

Drives firmware/tests/run_micropython.mjs with node: MicroPython's WebAssembly
port (npm @micropython/micropython-webassembly-pyscript, installed by
``python3 dev.py test``) imports the firmware modules and runs fw_checks.py
against the simulated MFRC522. A missing node or package fails, never skips.
"""
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "firmware" / "tests"
sys.path[:0] = [str(TESTS.parent), str(TESTS)]
try:
    import fw_checks
finally:
    del sys.path[:2]
    for name in ("fw_checks", "sim_mfrc522", "app", "mfrc522", "presence", "proto"):
        sys.modules.pop(name, None)  # generic names: keep them out of other tests' way


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
