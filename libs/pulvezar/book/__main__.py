"""``python -m pulvezar.book``: deprecated, the same as ``pulvezar book`` (:mod:`pulvezar.cli.book`)."""

import sys

from pulvezar.cli import main

if __name__ == "__main__":
    sys.exit(main(["book", *sys.argv[1:]]))
