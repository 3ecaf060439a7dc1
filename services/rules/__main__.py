"""``python -m services.rules [--host H] [--port N] [--metrics-port M] [--grace-period S]``."""

from __future__ import annotations

import argparse
import asyncio
import sys

from services.common import jsonlog
from services.common.server import serve
from services.common.settings import cli_overrides
from services.rules import service
from services.rules.settings import RulesSettings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.rules", description=__doc__)
    parser.add_argument("--host")
    parser.add_argument("--port", type=int, help="gRPC port (0: any free port); env PULVEZAR_RULES_PORT")
    parser.add_argument(
        "--metrics-port", type=int, help="Prometheus port (-1: off); PULVEZAR_RULES_METRICS_PORT"
    )
    parser.add_argument(
        "--grace-period", dest="grace_period_s", type=float, help="seconds for in-flight RPCs"
    )
    args = parser.parse_args(argv)
    settings = RulesSettings(**cli_overrides(**vars(args)))
    jsonlog.configure("rules", settings.log_level)
    return asyncio.run(serve("rules", settings, service.add_to, service.warm))


if __name__ == "__main__":
    sys.exit(main())
