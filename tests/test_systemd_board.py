"""The club's board as a service (issue 14 item 6, `systemd/install.sh --board`), checked without a Pi.

- the unit: `systemd-analyze verify` prints nothing; `security --offline=yes` rates it no higher than
  the web page's unit (both with the network allowed); it runs as its own user and reads its
  password from a file only root and its group may read (never from its command line);
- `install.sh --board --dry-run` prints every step, shows no password and changes nothing;
- `install.sh --board` for real into a throwaway root (DESTDIR, stand-ins for apt-get/systemctl as
  in test_systemd.py): accounts with random passwords, root-only; Mosquitto's password file
  (hashes only) and ACL readable by its user only; and the REAL Mosquitto, started on those files,
  lets a table write only its own topics and the board only read;
- a second run keeps every password and adds new tables; --uninstall removes the service and the
  broker settings but keeps the board's events and the accounts; bad options stop before any step.

Under a real systemd (the unit starting, the page answering): tests/test_systemd_chroot.py.
"""
import contextlib
import re
import socket
import stat
import subprocess
import threading
import time
from pathlib import Path


from test_systemd import INSTALL, Sandbox, dry_run, in_order, run, tool, verify_unit

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "card-assistant-board.service"
WEB_UNIT = ROOT / "systemd" / "card-assistant-web.service"


def exposure(unit):
    sa = tool("systemd-analyze", "apt-get install systemd")
    res = run([sa, "security", "--offline=yes", "--no-pager", unit])
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", res.stdout + res.stderr)
    assert m, res.stdout + res.stderr
    return float(m.group(1))


def test_board_unit_verifies_without_a_warning(tmp_path):
    rc, out = verify_unit(tmp_path, UNIT)
    assert out == "" and rc == 0, out


def test_board_unit_is_no_more_exposed_than_the_web_page():
    """Issue 14: exposure as low as the web unit's or lower, with the network allowed."""
    board, web = exposure(UNIT), exposure(WEB_UNIT)
    print(f"\nsystemd-analyze security --offline=yes: board unit {board}, web unit {web}")
    assert board <= web


def test_board_unit_writes_only_its_state_and_reads_its_password_from_a_file():
    text = UNIT.read_text(encoding="utf-8")
    assert "User=card-assistant-board" in text and "StateDirectory=card-assistant-board" in text
    assert "ProtectSystem=strict" in text and "AF_INET" in text and "PrivateNetwork" not in text
    (exec_start,) = [ln for ln in text.splitlines() if ln.startswith("ExecStart=")]
    assert "--password-file /etc/card-assistant/board-password" in exec_start
    assert "--db ${STATE_DIRECTORY}/board.sqlite3" in exec_start


# ---- install.sh --board --dry-run ---------------------------------------------------------------

def test_dry_run_board_prints_every_step_shows_no_password_and_changes_nothing(tmp_path):
    res, ran = dry_run(tmp_path, "--board", "--tables", "3", "--club", "friday")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert ran == "", f"--dry-run ran commands that change the machine:\n{ran}"
    plan = res.stdout
    in_order(plan, [
        "apt-get install -y --no-install-recommends mosquitto python3-venv",
        "python3 -m venv --system-site-packages /opt/card-assistant/venv",
        "/opt/card-assistant/venv/bin/python -m pip install --upgrade ",
        "useradd --system --user-group --home-dir /var/lib/card-assistant-board",
        "account board: a new random password", "account t1", "account t2", "account t3",
        "write /etc/card-assistant/club-passwords (mode 0600, owner root:root): 4 line(s), not shown",
        "write /etc/card-assistant/board-password (mode 0640, owner root:card-assistant-board): 1 line(s), not shown",
        "write /etc/mosquitto/card-assistant.passwd (mode 0600, owner mosquitto:mosquitto): 4 line(s), not shown",
        "user t1", "topic write club/friday/t1/#", "user t3", "topic write club/friday/t3/#",
        "user board", "topic read club/friday/#",
        "allow_anonymous false", "password_file /etc/mosquitto/card-assistant.passwd",
        "systemctl restart mosquitto.service",
        "BOARD_CLUB=friday", "BOARD_PORT=8030",
        "install -m 0644 ", "card-assistant-board.service /etc/systemd/system/card-assistant-board.service",
        "systemctl enable card-assistant-board.service", "systemctl restart card-assistant-board.service",
    ])
    assert "import lgpio" not in plan and "apt-cache policy" not in plan  # the board needs no GPIO
    assert "NEW" not in plan  # the stand-in for a new password is never printed either


