"""Run every benchmark in bench/ (files named bench_*.py), one after another.

    python3 dev.py bench            # all of them
    python3 dev.py bench towers     # those whose name contains 'towers'

Each benchmark prints its own medians and ratios. Nothing here is a test.
"""
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv):
    wanted = argv[1:]
    for path in sorted(HERE.glob("bench_*.py")):
        if wanted and not any(w in path.stem for w in wanted):
            continue
        print(f"== {path.stem}", flush=True)
        runpy.run_path(str(path), run_name="__main__")
        print(flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    main(sys.argv)
