#!/usr/bin/env python3
"""Set up and run card-assistant on a fresh machine that has only python3.

    python3 dev.py run    # make .venv, install, run the main job (the headless simulation)
    python3 dev.py run sim  # play at the keyboard (arguments after run go to card-assistant)
    python3 dev.py test   # make .venv, install the test tools, run every test
    python3 dev.py bench  # run the benchmarks in bench/
    python3 dev.py web    # bots play matches of both games while the web page shows them

Installs are skipped when nothing they depend on changed (a stamp in .venv).
"""
import sys


def _quiet_interrupt(kind, value, tb, hook=sys.excepthook):
    """Ctrl-C while this file is still loading is a line's end, as in main(), not a traceback."""
    if issubclass(kind, KeyboardInterrupt):
        sys.stderr.write("\n")
    else:
        hook(kind, value, tb)


if __name__ == "__main__":
    sys.excepthook = _quiet_interrupt

import contextlib  # noqa: E402 (after the hook: a Ctrl-C during these imports is covered)
import hashlib  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
NODE_DIR = ROOT / "firmware" / "tests"


def sh(*cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


@contextlib.contextmanager
def held_interrupts():
    """Ctrl-C (SIGINT) held back, pending, while a card-assistant is started in the block: it
    inherits the hold over its interpreter's start, where a Ctrl-C printed a traceback of Python's
    own start-up, and its main() takes the signal again (cli.let_interrupts_in) where it is said in
    one line. Here it arrives when the block ends."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def card_assistant(*args, **kw):
    """A card-assistant started with Ctrl-C held over its start (held_interrupts)."""
    with held_interrupts():
        return subprocess.Popen([str(BIN / "card-assistant"), *(str(a) for a in args)], **kw)


def digest(*paths):
    h = hashlib.sha256()
    for p in paths:
        if p.exists():
            h.update(p.read_bytes())
    return h.hexdigest()


def ensure_venv(extra):
    if not (BIN / "python").exists():
        sh(sys.executable, "-m", "venv", VENV)
    stamp = VENV / f".stamp-{extra or 'base'}"
    want = digest(ROOT / "pyproject.toml")
    if stamp.exists() and stamp.read_text() == want:
        return
    sh(BIN / "python", "-m", "pip", "install", "-q", "--upgrade", "pip")
    target = f".[{extra}]" if extra else "."
    # setuptools warns at every editable install that a folder named like the package may shadow
    # it: true of every checkout, and alarming to a newcomer's first command
    quiet = dict(os.environ, PYTHONWARNINGS="ignore:Editable installation")
    sh(BIN / "python", "-m", "pip", "install", "-q", "-e", target, cwd=ROOT, env=quiet)
    stamp.write_text(want)


def ensure_node():
    """Install the MicroPython WebAssembly port for the firmware tests (npm registry)."""
    if not (NODE_DIR / "package.json").exists():
        return
    if not shutil.which("node") or not shutil.which("npm"):
        sys.exit("The firmware tests need Node.js and npm (apt-get install nodejs npm).")
    stamp = NODE_DIR / "node_modules" / ".stamp"
    want = digest(NODE_DIR / "package.json", NODE_DIR / "package-lock.json")
    if stamp.exists() and stamp.read_text() == want:
        return
    lock = (NODE_DIR / "package-lock.json").exists()
    sh("npm", "ci" if lock else "install", "--no-audit", "--no-fund", "--silent", cwd=NODE_DIR)
    stamp.write_text(want)


def ensure_browser():
    """Debian's chromium and chromium-driver for the web page's browser tests (issue 13)."""
    if shutil.which("chromium") and shutil.which("chromedriver"):
        return
    if not shutil.which("apt-get") or os.geteuid() != 0:
        print("The browser tests need chromium and chromium-driver: they fail without them "
              "(sudo apt-get install chromium chromium-driver).", flush=True)
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    sh("apt-get", "update", "-qq", env=env)
    sh("apt-get", "install", "-y", "-qq", "chromium", "chromium-driver", env=env)


def private_folder(folder):
    """``folder``, made 0700 (and made so if it was not): the journal in it holds hidden cards
    (face-down trumps, discards), as the daemon's own state folder does."""
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder


def web(rest):
    """The web page on http://127.0.0.1:8029/ (``--host 0.0.0.0`` for phones on the same Wi-Fi)
    while bots play into .play/: two towers and one Twenty-Nine match at full speed (Matches and
    Players fill at once), then one of each at a pace to watch on the Now page; it stays up after."""
    import argparse
    p = argparse.ArgumentParser(
        prog="python3 dev.py web",
        description="The box's web page on http://127.0.0.1:8029/ while bots play matches of both games "
                    "into the folder .play/ (two towers and a Twenty-Nine match at full speed, then one of "
                    "each at 0.4 s an action to watch on Now); the page stays up after (Ctrl-C stops it).",
        epilog="The page reads the folder .play/ of the checkout; to show another state folder, "
               "run the page yourself: python3 dev.py run web --state-dir DIR --port 8029")
    p.add_argument("--host", default="127.0.0.1", help="address the page listens on (default 127.0.0.1)")
    p.add_argument("--port", default="8029", help="the page's port (default 8029)")
    args, unknown = p.parse_known_args(rest)
    if unknown:  # card-assistant web's own options (--state-dir...) would fight the bots' folder
        sys.exit(f"dev.py web: {' '.join(unknown)}: dev.py web takes only --host and --port "
                 "(python3 dev.py web --help)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stopped: stop the page too
    state = private_folder(ROOT / ".play")
    exe = str(BIN / "card-assistant")
    server = card_assistant("web", "--state-dir", state, "--host", args.host, "--port", args.port,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    if not serving(server):  # the port is taken, a bad argument: said in its line, and stop
        sys.exit(server.wait() or 1)
    try:
        players = ["--player", "Ann", "--player", "Bob", "--player", "Cleo", "--player", "Dev"]
        for game, matches, seed, pace in (("towers", 2, 1, 0), ("twenty-nine", 1, 1, 0),
                                          ("towers", 1, 2, 0.4), ("twenty-nine", 1, 2, 0.4)):
            seated = 4 if game == "towers" else 8
            if pace:
                print(f"Now a {game} match at {pace} s an action: watch it on the Now page.", flush=True)
            bots = [exe, "sim", "--bots", "--game", game, "--matches", matches, "--seed", seed, "--pace",
                    pace, "--renege-rate", "0.05", "--state-dir", state, *players[:seated]]
            print("+", " ".join(str(c) for c in bots), flush=True)
            sim = card_assistant(*bots[1:])
            try:
                if sim.wait():
                    raise subprocess.CalledProcessError(sim.returncode, bots)
            except KeyboardInterrupt:  # as subprocess.run did
                sim.kill()
                sim.wait()
                raise
        print("The bots are done; the page stays up. Ctrl-C stops it.", flush=True)
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.terminate()
        server.wait()


def serving(server):
    """Pass the page's own lines on to our stderr; True once it says it is serving, False if it
    ended first (its line said why)."""
    import threading
    for line in server.stderr:
        sys.stderr.write(line)
        sys.stderr.flush()
        if ": serving http" in line:
            def copy():
                for rest in server.stderr:
                    sys.stderr.write(rest)
                    sys.stderr.flush()
            threading.Thread(target=copy, daemon=True).start()
            return True
    return False


MOSQUITTO = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto_passwd")
CLIENTS = "/usr/bin/mosquitto_sub"  # bench box watches its club box connect with it


def ensure_mosquitto(clients=False):
    """The club tests run the real MQTT broker (Debian's mosquitto): install it where apt-get can.
    Where it cannot (not root, no apt-get), say so; those tests then skip with the same words."""
    if all(Path(p).exists() for p in MOSQUITTO) and (not clients or Path(CLIENTS).exists()):
        return
    apt = shutil.which("apt-get")
    if apt is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        print("dev.py: mosquitto is not installed and apt-get cannot be used here "
              "(apt-get install mosquitto as root): the club tests skip and sim --club says so",
              flush=True)
        return
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = [apt, "install", "-y", "-q", "--no-install-recommends", "mosquitto",
               *(["mosquitto-clients"] if clients else [])]
    if subprocess.run(install, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        sh(apt, "update", "-q", env=env, stdout=subprocess.DEVNULL)
        sh(*install, env=env, stdout=subprocess.DEVNULL)


def main(argv):
    """A failing child command is one line and the child's status, never a traceback; Ctrl-C (in
    a long first install, say) is a line's end and status 130, as card-assistant's own."""
    try:
        dispatch(argv)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        sys.exit(130)
    except subprocess.CalledProcessError as e:
        print(f"dev.py: {' '.join(str(c) for c in e.cmd)} exited with status {e.returncode}",
              file=sys.stderr, flush=True)
        sys.exit(e.returncode or 1)


def dispatch(argv):
    cmd = argv[1] if len(argv) > 1 else "run"
    rest = argv[2:]
    if cmd == "run":
        ensure_venv(None)
        ensure_mosquitto()  # for `card-assistant sim --club` (docs/club.md)
        args = rest or ["sim", "--bots", "--game", "towers", "--matches", "3", "--seed", "1",
                        "--renege-rate", "0.05"]
        with held_interrupts():  # the program that takes over this process takes Ctrl-C back
            os.execv(BIN / "card-assistant", [str(BIN / "card-assistant"), *args])
    elif cmd == "test":
        ensure_venv("test")
        ensure_node()
        ensure_browser()
        ensure_mosquitto()
        # The whole suite in two worker processes (pytest-xdist), a test file at a time each: the
        # systemd chroot test (first, tests/conftest.py) waits minutes on its booted system while
        # the other worker runs the rest. Arguments given run as they are, in this process.
        rest = rest or ["-n", "2", "--dist", "loadfile"]
        os.execv(BIN / "python", [str(BIN / "python"), "-m", "pytest", *rest])
    elif cmd == "web":
        ensure_venv(None)
        web(rest)
    elif cmd == "bench":
        ensure_venv(None)
        ensure_mosquitto(clients=True)  # bench box's club box, bench club's board
        os.execv(BIN / "python", [str(BIN / "python"), str(ROOT / "bench" / "run.py"), *rest])
    elif cmd in ("-h", "--help", "help"):
        print(__doc__.strip())
    else:
        sys.exit(f"dev.py: unknown command {cmd!r}: run, test, bench or web (python3 dev.py --help)")


if __name__ == "__main__":
    main(sys.argv)
