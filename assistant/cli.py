"""`card-assistant` command: one subcommand per job, each imported only when used.

Import time matters on a Pi Zero 2 W, so nothing heavy is imported here: each
subcommand lives in its own module with a ``main(argv) -> int``.
"""
import importlib
import sys

COMMANDS = {
    "replay": ("assistant.replay", "replay a scenario file and print the state it ends in"),
    "enroll": ("assistant.enroll", "enrol a tagged pack: tap each card once, write a deck file"),
    "run": ("assistant.daemon", "run the box (the daemon systemd starts)"),
    "sim": ("assistant.sim", "run the box headless with simulated pins, display and reader"),
    "export": ("assistant.export", "write the journal's matches as scenario files (reads only)"),
}


def usage():
    lines = ["usage: card-assistant COMMAND [ARGS]", "", "commands:"]
    lines += [f"  {name:<8} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"card-assistant: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
