"""``python -m pulvezar.train``: deprecated, the same as ``pulvezar train`` (:mod:`pulvezar.cli.train`)."""

import sys

from pulvezar.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
