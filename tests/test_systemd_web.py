"""The web page's unit (issue 13 item 6): `systemd-analyze verify` prints nothing, `security
--offline=yes` rates it 2.0 or lower with the network allowed, it runs as the daemon's user
without devices, and install.sh installs it."""
import re
from pathlib import Path

from test_systemd import host_unit_dir, run, tool

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "card-assistant-web.service"
EXEC = "/opt/card-assistant/venv/bin/card-assistant"
GOAL = 2.0


def test_web_unit_verifies_without_a_warning(tmp_path):
    import shutil
    root = tmp_path / "root"
    shutil.copytree(host_unit_dir(), root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system/card-assistant-web.service").write_text(UNIT.read_text(encoding="utf-8"))
    exe = root / EXEC.lstrip("/")
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    sa = tool("systemd-analyze", "apt-get install systemd")
    res = run([sa, "verify", f"--root={root}", "card-assistant-web.service"])
    assert (res.stdout + res.stderr).strip() == "" and res.returncode == 0


def test_web_unit_exposure_within_goal():
    sa = tool("systemd-analyze", "apt-get install systemd")
    res = run([sa, "security", "--offline=yes", "--no-pager", str(UNIT)])
    figure = float(re.search(r"Overall exposure level for \S+: ([\d.]+)", res.stdout).group(1))
    print(f"\nweb unit exposure {figure} (goal <= {GOAL})")
    assert figure <= GOAL


def test_web_unit_is_read_only_on_the_network_without_devices():
    text = UNIT.read_text(encoding="utf-8")
    assert "web --config /etc/card-assistant/config.toml" in text  # off unless [web] enabled
    assert "User=card-assistant" in text and "PrivateDevices=yes" in text
    assert "AF_INET" in text and "PrivateNetwork" not in text


def test_install_script_installs_the_web_unit():
    text = (ROOT / "systemd" / "install.sh").read_text(encoding="utf-8")
    assert "card-assistant-web.service" in text
