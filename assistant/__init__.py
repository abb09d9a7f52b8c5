"""card-assistant: a card-table box for towers and Twenty-Nine."""
import sys


def _quiet_interrupt(hook):
    """``hook`` (sys.excepthook or sys.unraisablehook), but a Ctrl-C that reaches it is a line's
    end, not a traceback: one pressed while Python still loads the program (before cli.main() is
    under way, where it is said in one line), or while the interpreter ends it (its atexit work),
    printed the traceback of whatever it interrupted. Set here, on the first line of the package
    the program runs."""
    def quiet(*args):
        kind = args[0] if len(args) == 3 else args[0].exc_type
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            try:
                sys.__stderr__.write("\n")
            except (AttributeError, OSError, ValueError):  # no standard error, or it is closed
                pass
            return
        hook(*args)
    quiet.quiet_interrupt = True
    return quiet


for _name in ("excepthook", "unraisablehook"):
    if not getattr(getattr(sys, _name), "quiet_interrupt", False):
        setattr(sys, _name, _quiet_interrupt(getattr(sys, _name)))
