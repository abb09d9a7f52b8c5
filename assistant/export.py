"""`card-assistant export [--match N | --all] [--state-dir D] OUT`: the journal's matches as
scenario files, the bug report a user can attach.

Reads only: the journal is opened read-only (immutable when no -wal shows a writer), so it runs
while the box is running and never changes a byte of the journal. OUT is a file (``-`` for
standard output); with ``--all`` it is a folder that gets one ``match-N.scn`` per match. A match
in progress holds the face-down trump and any scanned hands: the file says so at its top.
"""
import os
import sys
import time

WARNING = "holds the hidden cards too (a face-down trump, scanned hands): share it after the match"


def main(argv):
    from assistant.cli import argument_parser, folder_named
    parser = argument_parser("card-assistant export", description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--match", type=int, metavar="N", help="the match numbered N (default: the latest)")
    which.add_argument("--all", action="store_true", help="every match, one file each, into the folder OUT")
    parser.add_argument("--state-dir", default=None, type=folder_named, help="where the journal lives (default: the config's)")
    parser.add_argument("--config", default=None, help="TOML config, for its state_dir")
    parser.add_argument("out", metavar="OUT", help="the scenario file to write (- for standard output)")
    args = parser.parse_args(argv)
    if args.all and args.out == "-":
        print("card-assistant export: with --all, OUT is a folder (one file per match), not - "
              "(standard output takes one match: --match N)", file=sys.stderr)
        return 2
    try:
        return export(args)
    except ExportError as e:
        print(f"card-assistant export: {e}", file=sys.stderr)
        return 1


class ExportError(Exception):
    pass


def export(args):
    from assistant.cli import OutputError, state_dir_problem
    from assistant.box.config import ConfigError, load
    from assistant.box.journal import Journal, JournalError
    try:
        state_dir = args.state_dir or load(args.config).paths.state_dir
    except ConfigError as e:
        raise ExportError(e) from None
    if state_dir_problem(state_dir):
        raise ExportError(state_dir_problem(state_dir))
    path = os.path.join(state_dir, "journal.sqlite3")
    try:
        os.stat(path)  # the box's state folder (0700) as another user: not 'no journal there'
        unreadable = not os.access(path, os.R_OK)
    except PermissionError:
        unreadable = True
    except OSError:
        unreadable = False
    if unreadable:
        raise ExportError(f"{path}: cannot be read (permission denied): run it with sudo")
    try:
        journal = Journal(path, readonly=True)
    except JournalError as e:
        raise ExportError(e) from None
    try:
        ids = journal.match_ids()
        if not ids:
            raise ExportError(f"{path}: no match in the journal yet")
        if args.all:
            return _write_all(journal, ids, args.out)
        mid = ids[-1] if args.match is None else args.match
        if mid not in ids:
            raise ExportError(f"{path}: no match {mid} (matches: {ids[0]} to {ids[-1]})")
        _write(args.out, _scenario(journal, mid))
        return 0
    except (ExportError, OutputError, BrokenPipeError):  # standard output's own fault: cli says so
        raise
    except JournalError as e:
        raise ExportError(e) from None
    except Exception as e:  # a journal damaged since the box started: one line, nothing written to it
        raise ExportError(f"{path}: cannot be read ({e}); the box recovers it at its next start") from None
    finally:
        journal.close()


def _scenario(journal, mid):
    started = journal.db.execute("SELECT started FROM matches WHERE id=?", (mid,)).fetchone()[0]
    try:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started))
    except (TypeError, ValueError, OverflowError, OSError):  # damage the box sets aside: the actions still count
        when = "at a time the journal cannot say"
    left_out = []
    text = journal.export(mid, left_out)
    for words in left_out:  # the file ends with these words too
        print(f"card-assistant export: match {mid}: {words}", file=sys.stderr)
    return f"# match {mid} of the box's journal, started {when}\n# this file {WARNING}\n" + text


def _write_all(journal, ids, folder):
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ExportError(f"{folder} is not a folder (with --all, OUT is a folder: one file per match)")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise ExportError(f"{folder}: cannot make the folder ({e.strerror})") from None
    for mid in ids:
        _write(os.path.join(folder, f"match-{mid}.scn"), _scenario(journal, mid))
    print(f"{len(ids)} match(es) written to {folder}", file=sys.stderr)
    return 0


def _write(out, text):
    if out == "-":
        sys.stdout.write(text)
        return
    from assistant.textfile import write_out
    try:
        # a file appears whole or not at all: an export killed (or the disk full) mid-write
        # left half a scenario under the match's name, read later as the match
        write_out(out, text, mode=0o600)  # it holds hidden cards
    except OSError as e:
        raise ExportError(f"{out}: cannot write ({e.strerror})") from None