def test_bad_board_options_stop_before_any_step(tmp_path):
    for args, words in ((["--board", "--tables", "t1,a/b"], "not a table name"),
                        (["--board", "--tables", "t1,board"], "not a table name"),
                        (["--board", "--port", "70000"], "not a port"),
                        (["--board", "--club", "my club"], "--club"),
                        (["--tables", "3"], "go with --board"),
                        (["--board", "--club"], "needs a value")):
        res = run(["bash", INSTALL, "--dry-run", *args], stdin=subprocess.DEVNULL)
        assert res.returncode == 2 and words in res.stderr and "step 1" not in res.stdout, (args, res.stderr)


# ---- install.sh --board for real, into a throwaway root -----------------------------------------

def board_sandbox(tmp_path):
    box = Sandbox(tmp_path)
    for d in ("etc/mosquitto/conf.d", "lib/systemd/system"):
        (box.root / d).mkdir(parents=True, exist_ok=True)
    (box.root / "lib/systemd/system/mosquitto.service").write_text("[Service]\n")  # the package's unit
    return box


@contextlib.contextmanager
def real_broker(tmp_path, conf_text, port):
    """The real Mosquitto on a config install.sh wrote (ports and paths changed by the caller;
    "user root": the sandbox's files are the test's own), until the block ends."""
    from assistant.club.broker import find, stop_process
    test_conf = tmp_path / "mosquitto.conf"
    test_conf.write_text(conf_text + "\nuser root\nlog_dest stderr\n")
    broker = subprocess.Popen([find("mosquitto"), "-c", str(test_conf)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline and broker.poll() is None, "mosquitto did not start"
                time.sleep(0.05)
        yield
    finally:
        stop_process(broker)


def watch(port, password):
    """The board's account subscribed to everything: (client, the (topic, payload) it gets)."""
    from assistant.club.publisher import make_client
    got, ready = [], threading.Event()
    watcher = make_client("watch", "board", password, False)
    watcher.on_subscribe = lambda *a: ready.set()
    watcher.on_message = lambda c, u, m: got.append((m.topic, m.payload))
    watcher.connect("127.0.0.1", port)
    watcher.subscribe("club/#", 1)
    watcher.loop_start()
    assert ready.wait(5)
    return watcher, got


def stop_watching(watcher, got):
    deadline = time.monotonic() + 5
    while not got and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # anything more (it must not come) would have come by now
    watcher.disconnect()
    watcher.loop_stop()
    return got


def accounts(box):
    text = box.path("/etc/card-assistant/club-passwords").read_text(encoding="utf-8")
    return dict(line.split(" ", 1) for line in text.splitlines())


def private(path):
    return stat.S_IMODE(path.stat().st_mode) == 0o600


def test_board_install_makes_private_accounts_and_a_working_acl_with_the_real_mosquitto(tmp_path):
    """Issue 14 items 3 and 6: a password per table and for the board, never world-readable (and
    never on a command line: only hashes reach mosquitto_passwd's file); the real Mosquitto, run on
    the files install.sh wrote, refuses a wrong password and lets t1 write only t1's topics."""
    from assistant.club.board import MAX_RECORD
    from assistant.club.broker import LIMITS, MAX_MESSAGE, free_port
    from assistant.club.publisher import make_client
    box = board_sandbox(tmp_path)
    calls = box.run("--board", "--club", "friday", "--tables", "t1,t2")
    for call in ("apt-get install -y --no-install-recommends mosquitto python3-venv",
                 "systemctl restart mosquitto.service", "systemctl enable card-assistant-board.service",
                 "systemctl restart card-assistant-board.service"):
        assert call in calls, f"{call!r} was not run:\n{calls}"
    assert "lgpio" not in calls and "udevadm" not in calls and "usermod" not in calls  # no devices
    (useradd,) = [c for c in calls.splitlines() if c.startswith("useradd ")]
    assert useradd.endswith(" card-assistant-board")  # its own user, not the box's
    pw = accounts(box)
    assert sorted(pw) == ["board", "t1", "t2"] and len(set(pw.values())) == 3
    assert all(len(p) >= 24 for p in pw.values())
    assert box.path("/etc/card-assistant/board-password").read_text(encoding="utf-8") == pw["board"] + "\n"
    for secret in ("/etc/card-assistant/club-passwords", "/etc/mosquitto/card-assistant.passwd",
                   "/etc/mosquitto/card-assistant.acl"):
        assert private(box.path(secret)), secret
    assert stat.S_IMODE(box.path("/etc/card-assistant/board-password").stat().st_mode) == 0o640
    hashed = box.path("/etc/mosquitto/card-assistant.passwd").read_text(encoding="utf-8")
    assert not any(p in hashed for p in pw.values()) and not any(p in calls + box.stdout for p in pw.values())
    env = box.path("/etc/card-assistant/board.env").read_text(encoding="utf-8")
    assert "BOARD_CLUB=friday\n" in env and "BOARD_PORT=8030\n" in env and pw["board"] not in env
    assert box.path("/etc/systemd/system/card-assistant-board.service").read_text(encoding="utf-8") == \
        UNIT.read_text(encoding="utf-8")
    conf = box.path("/etc/mosquitto/conf.d/card-assistant.conf").read_text(encoding="utf-8")
    assert "allow_anonymous false" in conf and "listener 1883" in conf
    assert set(LIMITS) <= set(conf.splitlines()) and MAX_MESSAGE == MAX_RECORD  # the board's largest

    # the real broker on exactly these files (its own port here; "user root": the test's files are ours)
    port = free_port()
    lines = [f"listener {port} 127.0.0.1" if ln.startswith("listener") else ln for ln in conf.splitlines()]
    lines = [ln.replace("/etc/mosquitto/", str(box.path("/etc/mosquitto")) + "/") for ln in lines]
    with real_broker(tmp_path, "\n".join(lines), port):
        watcher, got = watch(port, pw["board"])

        def connected(account, password):
            c, answer = make_client(f"send-{time.monotonic_ns()}", account, password, False), []
            c.on_connect = lambda cl, u, f, reason, p: answer.append(reason)
            c.connect("127.0.0.1", port)
            c.loop_start()
            deadline = time.monotonic() + 5
            while not answer and time.monotonic() < deadline:
                time.sleep(0.01)
            return c, answer[0]

        c, reason = connected("t1", "wrong")
        c.loop_stop()
        assert reason.is_failure  # a wrong password
        # Fault (attack on the club): the broker took any message up to 256 MiB (and kept it, if
        # retained) from any table's account; one over the board's largest now goes nowhere
        for account, topic, payload in (("t1", "club/friday/t2/events", b"t1"),     # another table's topic
                                        ("board", "club/friday/t1/events", b"board"),  # the board only reads
                                        ("t1", "club/friday/t1/now", b"x" * (MAX_MESSAGE + 1)),  # too big
                                        ("t1", "club/friday/t1/events", b"t1")):    # the only one through
            c, reason = connected(account, pw[account])
            assert not reason.is_failure, (account, reason)
            c.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
            c.disconnect()
            c.loop_stop()
        assert stop_watching(watcher, got) == [("club/friday/t1/events", b"t1")]


def club_ca(folder):
    """A club's own CA and the broker's certificate for 127.0.0.1, as docs/club.md makes them."""
    openssl = tool("openssl", "apt-get install openssl")
    folder.mkdir(parents=True, exist_ok=True)
    ca, key, csr, crt = (folder / n for n in ("club-ca.crt", "card-assistant.key", "b.csr", "card-assistant.crt"))
    ext = folder / "san.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for cmd in (["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", folder / "ca.key",
                 "-out", ca, "-subj", "/CN=test club CA"],
                ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=localhost"],
                ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", folder / "ca.key", "-CAcreateserial",
                 "-days", "2", "-out", crt, "-extfile", ext]):
        res = run([openssl, *cmd], stdin=subprocess.DEVNULL)
        assert res.returncode == 0, res.stderr
    (folder / "ca.key").unlink()
    return ca


