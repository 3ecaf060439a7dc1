"""Deep analyses of one decision as a job (``POST /v1/deep-analyses``, the app manual's 5.7 preset).

Without dice (and no XGID with rolled dice) the decision is the cube decision before the roll:
:mod:`services.jobs.kinds.deep_cube`.  With dice, a checker play:

Each candidate play of the roll is valued twice, as :func:`pulvezar.rollouts.deep.deep_analysis` does: by a
3-ply search and by a rollout (6,912 trials: two independent seed halves, every candidate with the same dice),
and ranked by the mean of the two; a candidate whose gap to the best is inside the noise band (``z`` standard
errors of the paired difference) is *playable*.  The work fans out over the workers: one chunk per candidate
for the search, and the rollout cut on the fixed chunk grid (:func:`pulvezar.rollouts.chunks.plan_chunks`),
each rollout chunk rolling every candidate over its trials.

The candidates are the request's ``plays``, or else the best ``candidates`` plays of a 1-ply ranking, which
every chunk makes again from the position with its own evaluator (one batch, an empty cache: the same list
on every worker with the same net; each record keeps the list, and the report refuses records that differ).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from pulvezar import PulvezarError
from pulvezar.rollouts.chunks import plan_chunks
from services.jobs.errors import InvalidJob
from services.jobs.kind import JobKind, JobRequest
from services.jobs.kinds import deep_cube
from services.jobs.kinds.deep_cube import DeepChunk
from services.jobs.kinds.evaluations import RulesOption, _checked, _position, rules_of
from services.jobs.rollout_report import decode_values, encode_values

TRIALS, PLY, CANDIDATES = 6912, 3, 5


def _dice(v: Any) -> Any:
    if isinstance(v, str) and len(v) == 2 and v.isdigit():
        return [int(v[0]), int(v[1])]
    return v


RulesField = Annotated[RulesOption, BeforeValidator(lambda v: {"variant": v} if isinstance(v, str) else v)]
Roll = tuple[Annotated[int, Field(ge=1, le=6)], Annotated[int, Field(ge=1, le=6)]]


EXAMPLES: list[Any] = [
    {"position": "4HPwATDgc/ABMA", "dice": "31"},
    {
        "position": "4HPwATDgc/ABMA",
        "dice": [6, 4],
        "trials": 1296,
        "ply": 2,
        "plays": ["24/14", "24/18 13/9", "8/2 6/2"],
    },
    {"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"},
    {
        "position": "4HPwATDgc/ABMA",
        "cube": {"value": 2, "owner": "player", "match_length": 7, "score": 2, "opponent_score": 4},
        "trials": 1296,
    },
]


#: estimated core-seconds of one search by ply (a checker play's value; a cube decision counts two)
SEARCH_SECONDS = {0: 0.001, 1: 0.02, 2: 0.3, 3: 5.0}


class DeepRequest(JobRequest):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": EXAMPLES})
    position: Annotated[str, Field(max_length=100), AfterValidator(_checked)] = Field(
        description="Position ID, PositionID:MatchID, XGID or OGID, the player on roll's view"
    )
    dice: Annotated[Roll | None, BeforeValidator(_dice)] = Field(
        None,
        description='the roll: [3, 1] or "31" (default: the ID\'s rolled dice); none: the cube decision '
        "before the roll",
    )
    cube: dict[str, Any] | None = Field(
        None,
        description="a cube decision's cube and score as the player on roll sees them: value, owner (centre, "
        "player, opponent), match_length (0: money), score, opponent_score, crawford, jacoby, beaver; "
        "default: an XGID's own, else centred money",
    )
    rules: RulesField = Field(
        default_factory=RulesOption, description="international (default) or tavla with its options"
    )
    plays: list[Annotated[str, Field(max_length=40)]] | None = Field(
        None, min_length=1, max_length=12, description="the candidates (notation); default: the best by 1 ply"
    )
    candidates: int = Field(CANDIDATES, ge=2, le=12, description="without plays: how many of the best")
    trials: int = Field(TRIALS, ge=36, le=20_736, description="trials per candidate, a multiple of 36")
    ply: int = Field(PLY, ge=0, le=3, description="the search depth averaged with the rollout")
    seed: int = Field(1, ge=0, lt=2**31, description="the rollout's dice: the same seed, the same dice")
    prune: bool = Field(
        True,
        description="the searches (the candidates' 1-ply ranking, the search averaged with the rollout, a "
        "cube decision's lookahead) prune the replies: the screening net keeps each roll's 4 best; false: "
        "unpruned (the rollout chooses at 0 ply: not affected)",
    )
    z: float = Field(2.0, gt=0, le=5, description="the noise band in standard errors (playable: inside it)")
    player: str | None = Field(
        None, max_length=32, description="the player (POST /v1/players) who sent it: its achievement"
    )

    @model_validator(mode="after")
    def _legal(self) -> DeepRequest:
        if self.trials % 36:
            raise _invalid(("trials",), "a multiple of 36 (whole blocks of first rolls)", self.trials)
        if self.dice is None and ":" in self.position:  # an ID with a game around the board: its dice
            from pulvezar.formats.position_text import read_position_text

            self.dice = read_position_text(self.position).dice
        if self.dice is None:
            return self._cube_decision()
        if self.cube is not None:
            raise _invalid(("cube",), "the cube options are for a cube decision (no dice)", self.cube)
        position, rules = _position(self.position), rules_of({"rules": self.rules.model_dump()})
        legal = rules.legal_plays(position, self.dice)
        if len(legal) < 2:
            why = f"{self.dice[0]}{self.dice[1]} has {len(legal)} legal play here: nothing to compare"
            raise _invalid(("dice",), why, list(self.dice))
        for i, play in enumerate(self.plays or ()):
            try:
                legal.find(play)
            except PulvezarError as e:
                raise _invalid(("plays", i), str(e), play) from None
        return self

    def _cube_decision(self) -> DeepRequest:
        if self.rules.variant != "international":
            raise _invalid(("rules",), "Tavla is played without a cube: give the dice", self.rules.variant)
        if self.plays is not None:
            raise _invalid(("plays",), "a cube decision (no dice) has no plays", self.plays)
        try:
            self.cube = dict(deep_cube.cube_options(self.cube, self.position))
            spec = self.model_dump(exclude={"priority", "player"})
            deep_cube.check(spec)
        except InvalidJob as e:
            raise _invalid(tuple(e.field.split(".")), e.message, self.cube) from None
        return self


def _invalid(loc: tuple[str | int, ...], message: str, given: Any) -> ValidationError:
    """A validation error of the field at ``loc`` (a model check names the field it is about)."""
    detail = InitErrorDetails(type=PydanticCustomError("value_error", message), loc=loc, input=given)
    return ValidationError.from_exception_data("DeepRequest", [detail])


class DeepCandidateOut(BaseModel):
    play: str = Field(description="the play's notation")
    position_id: str = Field(description="the position after it, mover's view")
    ply_equity: float | None = Field(
        description="the search's cubeless equity (null until its chunk is done)"
    )
    ply_probabilities: list[float] | None = Field(description="win, win gammon, win bg, lose gammon, lose bg")
    rollout_equity: float | None = Field(description="the rollout's cubeless equity so far")
    rollout_trials: int = Field(description="trials rolled out so far")
    halves: list[float] | None = Field(description="the combined value with each seed half alone")
    equity: float | None = Field(description="(search + rollout) / 2, once both are there")
    noise: float | None = Field(description="standard error of equity (half the rollout's block noise)")
    loss: float | None = Field(description="the best candidate's equity minus this one's")
    loss_noise: float | None = Field(description="standard error of loss (paired: the same dice)")
    playable: bool | None = Field(description="the loss is inside z x loss_noise of the best")


class DeepReport(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "ply": 3,
                    "trials": 6912,
                    "trials_done": 6912,
                    "cube": None,
                    "candidates": [
                        {
                            "play": "24/18 13/9",
                            "position_id": "4HPwATDgc/ACIA",
                            "ply_equity": 0.0012,
                            "ply_probabilities": [0.5, 0.14, 0.01, 0.13, 0.01],
                            "rollout_equity": 0.0031,
                            "rollout_trials": 6912,
                            "halves": [0.0019, 0.0025],
                            "equity": 0.0022,
                            "noise": 0.0011,
                            "loss": 0.0,
                            "loss_noise": 0.0,
                            "playable": True,
                        },
                        {
                            "play": "24/14",
                            "position_id": "4HPwATDgc/ABKA",
                            "ply_equity": -0.0031,
                            "ply_probabilities": [0.49, 0.13, 0.01, 0.13, 0.01],
                            "rollout_equity": 0.0004,
                            "rollout_trials": 6912,
                            "halves": [-0.0018, -0.0009],
                            "equity": -0.0014,
                            "noise": 0.0011,
                            "loss": 0.0036,
                            "loss_noise": 0.0008,
                            "playable": False,
                        },
                    ],
                }
            ]
        }
    )
    ply: int = Field(description="the search depth")
    trials: int = Field(description="rollout trials per candidate asked for")
    trials_done: int = Field(description="rollout trials per candidate done")
    candidates: list[DeepCandidateOut] = Field(
        description="a checker play's: best first once ranked; the chunk order before (none: a cube decision)"
    )
    cube: deep_cube.DeepCubeOut | None = Field(None, description="a cube decision's values and decision")


def pruned(spec: Mapping[str, Any]) -> bool:
    """Whether the job's searches prune (a job stored before ``prune`` existed: unpruned)."""
    return bool(spec.get("prune", False))


