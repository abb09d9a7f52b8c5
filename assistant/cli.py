"""`card-assistant` command: one subcommand per job, each imported only when used.

Import time matters on a Pi Zero 2 W, so nothing heavy is imported here: each
subcommand lives in its own module with a ``main(argv) -> int``.

Whatever goes wrong, a person sees one plain line and a non-zero exit status,
never a Python traceback: each subcommand refuses bad arguments in words, and
this module catches what slips through (a closed pipe, Ctrl-C, a bug). Set
``CARD_ASSISTANT_DEBUG=1`` to get the traceback of an unexpected error.
"""
import importlib
import os
import sys

COMMANDS = {
    "replay": ("assistant.replay", "replay a scenario file and print the state it ends in"),
    "enroll": ("assistant.box.enroll", "enrol a tagged pack: tap each card once, write a deck file"),
    "run": ("assistant.box.daemon", "run the box (the daemon systemd starts)"),
    "sim": ("assistant.sim.simulator", "play the box at the keyboard (or let bots play) on simulated hardware"),
    "export": ("assistant.export", "write the journal's matches as scenario files (reads only)"),
    "players": ("assistant.box.players", "enrol, list, rename or remove player tags (not cards)"),
    "web": ("assistant.web.server", "serve the box's web page: now, matches, players (reads only)"),
    "board": ("assistant.club.board_run", "the club's live results board (MQTT, docs/club.md)"),
}


def argument_parser(prog, **kw):
    """An ``argparse`` parser whose refusal is one line (``PROG: error: WHY (see PROG --help)``)
    with exit status 2, instead of the usage block and then the reason."""
    import argparse

    class OneLineParser(argparse.ArgumentParser):
        def error(self, message):
            self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    return OneLineParser(prog=prog, **kw)


def folder_named(value):
    """The ``type`` of an option naming a folder (``--state-dir``): an empty name, an unset shell
    variable's, is refused; it was taken as no option at all, so `run`, `export`, `players` and
    `web` worked on the config's state folder (the box's own journal) and `sim` on a new one."""
    if not value:
        import argparse
        raise argparse.ArgumentTypeError("is empty (an unset shell variable?): name a folder")
    return value


def cannot_write(path):
    """Why a file cannot be written at ``path``, in words, or None: checked before any work, so
    a refusal changes nothing."""
    from pathlib import Path

    from assistant.textfile import read_only_mount, what_is_at
    path = Path(path)
    folder = path.parent
    try:
        above, here = what_is_at(folder), what_is_at(path)
    except OSError as e:  # a folder this user may not enter, a name too long
        return f"{path} cannot be written ({e.strerror})"
    if here == "folder":
        return f"{path} is a folder: name a file in it"
    if above != "folder":
        return f"there is no folder {str(folder)!r} for {path.name}"
    if not os.access(folder, os.W_OK) or (here is not None and not os.access(path, os.W_OK)):
        read_only = read_only_mount(folder)
        return f"{path} cannot be written ({'the card is mounted read-only' if read_only else 'permission denied'})"
    return None


def state_dir_problem(path):
    """Why ``path`` cannot be the state folder, in words, or None: a file, or nothing there."""
    import errno
    import stat
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"{path} does not exist (--state-dir names the box's state folder)"
    except OSError as e:  # a folder under one this user may not enter (the box's own, 0700)
        if e.errno == errno.ELOOP:  # no permission would mend it
            return f"{path} is a link that leads round in a loop, not a folder (--state-dir names the box's state folder)"
        return f"{path} cannot be reached ({e.strerror}): run this as the box's user, or with sudo"
    if stat.S_ISDIR(mode):
        return None
    if not stat.S_ISREG(mode):  # a socket, a pipe, a device: said as what it is
        from assistant.textfile import not_a_file
        return f"{path} {not_a_file(mode, 'a folder')} (--state-dir names the box's state folder)"
    return f"{path} is a file, not a folder (--state-dir names the box's state folder)"


def not_a_folder(path):
    """Why ``path`` cannot be a folder the program reads, in words, or None: a folder, or nothing
    there yet (the program that makes it may not have started), is fine; a file, a device or a
    pipe never is."""
    import stat
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"cannot be reached ({e.strerror})"
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISREG(mode):
        return "is a file, not a folder"
    from assistant.textfile import not_a_file
    return not_a_file(mode, "a folder")


