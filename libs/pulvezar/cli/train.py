"""``pulvezar train``: run or resume TD(lambda) self-play training.

``pulvezar train --workdir DIR [--games N ...]`` runs (or resumes) TD(lambda) self-play
(:mod:`pulvezar.train.td`); ``pulvezar train supervised --workdir DIR --init MODEL_OR_CHECKPOINT``
runs (or resumes) supervised generations on rollout targets instead
(:mod:`pulvezar.train.supervised`); ``pulvezar train average --out M A B ...``
averages the weights of snapshots (:mod:`pulvezar.train.average`); ``pulvezar train compose``
makes a model of nets from several model files (:mod:`pulvezar.train.compose`);
``pulvezar train corpus build|label|run|export|verify|status|measure ...`` builds
the position corpus and its teacher labels (:mod:`pulvezar.train.corpus`, :mod:`pulvezar.train.labels`);
``pulvezar train groups ...`` and ``pulvezar train visited ...`` the decision groups and the positions
visited by rollouts (:mod:`pulvezar.train.groups`, :mod:`pulvezar.train.visited`);
``pulvezar train fit --label-set 1ply --workdir DIR ...`` fits the contact and race nets to
a label set of the corpus (:mod:`pulvezar.train.fit`); ``pulvezar train lookahead build|label|consistency``
makes race positions labelled by a model's own 1-ply look-ahead
(:mod:`pulvezar.train.lookahead`).  ``python -m pulvezar.train ...`` still
runs the same command (deprecated: use ``pulvezar train``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import asdict, fields
from typing import Any

from pulvezar.cli.progress import progress_bar
from pulvezar.train.td import TDConfig, TDTrainer

__all__ = ["add_parser", "main", "run"]

#: the modes of ``pulvezar train`` besides self-play (its first argument)
MODES = ("supervised", "average", "compose", "corpus", "groups", "visited", "fit", "lookahead")


def supervised_main(argv: list[str]) -> int:
    """The ``supervised`` mode: generations of rollout targets and supervised training."""
    from pulvezar.train.supervised import SupervisedConfig, SupervisedRun

    parser = argparse.ArgumentParser(
        prog="pulvezar train supervised",
        description="Supervised generations on pulvezar's own rollout targets (resumable).",
    )
    parser.add_argument(
        "--workdir", required=True, help="positions, targets, nets and generations.csv go here"
    )
    parser.add_argument("--init", help="model file or TD checkpoint of generation 0 (first start only)")
    parser.add_argument("--export", help="write the last generation's nets as a model file when done")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (else drawn on a terminal)")
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
    with progress_bar("generations", "generations", quiet=args.quiet) as bar:
        run.run(log=lambda s: print(s, flush=True), progress=bar)
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
        prog="pulvezar train average", description="Average the weights of snapshots of one run."
    )
    parser.add_argument("--out", required=True, help="the averaged model file")
    parser.add_argument("models", nargs="+", help="model files (snapshots of one run, same shapes)")
    args = parser.parse_args(argv)
    average_models(args.models, args.out)
    print(f"wrote {args.out} (mean of {len(args.models)} models)")
    return 0


def compose_main(argv: list[str]) -> int:
    """The ``compose`` mode: a model file of nets taken from several model files."""
    from pulvezar.train.compose import compose_models

    parser = argparse.ArgumentParser(
        prog="pulvezar train compose", description="A model of nets from several fits."
    )
    parser.add_argument("--base", required=True, help="the model whose other nets and metadata are kept")
    parser.add_argument("--net", action="append", default=[], metavar="NAME=MODEL",
                        help="take net NAME (contact, crashed, race) from MODEL; repeatable")  # fmt: skip
    parser.add_argument("--variant", action="append", default=[], metavar="RULES:NAME=MODEL",
                        help="net NAME of rule set RULES (e.g. tavla+must_bear_off:contact) from MODEL; "
                        "repeatable")  # fmt: skip
    parser.add_argument("--race-table", type=int, choices=(6, 7, 8, 9, 10), metavar="POINTS",
                        help="value races within POINTS points from a one-sided table (6: none beyond the "
                        "home boards; default: the base's)")  # fmt: skip
    parser.add_argument("--out", required=True)
    parser.add_argument("--note", default="")
    args = parser.parse_args(argv)
    nets = {}
    for spec in args.net:
        name, sep, path = spec.partition("=")
        if not sep or not path:
            parser.error(f"--net {spec!r} is not NAME=MODEL")
        nets[name] = path
    variants: dict[str, dict[str, str]] = {}
    for spec in args.variant:
        head, sep, path = spec.partition("=")
        rules, colon, name = head.partition(":")
        if not sep or not path or not colon or not rules or not name:
            parser.error(f"--variant {spec!r} is not RULES:NAME=MODEL")
        variants.setdefault(rules, {})[name] = path
    ev = compose_models(args.base, nets, args.out, args.note, variants, args.race_table)
    print(f"wrote {args.out} (sha256 {ev.info.sha256[:16] if ev.info else '?'})")
    return 0


def corpus_main(argv: list[str]) -> int:
    """The ``corpus`` mode: build the position corpus, label it, export and verify the committed form."""
    import json

    from pulvezar.train.corpus import CorpusBuild, CorpusConfig
    from pulvezar.train.labels import PRESETS, TEACHERS, LabelConfig, LabelRun, export, verify

    parser = argparse.ArgumentParser(
        prog="pulvezar train corpus", description="Position corpus and teacher labels (issue 13)."
    )
    sub = parser.add_subparsers(dest="action", required=True)
    helps = {
        "build": "build (or resume) the corpus in WORKDIR",
        "label": "label (or resume labelling) the corpus in WORKDIR shard by shard",
        "run": "build, then label (one process)",
        "export": "copy the corpus and finished shards to --out with SHA256SUMS",
        "verify": "check the checksums of a committed corpus folder",
        "status": "labels done so far",
        "measure": "milliseconds per position of each teacher on a sample of the corpus",
    }
    subs = {name: sub.add_parser(name, help=text) for name, text in helps.items()}
    for name in ("build", "label", "run", "export", "status", "measure"):
        subs[name].add_argument("--workdir", default="runs/corpus")
    for name in ("build", "run"):
        for f in fields(CorpusConfig):
            if f.name == "explore_rates":
                subs[name].add_argument("--explore-rates", type=float, nargs="+")
            else:
                default = f.default
                subs[name].add_argument(f"--{f.name.replace('_', '-')}", type=type(default), default=default)
    for name in ("label", "run"):
        for f in fields(LabelConfig):
            subs[name].add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
        subs[name].add_argument("--committed", default="data/corpus", help="finished shards to resume from")
        subs[name].add_argument(
            "--set",
            dest="label_sets",
            nargs="+",
            default=["2ply"],
            help="label sets, labelled one after the other (1ply: gnubg-nn-1ply + pulvezar-v2-1ply)",
        )
        subs[name].add_argument("--stop-after", type=int, help="stop after this many shards")
    subs["status"].add_argument("--set", dest="label_sets", nargs="+", default=["2ply"])
    subs["export"].add_argument("--out", default="data/corpus")
    subs["export"].add_argument("--sets", nargs="+", help="label sets to export (default: all)")
    subs["verify"].add_argument("folder", nargs="?", default="data/corpus")
    subs["measure"].add_argument("--n", type=int, default=200)
    subs["measure"].add_argument("--teachers", nargs="+", default=list(TEACHERS[:6]))
    args = parser.parse_args(argv)

    def log(s: str) -> None:
        print(s, flush=True)

    if args.action in ("build", "run"):
        kw = {f.name: getattr(args, f.name) for f in fields(CorpusConfig) if f.name != "explore_rates"}
        cfg = CorpusConfig(**kw)
        if args.explore_rates:
            cfg.explore_rates = list(args.explore_rates)
        CorpusBuild(cfg, args.workdir).build(log)
    if args.action in ("label", "run"):
        given = {f.name: getattr(args, f.name) for f in fields(LabelConfig)}
        for name in args.label_sets:
            lcfg = LabelConfig(**given)
            if name in PRESETS:  # a named set's teachers, unless given on the command line
                lcfg = LabelConfig(**{**asdict(PRESETS[name]), **_explicit(argv, given)})
            run = LabelRun(args.workdir, lcfg, committed=args.committed, label_set=name)
            run.run(log, stop_after=args.stop_after)
            log(json.dumps(LabelRun(args.workdir, label_set=name).status()))
    elif args.action == "export":
        export(args.workdir, args.out, log, args.sets)
    elif args.action == "verify":
        log(f"{args.folder}: {verify(args.folder)} files verified")
    elif args.action == "status":
        for name in args.label_sets:
            log(json.dumps(LabelRun(args.workdir, label_set=name).status(), indent=2))
    elif args.action == "measure":
        _measure(args.workdir, args.n, args.teachers, log)
    return 0


def groups_main(argv: list[str]) -> int:
    """The ``groups`` mode: decision groups of the corpus, their labels, the best plays of each group."""
    from pulvezar.train.groups import GroupsConfig, build, top

    parser = argparse.ArgumentParser(
        prog="pulvezar train groups",
        description="Decision groups: the plays of one roll in each corpus position (issue 13).",
    )
    sub = parser.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build", help="build the groups of the corpus into WORKDIR/corpus.npz")
    b.add_argument("--workdir", default="runs/groups")
    for f in fields(GroupsConfig):
        b.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    _label_parser(sub, "runs/groups", "label (or resume labelling) WORKDIR/corpus.npz with a label set")
    t = sub.add_parser("top", help="the K best plays of each group by a label set, as OUT/corpus.npz")
    t.add_argument("--workdir", default="runs/groups")
    t.add_argument("--set", dest="label_set", default="0ply")
    t.add_argument("--k", type=int, default=4)
    t.add_argument("--out", default="runs/groups-top4")
    d = sub.add_parser(
        "disagree", help="contact groups where two label sets disagree most, as OUT/corpus.npz"
    )
    d.add_argument("--workdir", default="runs/groups-top4")
    d.add_argument("--labels", default="data/groups-top4", help="the folder of both label sets' shards")
    d.add_argument("--sets", nargs=2, default=["2ply", "sage1"])
    d.add_argument("--groups", type=int, default=25_000)
    d.add_argument("--rows", type=int, default=0, help="rank only the first ROWS rows (0: all labelled)")
    d.add_argument("--out", default="runs/groups-disagree")
    args = parser.parse_args(argv)

    def log(text: str) -> None:
        print(text, flush=True)

    if args.action == "build":
        build(
            GroupsConfig(**{f.name: getattr(args, f.name) for f in fields(GroupsConfig)}), args.workdir, log
        )
    elif args.action == "label":
        _label(args, log)
    elif args.action == "disagree":
        from pulvezar.train.disagree import build as disagree

        a, b = args.sets
        disagree(args.workdir, args.labels, args.out, a, b, groups=args.groups, rows=args.rows, log=log)
    else:
        top(args.workdir, args.workdir, args.label_set, args.k, args.out, log)
    return 0


def _label_parser(sub: Any, default_workdir: str, text: str) -> None:
    from pulvezar.train.labels import PRESETS

    lab = sub.add_parser("label", help=text)
    lab.add_argument("--workdir", default=default_workdir)
    lab.add_argument("--set", dest="label_set", default="0ply", choices=sorted(PRESETS))
    lab.add_argument("--committed", default="", help="a folder with finished shards to resume from")
    lab.add_argument("--stop-after", type=int, help="stop after this many shards")


def _label(args: argparse.Namespace, log: Callable[[str], None]) -> None:
    """Label (or resume labelling) ``args.workdir/corpus.npz`` with a named label set."""
    import json

    from pulvezar.train.labels import PRESETS, LabelRun

    committed = args.committed or None
    run = LabelRun(args.workdir, PRESETS[args.label_set], committed=committed, label_set=args.label_set)
    run.run(log, stop_after=args.stop_after)
    log(json.dumps(LabelRun(args.workdir, label_set=args.label_set).status()))


def visited_main(argv: list[str]) -> int:
    """The ``visited`` mode: positions visited by rollouts, and their labels."""
    from pulvezar.train.visited import VisitedConfig, build

    parser = argparse.ArgumentParser(
        prog="pulvezar train visited",
        description="Positions visited by rollouts of real-match positions (issue 13).",
    )
    sub = parser.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build", help="roll out and keep the visited positions in WORKDIR/corpus.npz")
    b.add_argument("--workdir", default="runs/visited")
    for f in fields(VisitedConfig):
        b.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    _label_parser(sub, "runs/visited", "label (or resume labelling) WORKDIR/corpus.npz with a label set")
    args = parser.parse_args(argv)

    def log(text: str) -> None:
        print(text, flush=True)

    if args.action == "build":
        build(
            VisitedConfig(**{f.name: getattr(args, f.name) for f in fields(VisitedConfig)}), args.workdir, log
        )
    else:
        _label(args, log)
    return 0


def _explicit(argv: list[str], given: dict[str, Any]) -> dict[str, Any]:
    """The label settings written on the command line (they override a preset)."""
    return {k: v for k, v in given.items() if f"--{k}" in argv}


def _measure(workdir: str, n: int, teachers: list[str], log: Callable[[str], None]) -> None:
    """Teacher cost per position on the first ``n`` positions of each class and rule family."""
    import json

    import numpy as np

    from pulvezar.train.corpus import CLASSES, RULESETS, boards_of_keys, read_npz
    from pulvezar.train.labels import measure

    corpus = read_npz(f"{workdir}/corpus.npz")
    warm = boards_of_keys(corpus["keys"][corpus["rules"] == 0][-2:])
    measure(teachers, warm)  # loads models and tables outside the timing
    rows = []
    for family, rmask in (("international", corpus["rules"] == 0), ("tavla", corpus["rules"] == 1)):
        for k, cname in enumerate(CLASSES[:3]):
            idx = np.flatnonzero(rmask & (corpus["cls"] == k))[:n]
            if len(idx) == 0:
                continue
            boards = boards_of_keys(corpus["keys"][idx])
            rules = RULESETS[0] if family == "international" else RULESETS[1]
            usable = [t for t in teachers if family == "international" or not t.startswith("gnubg")]
            ms = measure(usable, boards, rules)
            row = {"rules": family, "class": cname, "n": len(idx), **{t: round(v, 3) for t, v in ms.items()}}
            rows.append(row)
            log(json.dumps(row))


def fit_main(argv: list[str]) -> int:
    """The ``fit`` mode: train (or resume) the nets on a corpus label set."""
    from pulvezar.train.fit import FitConfig, FitRun
    from pulvezar.train.labels import PRESETS

    parser = argparse.ArgumentParser(
        prog="pulvezar train fit",
        description="Fit the contact and race nets to the corpus's teacher labels (resumable).",
    )
    parser.add_argument("--workdir", required=True, help="config, checkpoint, curve.csv and model.pt go here")
    for f in fields(FitConfig):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = parser.parse_args(argv)
    config = FitConfig(**{f.name: getattr(args, f.name) for f in fields(FitConfig)})
    if config.label_set not in PRESETS:
        parser.error(f"--label-set is one of {', '.join(PRESETS)}")
    run = FitRun(config, args.workdir)
    run.run(log=lambda s: print(s, flush=True))
    return 0


def lookahead_main(argv: list[str]) -> int:
    """The ``lookahead`` mode: race positions and their 1-ply look-ahead labels (issue 43)."""
    import json

    from pulvezar.eval.evaluator import NetEvaluator
    from pulvezar.train import lookahead as la

    parser = argparse.ArgumentParser(
        prog="pulvezar train lookahead",
        description="Race positions labelled by a model's own 1-ply look-ahead (issue 43).",
    )
    sub = parser.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build", help="corpus, gammon-saving and rollout-visited races in WORKDIR")
    b.add_argument("--workdir", default="runs/lookahead")
    for f in fields(la.LookaheadConfig):
        b.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    lab = sub.add_parser("label", help="label (or resume) WORKDIR's races with MODEL's 1-ply (set lookahead)")
    lab.add_argument("--workdir", default="runs/lookahead")
    lab.add_argument("--model", default=la.DEFAULT_MODEL)
    lab.add_argument("--shard", type=int, default=5_000)
    lab.add_argument("--leaves", choices=la.LEAVES, default="model",
                     help="value the replies by MODEL's nets or gnubg-nn 0-ply (gnubg_nn)")  # fmt: skip
    lab.add_argument("--ply", type=int, choices=(1, 2), default=1, help="the look-ahead's depth")
    lab.add_argument("--from", dest="source", help="copy the positions of this build first (a new round)")
    con = sub.add_parser("consistency", help="mean |V - 1-ply| of MODELs over WORKDIR's held-out races")
    con.add_argument("--workdir", default="runs/lookahead")
    con.add_argument("--rules", default=None, help="the rule set (default: the build's)")
    con.add_argument("models", nargs="+")
    args = parser.parse_args(argv)

    def log(text: str) -> None:
        print(text, flush=True)

    if args.action == "build":
        la.build(la.LookaheadConfig(**{f.name: getattr(args, f.name) for f in fields(la.LookaheadConfig)}),
                 args.workdir, log)  # fmt: skip
    elif args.action == "label":
        if args.source:
            la.next_round(args.source, args.workdir)
        la.label(args.workdir, args.model, args.shard, log, leaves=args.leaves, ply=args.ply)
    else:
        boards = la.heldout_boards(args.workdir)
        rules = la.rules_named(args.rules) if args.rules else la.build_rules(args.workdir)
        for m in args.models:
            got = la.consistency(NetEvaluator.load(m, device="cpu"), boards, rules)
            log(json.dumps({"model": m, "rules": rules.name, **got}))
    return 0


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``train``: its arguments go unparsed to :func:`main`, which parses them per mode."""
    # each mode has a parser of its own (self-play has no mode word), so ``train`` takes the rest of the
    # command line as it is: with a prefix character no argument starts with, argparse reads every
    # argument (``--workdir`` and ``-h`` too) as part of the one positional ``argv``
    train: argparse.ArgumentParser = subparsers.add_parser(
        "train",
        help=f"train the nets: TD(lambda) self-play, or a mode ({', '.join(MODES)})",
        add_help=False,
        prefix_chars="\x00",
    )
    train.add_argument("argv", nargs=argparse.REMAINDER)
    train.set_defaults(func=run)
    return train


