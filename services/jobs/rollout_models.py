"""The typed report of a rollout job: what :meth:`services.jobs.kinds.rollout.Rollouts.status` and
:meth:`~services.jobs.kinds.rollout.Rollouts.result` return, field by field.

The store builds plain dicts (:func:`services.jobs.rollout_report.summarize`); these models describe
them (the gateway's ``Job`` extends :class:`RolloutReport` with its links).  A key the store leaves
out for some shapes is an optional field here: serialise with ``exclude_unset=True`` so that an
absent key stays absent, and a ``None`` the store gave stays ``null``.  Every model forbids other
keys, so that a key the store adds without a field here fails loudly (in the tests) instead of
vanishing from the responses.

Item shapes (one per position of the job, in order):

- :class:`PositionReport`: the position as a whole (``equity``, ``se``, ``probabilities``...) or,
  with dice, its candidate plays (``dice``, ``candidates``: :class:`CandidateReport`); ``full``
  reports (the final result) add halves, errors, differences to the best and ``playable``; cubeful
  rollouts add ``cube`` and the ``cubeful_*`` fields.
- :class:`CubeReport` (``kind: "cube"``): the cube decision before the roll: ``action``, ``nd``,
  ``dt``, ``dp``, their noise, the ``costs`` and, in a match, ``mwc``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, with_config

from services.jobs.provenance import EnginesField, ProvenanceField
from services.jobs.rollout_items import CubeSpec
from services.jobs.states import JobState

__all__ = [
    "CandidateReport",
    "CubeMWC",
    "CubeReport",
    "CubeSetting",
    "ItemReport",
    "JobState",
    "PositionReport",
    "RolloutReport",
    "RolloutSummary",
]

Number = float | None  # None: not finite (the store writes no NaN into JSON)


class Report(BaseModel):
    """A part of a report: declared keys only."""

    model_config = ConfigDict(extra="forbid")


@with_config(ConfigDict(extra="forbid"))
class CubeSetting(CubeSpec):
    """The cube and score of a cubeful item, as the player on roll sees it (normalised)."""


class RolloutSummary(Report):
    """A rollout's numbers (cubeless equity from the player on roll's side)."""

    trials: int = Field(description="trials rolled out so far")
    equity: Number = Field(description="cubeless equity per unit stake")
    se: Number = Field(description="standard error of the equity (the rollout's noise)")
    probabilities: list[Number] = Field(
        description="win, win gammon, win backgammon, lose gammon, lose backgammon (0..1)"
    )
    cubeful_equity: Number | None = Field(
        None,
        description="cubeful rollouts: cubeful equity, normalised to the starting cube (money) or EMG "
        "(match)",
    )
    cubeful_se: Number | None = Field(None, description="cubeful rollouts: standard error of cubeful_equity")


class CandidateReport(Report):
    """One candidate play of an item with dice; the numbers once a chunk of it is done."""

    play: str = Field(description="the play in notation")
    position_id: str = Field(description="the Position ID after the play")
    trials: int | None = Field(None, description="trials rolled out so far (absent before the first chunk)")
    equity: Number | None = Field(None, description="cubeless equity after the play (the player's side)")
    se: Number | None = Field(None, description="standard error of the equity")
    probabilities: list[Number] | None = Field(
        None, description="win, win gammon, win backgammon, lose gammon, lose backgammon (0..1)"
    )
    cubeful_equity: Number | None = Field(None, description="cubeful rollouts: cubeful equity")
    cubeful_se: Number | None = Field(None, description="cubeful rollouts: its standard error")
    equity_se: Number | None = Field(
        None, description="result only: standard error of the equity from blocks of trials"
    )
    difference: Number | None = Field(None, description="result only: equity minus the best candidate's")
    difference_se: Number | None = Field(
        None, description="result only: noise of the difference (paired: the same dice); 0 for the best"
    )
    playable: bool | None = Field(None, description="result only: within the noise of the best")
    cubeful_equity_se: Number | None = Field(
        None, description="result of cubeful rollouts: standard error of the cubeful equity"
    )
    cubeful_halves: list[Number] | None = Field(
        None, description="result of cubeful rollouts: cubeful equity of each seed half (null: no trials)"
    )
    cubeful_difference: Number | None = Field(
        None, description="result of cubeful rollouts: cubeful equity minus the best candidate's"
    )
    cubeful_difference_se: Number | None = Field(
        None, description="result of cubeful rollouts: noise of the cubeful difference; 0 for the best"
    )


class PositionReport(Report):
    """An item rolled out as a position (no dice) or as the candidate plays of a roll (``dice``)."""

    position: str = Field(description="the position as given (Position ID or XGID)")
    position_id: str = Field(description="its Position ID")
    trials: int = Field(description="trials rolled out so far (per candidate)")
    label: str | None = Field(None, description="batches: the client's name for it, if it gave one")
    ply: int = Field(description="the search depth of each trial's plays")
    prune: bool | None = Field(
        None, description="ply 1 or 2: whether the trials' search pruned its replies (null at ply 0)"
    )
    cubeful: bool = Field(description="the cube was played in the trials")
    cube: CubeSetting | None = Field(None, description="cubeful rollouts only: the cube and score")
    equity: Number | None = Field(None, description="no dice, once a chunk is done: cubeless equity")
    se: Number | None = Field(None, description="no dice: standard error of the equity")
    probabilities: list[Number] | None = Field(
        None, description="no dice: win, win gammon, win backgammon, lose gammon, lose backgammon"
    )
    cubeful_equity: Number | None = Field(None, description="no dice, cubeful: cubeful equity")
    cubeful_se: Number | None = Field(None, description="no dice, cubeful: its standard error")
    equity_se: Number | None = Field(
        None, description="no dice, result only: standard error of the equity from blocks of trials"
    )
    probability_se: list[Number] | None = Field(
        None, description="no dice, result only: the standard error of each probability"
    )
    halves: list[Number] | None = Field(
        None, description="no dice, result only: the equity of each seed half (null: no trials)"
    )
    cubeful_equity_se: Number | None = Field(
        None, description="no dice, result of a cubeful rollout: standard error of the cubeful equity"
    )
    cubeful_halves: list[Number] | None = Field(
        None, description="no dice, result of a cubeful rollout: cubeful equity of each seed half"
    )
    dice: tuple[int, int] | None = Field(
        None, description="with dice only: the roll whose plays are rolled out"
    )
    candidates: list[CandidateReport] | None = Field(
        None, description="with dice only: the candidate plays, in the order given"
    )


class CubeMWC(Report):
    """Match-winning chances of the cube actions (a match only)."""

    nd: Number = Field(description="no double")
    dt: Number = Field(description="double/take (null where the player cannot double)")
    dp: Number = Field(description="double/pass (null where the player cannot double)")


class CubeReport(Report):
    """An item of ``kind: "cube"``: its cube decision before the roll; the decision once a chunk is done."""

    position: str = Field(description="the position as given (Position ID or XGID)")
    position_id: str = Field(description="its Position ID")
    trials: int = Field(description="trials rolled out so far")
    label: str | None = Field(None, description="batches: the client's name for it, if it gave one")
    kind: Literal["cube"] = Field(description="a cube decision")
    ply: int = Field(description="the search depth of each trial's plays")
    prune: bool | None = Field(
        None, description="ply 1 or 2: whether the trials' search pruned its replies (null at ply 0)"
    )
    cubeful: Literal[True] = Field(description="always cubeful")
    cube: CubeSetting = Field(description="the cube and score")
    action: str | None = Field(None, description='the right action, e.g. "Double, take"')
    double: bool | None = Field(None, description="whether to double")
    response: Literal["take", "pass", "beaver"] | None = Field(
        None, description="the taker's right response (null where the player cannot double)"
    )
    nd: Number | None = Field(
        None, description="no double: cubeful equity, normalised to the present cube (match: EMG)"
    )
    nd_se: Number | None = Field(None, description="standard error of nd")
    dt: Number | None = Field(None, description="double/take (null where the player cannot double)")
    dt_se: Number | None = Field(None, description="standard error of dt")
    dp: Number | None = Field(None, description="double/pass, exact (null where the player cannot double)")
    noise: Number | None = Field(None, description="noise of dt - nd (paired: the same dice)")
    costs: dict[str, Number] | None = Field(
        None,
        description="the cost of each action (no double, double, take, pass, beaver) against the right one",
    )
    cubeless: RolloutSummary | None = Field(None, description="the no-double rollout's cubeless numbers")
    mwc: CubeMWC | None = Field(None, description="a match only: the match-winning chances of the actions")
    nd_halves: list[Number] | None = Field(
        None, description="result only: nd of each seed half (null: no trials)"
    )
    dt_halves: list[Number] | None = Field(
        None, description="result only, where the player can double: dt of each seed half"
    )


def _item_kind(value: Any) -> str:
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return "cube" if kind == "cube" else "position"


ItemReport = Annotated[
    Annotated[PositionReport, Tag("position")] | Annotated[CubeReport, Tag("cube")],
    Discriminator(_item_kind),
]


class RolloutReport(Report):
    """A rollout or batch job's status (partial results) or final report (``result``)."""

    job_id: str = Field(description="the job's id")
    kind: Literal["rollout", "batch"] = Field(description="one position, or a batch of positions")
    priority: str = Field(description="interactive or batch: the queue its chunks go to")
    state: JobState = Field(description="queued, running, done, failed or cancelled")
    error: str | None = Field(description="why it failed")
    trials_done: int = Field(description="trials finished, all positions together")
    trials_total: int = Field(description="trials of the job, all positions together")
    chunks_done: int = Field(description="chunks finished")
    chunks_total: int = Field(description="chunks of the job")
    progress: float = Field(description="trials done / total (0..1)")
    eta_s: float | None = Field(description="seconds left; null until a chunk is done (or cancelled, failed)")
    elapsed_s: float | None = Field(description="seconds from the first chunk's start to the last's end")
    positions: int = Field(description="positions (items) of the job")
    created: float = Field(description="seconds since the epoch (UTC)")
    provenance: ProvenanceField = None
    engines: EnginesField = None
    results: list[ItemReport] = Field(description="per position, in order: its report so far")