def usage():
    lines = ["usage: card-assistant COMMAND [ARGS]", "       card-assistant --version", "",
             "commands:"]
    lines += [f"  {name:<8} {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "'card-assistant COMMAND --help' describes a command's arguments.",
              "The rules the box applies: docs/rules.md; the scenario format: docs/scenario-format.md."]
    return "\n".join(lines)


COMMIT_FILE = "installed_commit.py"  # beside this module in an installed copy (systemd/install.sh)


def version():
    """The installed version, in words that change with the installed code: the package's version,
    the git commit it was installed from (``assistant/installed_commit.py``, written by
    systemd/install.sh into the copy it installs) or
    run from (a checkout), and a digest of the code itself (its .py files), so that an upgrade
    always shows (the package's version alone said 0.1.0 before and after one)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    from pathlib import Path
    try:
        number = installed("card-assistant")
    except PackageNotFoundError:  # run from a checkout that was never installed
        number = "unknown (not installed)"
    package = Path(__file__).resolve().parent
    parts = [f"commit {commit}"] if (commit := installed_commit(package)) else []
    return f"{number} ({', '.join(parts + [f'code {code_digest(package)}'])})"


def installed_commit(package):
    """The git commit of the code in ``package`` (12 hex digits), or None when no one can tell:
    the module install.sh writes, else the checkout the package lies in (read from its ``.git``,
    no git command needed)."""
    try:
        text = (package / COMMIT_FILE).read_text(encoding="ascii")
    except (OSError, UnicodeError):
        pass
    else:
        import re
        found = re.search(r'^COMMIT = "([0-9a-f]{7,64})"$', text, re.M)
        return found[1][:12] if found else None
    try:
        head = git_head(package.parent)
    except (OSError, UnicodeError, ValueError):
        return None
    return head[:12] if head else None


def git_head(root):
    """The commit checked out in the git checkout ``root`` (a worktree too), or None."""
    import re
    git = root / ".git"
    if git.is_file():  # a worktree's ".git" says "gitdir: PATH"
        words = git.read_text(encoding="utf-8").split(None, 1)
        if len(words) != 2 or words[0] != "gitdir:":
            return None
        git = root / words[1].strip()
    if not (git / "HEAD").is_file():
        return None
    head = (git / "HEAD").read_text(encoding="utf-8").strip()
    if not head.startswith("ref:"):  # a detached HEAD holds the commit itself
        return head if re.fullmatch(r"[0-9a-f]{40,64}", head) else None
    ref = head[4:].strip()
    common = git / (git / "commondir").read_text(encoding="utf-8").strip() if (git / "commondir").is_file() else git
    for folder in (git, common):
        if (folder / ref).is_file():
            return (folder / ref).read_text(encoding="utf-8").strip()
    if (common / "packed-refs").is_file():
        for line in (common / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref):
                return line.split()[0]
    return None


def code_digest(package, parts=None):
    """A short digest of the package's .py files (their paths and bytes): any change of the code
    changes it. ``parts``: only these folders and files under it (the web page's kept records)."""
    import hashlib
    digest = hashlib.sha256()
    if parts is None:
        paths = sorted(package.rglob("*.py"))
    else:
        paths = [p for part in parts for p in
                 (sorted((package / part).rglob("*.py")) if (package / part).is_dir() else [package / part])]
    for path in paths:
        if path.name == COMMIT_FILE and path.parent == package:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + data + b"\0")
    return digest.hexdigest()[:10]


class OutputError(Exception):
    """Standard output cannot be written (a full disk, a quota, a lost terminal): not a bug."""


class _Output:
    """Standard output, whose write errors say that it is standard output that failed."""

    def __init__(self, stream):
        self.stream = stream

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def write(self, text):
        return self._do("write", text)

    def flush(self):
        return self._do("flush")

    def _do(self, act, *args):
        if self.stream is None:  # started with standard output closed (`>&-`)
            if act == "flush":  # nothing was written, so nothing is lost: a refusal said on
                return None     # standard error stays its one line
            raise OutputError("it is closed")
        try:
            return getattr(self.stream, act)(*args)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e.strerror or type(e).__name__) from None