def test_with_a_certificate_the_boxes_get_tls_and_plain_mqtt_stays_on_the_pi(tmp_path):
    """Issue 14 item 3 (TLS): with the broker's certificate in place, install.sh --board gives the
    boxes a TLS listener and keeps plain MQTT for the board on 127.0.0.1; the REAL Mosquitto on
    those files takes a box over TLS (checked against the club's CA) and refuses it in clear."""
    from assistant.club.broker import free_port
    from assistant.club.publisher import make_client
    box = board_sandbox(tmp_path)
    ca = club_ca(box.path("/etc/mosquitto/certs"))
    box.run("--board", "--tables", "1")
    conf = box.path("/etc/mosquitto/conf.d/card-assistant.conf").read_text(encoding="utf-8")
    assert "listener 1883 127.0.0.1\nlistener 8883\n" in conf
    assert "certfile /etc/mosquitto/certs/card-assistant.crt" in conf and "keyfile " in conf
    assert private(box.path("/etc/mosquitto/certs/card-assistant.key"))
    assert 'broker = "mqtts://' in box.stdout and "cafile" in box.stdout
    pw = accounts(box)
    plain, tls = free_port(), free_port()
    text = conf.replace("listener 1883 127.0.0.1", f"listener {plain} 127.0.0.1")
    text = text.replace("listener 8883", f"listener {tls} 127.0.0.1").replace("/etc/", str(box.path("/etc")) + "/")
    with real_broker(tmp_path, text, plain):
        watcher, got = watch(plain, pw["board"])
        c = make_client("t1-tls", "t1", pw["t1"], True, str(ca))
        c.connect("127.0.0.1", tls)
        c.loop_start()
        c.publish("club/club/t1/events", b"over TLS", qos=1).wait_for_publish(5)
        c.disconnect()
        c.loop_stop()
        clear = make_client("t1-clear", "t1", pw["t1"], False)
        answer = []
        clear.on_connect = lambda cl, u, f, reason, p: answer.append(reason)
        try:
            clear.connect("127.0.0.1", tls)
            clear.loop(1)
            clear.loop(1)
        except OSError:
            pass
        assert not any(not r.is_failure for r in answer)  # never accepted in clear
        assert stop_watching(watcher, got) == [("club/club/t1/events", b"over TLS")]