def candidates_of(spec: Mapping[str, Any], evaluator: Any) -> list[Any]:
    """The candidate plays: the given ones, or the best by a 1-ply ranking with an empty cache."""
    from pulvezar.search.hint import searcher

    position, rules, dice = _position(spec["position"]), rules_of(spec), tuple(spec["dice"])
    legal = rules.legal_plays(position, dice)
    if spec["plays"]:
        return [legal.find(p) for p in spec["plays"]]
    search = searcher(evaluator, rules, pruned(spec))
    search.cache.clear()
    ranked = search.rank(position, dice, 1)
    return [c.play for c in ranked[: spec["candidates"]]]


class DeepAnalyses(JobKind[DeepRequest, DeepChunk, dict[str, Any], dict[str, Any]]):
    """A deep analysis: chunks :data:`~services.jobs.kinds.deep_cube.DeepChunk`, records per part (a
    candidate's search, a rollout chunk of every candidate, the cube's search or rollout)."""

    name = "deep"
    route = "deep-analyses"
    noun = "deep analysis"
    summary = (
        "one decision (a checker play, or the cube before the roll): a search plus a 6,912-trial rollout"
    )
    Request = DeepRequest
    Report = DeepReport

    @classmethod
    def example(cls) -> dict[str, Any]:
        # a race (88 pips against 111): its rollouts end in a few rolls
        return {"position": "cHfuAAC4ezcAAA", "dice": [6, 4], "candidates": 2, "trials": 36, "ply": 1}

    def admit(self, request: DeepRequest, owner: str | None) -> None:
        if request.player is None:
            return
        from services.store.players import PlayerRecords

        if PlayerRecords(self.records.url).get(owner, request.player) is None:
            raise InvalidJob("player", f"no player {request.player!r} of this key")

    def accepted(self, request: DeepRequest, owner: str | None, job_id: str) -> None:
        if request.player is not None:
            from services.store.players import PlayerRecords

            PlayerRecords(self.records.url).reach(owner, request.player, "deep_analysis")

    def plan(self, request: DeepRequest) -> tuple[dict[str, Any], list[DeepChunk]]:
        req = request
        grid = plan_chunks(req.trials, self.settings.chunk_size)
        fields = req.model_dump(exclude={"priority", "player"})
        chunks: list[DeepChunk]
        if req.dice is None:
            chunks = [["cube-ply"]]
            return fields, chunks + [["cube-rollout", first, k] for first, k in grid]
        n = len(req.plays) if req.plays else req.candidates
        chunks = [["ply", i] for i in range(n)]
        chunks += [["rollout", first, k] for first, k in grid]
        fields["dice"] = list(req.dice)
        return fields, chunks

    @classmethod
    def compute(cls, spec: Mapping[str, Any], chunk: DeepChunk, evaluator: Any) -> dict[str, Any]:
        from pulvezar.eval.evaluator import boards_of, equity
        from pulvezar.rollouts.engine import rollout_plays
        from pulvezar.search.hint import searcher

        if spec["dice"] is None:
            return deep_cube.compute(spec, chunk, evaluator)
        plays = candidates_of(spec, evaluator)
        ids = [p.position.position_id for p in plays]
        rules = rules_of(spec)
        if chunk[0] == "ply":
            i = int(chunk[1])
            if i >= len(plays):  # fewer legal plays than candidates asked for
                return {"part": "ply", "i": i, "ids": ids, "probs": None, "equity": None}
            search = searcher(evaluator, rules, pruned(spec))
            search.cache.clear()
            probs = search.play_probabilities(boards_of([plays[i].position]), spec["ply"])
            return {"part": "ply", "i": i, "ids": ids, "probs": probs[0].tolist(),
                    "equity": float(equity(probs, rules)[0])}  # fmt: skip
        first, trials = int(chunk[1]), int(chunk[2])
        rolled = rollout_plays(
            _position(spec["position"]), tuple(spec["dice"]), plays, trials=trials, first_trial=first,
            seed=spec["seed"], evaluator=evaluator, rules=rules,
        )  # fmt: skip
        values = np.stack([r.values for r in rolled])
        return {"part": "rollout", "first": first, "trials": trials, "ids": ids, **encode_values(values)}

    @classmethod
    def report(cls, spec: Mapping[str, Any], records: Sequence[dict[str, Any] | None]) -> dict[str, Any]:
        from pulvezar.rollouts.stats import RolloutResult, difference_noise

        done = [r for r in records if r is not None and "error" not in r]
        out: dict[str, Any] = {
            "ply": spec["ply"],
            "trials": spec["trials"],
            "trials_done": 0,
            "candidates": [],
            "cube": None,
        }
        if spec["dice"] is None:
            return {**out, **deep_cube.report(spec, done)}
        if not done:
            return out
        ids = done[0]["ids"]
        if any(r["ids"] != ids for r in done):
            raise ValueError("the chunks ranked different candidates (workers with different nets?)")
        rules = rules_of(spec)
        legal = {p.position.position_id: p.notation for p in
                 rules.legal_plays(_position(spec["position"]), tuple(spec["dice"]))}  # fmt: skip
        ply = {r["i"]: r for r in done if r["part"] == "ply"}
        parts: list[list[RolloutResult]] = [[] for _ in ids]
        for r in sorted((r for r in done if r["part"] == "rollout"), key=lambda r: r["first"]):
            values = decode_values(r).reshape(len(ids), r["trials"], 5)
            trial_ids = np.arange(r["first"], r["first"] + r["trials"], dtype=np.int64)
            for i in range(len(ids)):
                parts[i].append(RolloutResult(trial_ids, values[i], spec["seed"], rules, True))
        rolled = [RolloutResult.merge(p) if p else None for p in parts]
        out["trials_done"] = rolled[0].trials if rolled[0] is not None else 0
        cands = [_candidate(legal[pid], pid, ply.get(c), rolled[c]) for c, pid in enumerate(ids)]
        if all(c["equity"] is not None for c in cands):
            cands.sort(key=lambda c: -c["equity"])
            best = cands[0]
            for c in cands:
                c["loss"] = best["equity"] - c["equity"]
                c["loss_noise"] = 0.0 if c is best else 0.5 * difference_noise(best["_ro"], c["_ro"])
                c["playable"] = c["loss"] <= spec["z"] * c["loss_noise"]
        for c in cands:
            c.pop("_ro")
        out["candidates"] = cands
        return out

    @classmethod
    def work(cls, spec: Mapping[str, Any], chunk: DeepChunk) -> float:
        # a 3-ply value of one play costs about as much as 36 rollout trials of all candidates (a guess
        # for the ETA only)
        return 36.0 if chunk[0] in ("ply", "cube-ply") else float(chunk[2])

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: DeepChunk) -> float:
        """A search of one candidate (or of the cube decision) at the spec's ply, or a rollout chunk's
        trials of every candidate (0 ply with variance reduction, :func:`item_cost`)."""
        from services.jobs.rollout_items import item_cost

        if chunk[0] in ("ply", "cube-ply"):
            return SEARCH_SECONDS[int(spec["ply"])] * (2 if chunk[0] == "cube-ply" else 1)
        if chunk[0] == "cube-rollout":
            return item_cost({"kind": "cube", "ply": 0}, int(chunk[2]))
        candidates = len(spec["plays"]) if spec.get("plays") else int(spec["candidates"])
        return item_cost({"ply": 0, "plays": [None] * candidates}, int(chunk[2]))


def _candidate(play: str, pid: str, p: Mapping[str, Any] | None, ro: Any) -> dict[str, Any]:
    """One candidate's values so far (``p``: its search record; ``ro``: its merged rollout or None)."""
    ply_eq = None if p is None else p["equity"]
    halves = equity = noise = None
    if ro is not None and ro.trials >= 72:  # both seed halves have trials
        noise = 0.5 * ro.noise
        if ply_eq is not None:
            halves = [0.5 * (ply_eq + h.equity) for h in ro.halves]
    if ro is not None and ply_eq is not None:
        equity = 0.5 * (ply_eq + ro.equity)
    return {
        "play": play, "position_id": pid, "ply_equity": ply_eq,
        "ply_probabilities": None if p is None else p["probs"],
        "rollout_equity": None if ro is None else ro.equity, "rollout_trials": 0 if ro is None else ro.trials,
        "halves": halves, "equity": equity, "noise": noise, "loss": None, "loss_noise": None,
        "playable": None, "_ro": ro,
    }  # fmt: skip


KIND = DeepAnalyses
