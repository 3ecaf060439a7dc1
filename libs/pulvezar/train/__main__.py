"""``python -m pulvezar.train``: run or resume TD(lambda) self-play training."""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields

from pulvezar.train.td import TDConfig, TDTrainer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pulvezar.train", description=__doc__)
    parser.add_argument("--workdir", required=True, help="checkpoints and curves go here")
    parser.add_argument("--export", help="write the nets as a model file when done")
    parser.add_argument("--name", default="td", help="run name recorded in the model file")
    for f in fields(TDConfig):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = parser.parse_args(argv)
    config = TDConfig(**{f.name: getattr(args, f.name) for f in fields(TDConfig)})
    saved = TDTrainer.saved_config(args.workdir)
    if saved is not None:  # a run continues with its own settings; only its length may change
        saved.games = config.games
        config = saved
    trainer = TDTrainer(config, args.workdir)
    if trainer.resume():
        print(f"resumed at {trainer.state.games_done} games", flush=True)
    trainer.run(log=lambda s: print(s, flush=True))
    if args.export:
        trainer.export(args.export, args.name)
        print(f"wrote {args.export}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
