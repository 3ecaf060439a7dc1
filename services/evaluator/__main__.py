"""``python -m services.evaluator [--port N] [--metrics-port M] [--device D] ...``."""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys

from services.common import jsonlog
from services.common.server import serve
from services.common.settings import cli_overrides
from services.evaluator.service import EvaluatorServicer, add_to
from services.evaluator.settings import EvaluatorSettings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.evaluator", description=__doc__)
    parser.add_argument("--host")
    parser.add_argument("--port", type=int, help="gRPC port (0: any free port); env PULVEZAR_EVALUATOR_PORT")
    parser.add_argument("--metrics-port", type=int, help="Prometheus port (-1: off)")
    parser.add_argument(
        "--grace-period", dest="grace_period_s", type=float, help="seconds for in-flight RPCs"
    )
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--model-path")
    args = parser.parse_args(argv)
    settings = EvaluatorSettings(**cli_overrides(**vars(args)))
    jsonlog.configure("evaluator", settings.log_level)
    servicer = EvaluatorServicer(settings)
    return asyncio.run(
        serve(
            "evaluator", settings, functools.partial(add_to, servicer=servicer), servicer.warm, servicer.stop
        )
    )


if __name__ == "__main__":
    sys.exit(main())
