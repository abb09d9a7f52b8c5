"""The web page's unit (issue 13 item 6): `systemd-analyze verify` prints nothing, `security
--offline=yes` rates it 2.0 or lower with the network allowed, it runs as the daemon's user
without devices, and install.sh installs it."""
import re
from pathlib import Path

from test_systemd import run, tool, verify_unit

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "card-assistant-web.service"
GOAL = 2.0


def test_web_unit_verifies_without_a_warning(tmp_path):
    rc, out = verify_unit(tmp_path, UNIT)
    assert out == "" and rc == 0, out


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


def test_web_unit_reads_the_daemons_screen_file_and_never_owns_its_folder():
    """Issue 13 item 3, the Now page: the web page reads the View the daemon writes to its
    runtime directory (/run/card-assistant), as the same user; it must not declare that folder
    its own RuntimeDirectory (systemd would remove it from under the daemon when the page stops)
    nor hide /run."""
    web = UNIT.read_text(encoding="utf-8")
    daemon = (ROOT / "systemd" / "card-assistant.service").read_text(encoding="utf-8")
    assert "RuntimeDirectory=card-assistant" in daemon and "User=card-assistant" in daemon
    assert "--runtime-dir /run/card-assistant" in web
    assert "RuntimeDirectory" not in "\n".join(line for line in web.splitlines() if not line.startswith("#"))
    assert "InaccessiblePaths" not in web and "TemporaryFileSystem" not in web
    from assistant.web.server import main
    import pytest
    with pytest.raises(SystemExit) as done:  # the unit's arguments are the program's
        main(["--config", "/nonexistent", "--state-dir", "/x", "--runtime-dir", "/run/card-assistant", "--help"])
    assert done.value.code == 0
