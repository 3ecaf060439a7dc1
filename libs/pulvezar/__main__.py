"""``python -m pulvezar``: the command line."""

import sys

from pulvezar.cli import main

if __name__ == "__main__":
    sys.exit(main())
