"""Evaluation jobs: many positions evaluated at 0-, 1- or 2-ply as one job (``POST /v1/evaluations``).

``POST /v1/evaluate`` answers at once for a few positions at 0-ply; this kind takes up to 100,000
positions at any search depth, cuts them into chunks of consecutive positions (fewer per chunk the
deeper the search), and the workers evaluate them with the platform's net.  Each chunk is evaluated as
one batch with an empty search cache, so its numbers do not depend on which worker ran it or what it
ran before.  The report lists each position's probabilities and cubeless equity for the player on roll,
``null`` while its chunk is not done.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, TypedDict

import numpy as np
from pydantic import AfterValidator, BaseModel, BeforeValidator, Field

from pulvezar import Position, PulvezarError, Rules
from pulvezar.formats.position_text import read_position_text
from services.common.schemas import RuleSet, read_ogid
from services.jobs.kind import JobKind, JobRequest

MAX_POSITIONS = 100_000
#: positions per chunk by ply (a 2-ply evaluation is about 400 0-ply ones)
CHUNK = {0: 1024, 1: 64, 2: 4}
#: estimated core-seconds of one position's evaluation by ply (bench/job_costs.py checks them)
EVAL_SECONDS = {0: 0.0002, 1: 0.003, 2: 0.06}
NAMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def _position(text: str) -> Position:
    try:
        return read_position_text(text).position  # the library's one reader of position text
    except PulvezarError as e:
        raise ValueError(f"not a Position ID, PositionID:MatchID, XGID or OGID: {e}") from None


def _checked(text: str) -> str:
    """The text checked, an OGID as the XGID of the same game (:func:`~services.common.schemas.read_ogid`)."""
    _position(text)
    return read_ogid(text.strip())


#: the request's rule set: the shared schema (:class:`~services.common.schemas.RuleSet`, checked by the
#: library's codec, a Tavla option with international rules refused on the option's field)
RulesOption = RuleSet


class EvaluationRequest(JobRequest):
    positions: list[Annotated[str, Field(max_length=100), AfterValidator(_checked)]] = Field(
        min_length=1,
        max_length=MAX_POSITIONS,
        description="Position IDs, PositionID:MatchIDs, XGIDs or OGIDs, the player on roll's view",
    )
    ply: int = Field(0, ge=0, le=2, description="search depth: 0 (the net), 1 or 2")
    prune: bool = Field(
        True,
        description="ply 1 or 2: the search prunes the replies (the screening net keeps each roll's 4 best); "
        "false: the unpruned search",
    )
    rules: Annotated[RulesOption, BeforeValidator(lambda v: {"variant": v} if isinstance(v, str) else v)] = (
        RulesOption()
    )


class Probabilities(BaseModel):
    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float


class PositionEvaluation(BaseModel):
    position_id: str
    probabilities: Probabilities
    equity: float = Field(description="cubeless, for the player on roll")


class EvaluationReport(BaseModel):
    ply: int
    evaluated: int = Field(description="positions evaluated so far")
    results: list[PositionEvaluation | None] = Field(description="in the request's order; null: not yet")


#: a chunk: ``[first, count]``, positions ``first .. first + count - 1`` of the request
EvaluationChunk = list[int]


class EvaluationRecord(TypedDict):
    """A chunk's record: its positions' ids, probabilities and equities (the runner adds its timings)."""

    first: int
    position_ids: list[str]
    probabilities: list[list[float]]
    equity: list[float]


class EvaluationReportFields(TypedDict):
    """:class:`EvaluationReport`'s fields."""

    ply: int
    evaluated: int
    results: list[dict[str, Any] | None]


def rules_of(spec: Mapping[str, Any]) -> Rules:
    """The library's rule set of a checked request's ``rules`` (:meth:`pulvezar.Rules.from_dict`)."""
    return Rules.from_dict(spec["rules"])


class Evaluations(JobKind[EvaluationRequest, EvaluationChunk, EvaluationRecord, EvaluationReportFields]):
    name = "evaluation"
    route = "evaluations"
    summary = "many positions evaluated at a search depth, as a job"
    Request = EvaluationRequest
    Report = EvaluationReport

    @classmethod
    def example(cls) -> dict[str, Any]:
        return {"positions": ["4HPwATDgc/ABMA", "jGfkASjg8wcBMA", "4PPgASTgc/ABMA"] * 3, "ply": 1}

    def plan(self, request: EvaluationRequest) -> tuple[dict[str, Any], list[EvaluationChunk]]:
        req = request
        size = CHUNK[req.ply]
        chunks = [
            [first, min(size, len(req.positions) - first)] for first in range(0, len(req.positions), size)
        ]
        spec = {
            "positions": req.positions,
            "ply": req.ply,
            "rules": req.rules.model_dump(),
            "prune": req.prune,
        }
        return spec, chunks

    @classmethod
    def compute(cls, spec: Mapping[str, Any], chunk: EvaluationChunk, evaluator: Any) -> EvaluationRecord:
        from pulvezar.eval.evaluator import equity
        from pulvezar.search.hint import searcher

        first, count = chunk
        rules = rules_of(spec)
        positions = [_position(p) for p in spec["positions"][first : first + count]]
        boards = np.stack([np.frombuffer(p.board, dtype=np.uint8) for p in positions])
        search = searcher(evaluator, rules, bool(spec.get("prune", False)))  # stored before pruning: unpruned
        search.cache.clear()  # a chunk's numbers must not depend on what its process evaluated before
        probs = search.probabilities(boards, spec["ply"])
        return {
            "first": first,
            "position_ids": [p.position_id for p in positions],
            "probabilities": probs.tolist(),
            "equity": equity(probs, rules).tolist(),
        }

    @classmethod
    def report(
        cls, spec: Mapping[str, Any], records: Sequence[EvaluationRecord | None]
    ) -> EvaluationReportFields:
        results: list[dict[str, Any] | None] = [None] * len(spec["positions"])
        for record in records:
            if record is None or "error" in record:
                continue
            for i, (pid, probs, eq) in enumerate(
                zip(record["position_ids"], record["probabilities"], record["equity"], strict=True)
            ):
                results[record["first"] + i] = {
                    "position_id": pid,
                    "probabilities": dict(zip(NAMES, probs, strict=True)),
                    "equity": eq,
                }
        return {"ply": spec["ply"], "evaluated": sum(r is not None for r in results), "results": results}

    @classmethod
    def work(cls, spec: Mapping[str, Any], chunk: EvaluationChunk) -> float:
        return float(chunk[1])

    @classmethod
    def chunk_cost(cls, spec: Mapping[str, Any], chunk: EvaluationChunk) -> float:
        return EVAL_SECONDS[int(spec["ply"])] * float(chunk[1])


KIND = Evaluations
