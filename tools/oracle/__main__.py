"""``python -m tools.oracle``: the engine against the oracle (situations or ``--rounds``), or §11's examples."""

from __future__ import annotations

import argparse
import sys

from . import __doc__ as package_doc


def main(argv: list[str] | None = None) -> int:
    summary = (package_doc or "").split("\n\n")[0]
    ap = argparse.ArgumentParser(prog="python -m tools.oracle", description=summary)
    ap.add_argument("--n", type=int, default=20000, help="how many situations (or rounds) to deal")
    ap.add_argument("--seed", type=int, default=55, help="the generator's seed")
    ap.add_argument("--show", type=int, default=3, help="smallest examples printed per disagreement group")
    ap.add_argument("--examples", action="store_true", help="score RULES.md §11's worked examples instead")
    ap.add_argument("--rounds", action="store_true", help="whole rounds settled between four seats (score_round)")
    args = ap.parse_args(argv)
    if args.n < 1 or args.show < 0:
        ap.error(f"--n must be 1 or more and --show 0 or more, got {args.n} and {args.show}")
    if args.examples:
        from .examples import check_examples

        lines, failed = check_examples()
        print("\n".join(lines))
        return 1 if failed else 0
    if args.rounds:
        from .compare import compare_rounds
        from .deal_rounds import rounds

        report = compare_rounds(rounds(args.n, args.seed), show=args.show)
    else:
        from .compare import compare
        from .deal import situations

        report = compare(situations(args.n, args.seed), show=args.show)
    print("\n".join(report.lines()))
    return 1 if report.disagreeing else 0


if __name__ == "__main__":
    sys.exit(main())