def run(args: argparse.Namespace) -> int:
    """Run a parsed ``pulvezar train`` command."""
    return main(list(args.argv))


def main(argv: list[str] | None = None) -> int:
    """``pulvezar train ARGS`` with ``argv`` (None: the process's own arguments)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "corpus":
        return corpus_main(argv[1:])
    if argv and argv[0] == "groups":
        return groups_main(argv[1:])
    if argv and argv[0] == "visited":
        return visited_main(argv[1:])
    if argv and argv[0] == "supervised":
        return supervised_main(argv[1:])
    if argv and argv[0] == "average":
        return average_main(argv[1:])
    if argv and argv[0] == "compose":
        return compose_main(argv[1:])
    if argv and argv[0] == "fit":
        return fit_main(argv[1:])
    if argv and argv[0] == "lookahead":
        return lookahead_main(argv[1:])
    parser = argparse.ArgumentParser(prog="pulvezar train", description=__doc__)
    parser.add_argument("--workdir", required=True, help="checkpoints and curves go here")
    parser.add_argument("--export", help="write the nets as a model file when done")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (else drawn on a terminal)")
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
    with progress_bar("self-play", "games", quiet=args.quiet) as bar:
        trainer.run(log=lambda s: print(s, flush=True), progress=bar)
    if args.export:
        trainer.export(args.export, args.name)
        print(f"wrote {args.export}")
    return 0
