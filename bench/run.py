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
    names = [path.stem for path in sorted(HERE.glob("bench_*.py"))]
    if any(w in ("-h", "--help") for w in wanted):
        print(__doc__.strip() + "\n\nBenchmarks: " + ", ".join(n.removeprefix("bench_") for n in names))
        return 0
    chosen = [n for n in names if not wanted or any(w in n for w in wanted)]
    if not chosen:  # a typo ran nothing and said nothing
        print(f"dev.py bench: no benchmark is named like {' or '.join(map(repr, wanted))} "
              f"(benchmarks: {', '.join(n.removeprefix('bench_') for n in names)})", file=sys.stderr)
        return 2
    for name in chosen:
        print(f"== {name}", flush=True)
        runpy.run_path(str(HERE / f"{name}.py"), run_name="__main__")
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    sys.exit(main(sys.argv))