def test_a_second_board_run_keeps_every_password_and_adds_new_tables(tmp_path):
    box = board_sandbox(tmp_path)
    box.run("--board", "--tables", "2")
    first = accounts(box)
    env = box.path("/etc/card-assistant/board.env")
    env.write_text(env.read_text(encoding="utf-8").replace("BOARD_OPTIONS=", "BOARD_OPTIONS=--host 10.0.0.5"))
    box.run("--board", "--tables", "t3", "--port", "8040")
    again = accounts(box)
    assert {k: again[k] for k in first} == first and sorted(again) == ["board", "t1", "t2", "t3"]
    text = env.read_text(encoding="utf-8")
    assert "BOARD_PORT=8040\n" in text and "BOARD_CLUB=club\n" in text and "BOARD_OPTIONS=--host 10.0.0.5\n" in text
    acl = box.path("/etc/mosquitto/card-assistant.acl").read_text(encoding="utf-8")
    assert [ln for ln in acl.splitlines() if ln.startswith("topic write")] == [
        f"topic write club/club/{t}/#" for t in ("t1", "t2", "t3")]


def test_board_uninstall_removes_the_service_and_broker_settings_and_keeps_the_evening(tmp_path):
    box = board_sandbox(tmp_path)
    box.run("--board", "--tables", "2")
    events = box.path("/var/lib/card-assistant-board/board.sqlite3")
    events.parent.mkdir(parents=True)
    events.write_bytes(b"SQLite format 3\x00 the evening")
    pw = accounts(box)
    calls = box.run("--board", "--uninstall")
    assert "systemctl disable --now card-assistant-board.service" in calls
    assert "systemctl try-restart mosquitto.service" in calls
    for gone in ("/etc/systemd/system/card-assistant-board.service", "/etc/mosquitto/conf.d/card-assistant.conf",
                 "/etc/mosquitto/card-assistant.passwd", "/etc/mosquitto/card-assistant.acl", "/opt/card-assistant"):
        assert not box.path(gone).exists(), gone
    assert events.read_bytes() == b"SQLite format 3\x00 the evening"
    assert accounts(box) == pw and private(box.path("/etc/card-assistant/club-passwords"))


def test_the_box_and_the_board_on_one_pi_share_the_venv(tmp_path):
    """Uninstalling one leaves the other's program in place."""
    box = board_sandbox(tmp_path)
    box.run()
    box.run("--board", "--tables", "1")
    box.run("--uninstall")
    assert box.path("/opt/card-assistant/venv/bin/card-assistant").exists()
    assert "kept: the club's board" in box.stdout
    box.run("--board", "--uninstall")
    assert not box.path("/opt/card-assistant").exists()