# a control character (an escape sequence, a bell, a carriage return) or a bidi override in a path
# or name given to a command reached the terminal (or the log) as it was, from one plain line:
# standard error shows each as its escape instead, as Python's repr would
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0)) if chr(c) not in "\n\t"}
_CONTROL.update({c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})


_ONE_LINE = {**_CONTROL, ord("\n"): "\\n", ord("\t"): "\\t"}


def shown(text):
    """``text`` (a path, a name someone typed) on one line, safely: a newline or other control
    character in it is written as its escape. A folder named ``a<newline>ERROR forged`` split a
    log line in two, the second looking like a line of its own.

    >>> print(shown("/tmp/a\\nERROR b\\x1b[2J"))
    /tmp/a\\nERROR b\\x1b[2J
    """
    return str(text).translate(_ONE_LINE)


class _Plain:
    """Standard error, with control characters written as their escapes (tabs kept). Each thing
    written is one line: a newline inside it (a path's, in a message or a log record) is written
    as its escape; only the newline that ends it is kept (print writes it on its own, the log
    with the record)."""

    def __init__(self, stream):
        self.stream = stream

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def write(self, text):
        body, end = (text[:-1], "\n") if text.endswith("\n") else (text, "")
        return self.stream.write(body.translate(_CONTROL).replace("\n", "\\n") + end)


def _quiet_stdout():
    """The reader of standard output went away (``| head``): stop writing to it, silently."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    stream = getattr(sys.stdout, "stream", sys.stdout)  # under main(): the stream _Output wraps
    try:
        os.dup2(devnull, 1 if stream is None else stream.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)


def _plain_terminal():
    """A terminal that cannot show a suit symbol or the OLED's block characters (an ASCII locale)
    gets '?' in their place instead of a refusal to print at all."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure") and (stream.encoding or "").lower() not in ("utf-8", "utf8"):
            stream.reconfigure(errors="replace")


def let_interrupts_in():
    """Take Ctrl-C (SIGINT) again, when the program that started this one held it back over the
    interpreter's start (``dev.py`` does: its ``held_interrupts``): one pressed meanwhile arrives
    now, where main() says it in one line, instead of a traceback of Python's own start-up."""
    import signal
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def main(argv=None):
    stdout, stderr = sys.stdout, sys.stderr
    argv = sys.argv[1:] if argv is None else argv
    try:
        let_interrupts_in()
        _plain_terminal()
        sys.stdout = _Output(stdout)
        if stderr is not None:
            sys.stderr = _Plain(stderr)
        return _dispatch(argv)
    except BrokenPipeError:
        _quiet_stdout()
        return 141  # as a shell reports a program ended by SIGPIPE
    except OutputError as e:  # `> /dev/full`: said in one line, not called a bug
        _quiet_stdout()
        name = argv[0] if argv and argv[0] in COMMANDS else ""
        print(f"card-assistant{' ' + name if name else ''}: standard output cannot be written ({e})",
              file=sys.stderr)
        return 74  # EX_IOERR
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except Exception as e:  # a bug: one line, no traceback, unless a developer asks for it
        if os.environ.get("CARD_ASSISTANT_DEBUG"):
            raise
        name = argv[0] if argv and argv[0] in COMMANDS else ""
        print(f"card-assistant{' ' + name if name else ''}: internal error ({type(e).__name__}); "
              f"rerun with CARD_ASSISTANT_DEBUG=1 for the details and report it", file=sys.stderr)
        return 70  # EX_SOFTWARE
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _dispatch(argv):
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return _flushed(0)
    if argv[0] in ("-V", "--version", "version"):
        print(f"card-assistant {version()}")
        return _flushed(0)
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"card-assistant: unknown command {name[:40]!r} (commands: {', '.join(COMMANDS)}; "
              f"see card-assistant --help)", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    try:
        status = module.main(rest)
    except SystemExit as e:  # argparse: --help (0) or a refused argument (2), already said
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return _flushed(status)


def _flushed(status):
    """Flush standard output here, so a closed pipe is caught above and not at interpreter exit."""
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    # `python -m assistant.cli` runs this file as __main__, a second copy: run the module the
    # commands import, so that its OutputError is the one they let through (export, for one)
    from assistant.cli import main as module_main
    sys.exit(module_main())
