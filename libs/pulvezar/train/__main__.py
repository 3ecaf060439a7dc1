"""``python -m pulvezar.train``: run or resume TD(lambda) self-play training.

``python -m pulvezar.train supervised --workdir DIR --init MODEL_OR_CHECKPOINT``
runs (or resumes) supervised generations on rollout targets instead
(:mod:`pulvezar.train.supervised`); ``python -m pulvezar.train average --out M A B ...``
averages the weights of snapshots (:mod:`pulvezar.train.average`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields

from pulvezar.train.td import TDConfig, TDTrainer


def supervised_main(argv: list[str]) -> int:
    """The ``supervised`` mode: generations of rollout targets and supervised training."""
    from pulvezar.train.supervised import SupervisedConfig, SupervisedRun

    parser = argparse.ArgumentParser(
        prog="python -m pulvezar.train supervised",
        description="Supervised generations on pulvezar's own rollout targets (resumable).",
    )
    parser.add_argument(
        "--workdir", required=True, help="positions, targets, nets and generations.csv go here"
    )
    parser.add_argument("--init", help="model file or TD checkpoint of generation 0 (first start only)")
    parser.add_argument("--export", help="write the last generation's nets as a model file when done")
    for f in fields(SupervisedConfig):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = parser.parse_args(argv)
    config = SupervisedConfig(**{f.name: getattr(args, f.name) for f in fields(SupervisedConfig)})
    saved = SupervisedRun.saved_config(args.workdir)
    if saved is not None:  # a run continues with its own settings; only its length and device may change
        saved.generations, saved.device = config.generations, config.device
        config = saved
    run = SupervisedRun(config, args.workdir)
    if not run.model_path(0).exists():
        if not args.init:
            parser.error("--init is needed to start a run")
        run.start(args.init)
    elif run.generations_done():
        print(f"resumed after generation {run.generations_done()}", flush=True)
    run.run(log=lambda s: print(s, flush=True))
    if args.export:
        from pathlib import Path
        from shutil import copyfile

        g = run.generations_done()
        out = Path(args.export)
        out.parent.mkdir(parents=True, exist_ok=True)
        copyfile(run.model_path(g), out)  # the metadata file keeps its checksum
        copyfile(run.model_path(g).with_suffix(".json"), out.with_suffix(".json"))
        print(f"wrote {args.export} (generation {g})")
    return 0


def average_main(argv: list[str]) -> int:
    """The ``average`` mode: the mean of several snapshots' weights as a new model file."""
    from pulvezar.train.average import average_models

    parser = argparse.ArgumentParser(
        prog="python -m pulvezar.train average", description="Average the weights of snapshots of one run."
    )
    parser.add_argument("--out", required=True, help="the averaged model file")
    parser.add_argument("models", nargs="+", help="model files (snapshots of one run, same shapes)")
    args = parser.parse_args(argv)
    average_models(args.models, args.out)
    print(f"wrote {args.out} (mean of {len(args.models)} models)")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "supervised":
        return supervised_main(argv[1:])
    if argv and argv[0] == "average":
        return average_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m pulvezar.train", description=__doc__)
    parser.add_argument("--workdir", required=True, help="checkpoints and curves go here")
    parser.add_argument("--export", help="write the nets as a model file when done")
    parser.add_argument("--name", default="td", help="run name recorded in the model file")
    parser.add_argument(
        "--widen-contact",
        type=int,
        help="give a resumed run's contact net more units (keeps its values)",
    )
    parser.add_argument(
        "--set-lr",
        type=float,
        help="change a resumed run's learning rate from here on (recorded)",
    )
    parser.add_argument(
        "--set-snapshot-every", type=int, help="write a resumed run's model snapshots this often (games)"
    )
    for f in fields(TDConfig):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = parser.parse_args(argv)
    config = TDConfig(**{f.name: getattr(args, f.name) for f in fields(TDConfig)})
    saved = TDTrainer.saved_config(args.workdir)
    if saved is not None:  # a run continues with its own settings; only its length may change
        saved.games = config.games
        config = saved
    if args.set_snapshot_every is not None:  # snapshots are copies: they do not change the run
        config.snapshot_every = args.set_snapshot_every
    trainer = TDTrainer(config, args.workdir)
    if trainer.resume():
        print(f"resumed at {trainer.state.games_done} games", flush=True)
    if args.widen_contact is not None:
        trainer.widen_contact(args.widen_contact)
        print(
            f"contact net widened to {args.widen_contact} units at game {trainer.state.games_done}",
            flush=True,
        )
    if args.set_lr is not None:
        trainer.set_lr(args.set_lr)
        print(f"learning rate {args.set_lr} from game {trainer.state.games_done}", flush=True)
    trainer.run(log=lambda s: print(s, flush=True))
    if args.export:
        trainer.export(args.export, args.name)
        print(f"wrote {args.export}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
