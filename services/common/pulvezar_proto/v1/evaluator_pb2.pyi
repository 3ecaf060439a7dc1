from . import rules_pb2 as _rules_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FloatFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FLOAT_FORMAT_UNSPECIFIED: _ClassVar[FloatFormat]
    FLOAT_FORMAT_FLOAT64: _ClassVar[FloatFormat]
    FLOAT_FORMAT_FLOAT32: _ClassVar[FloatFormat]

class CubeOwner(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CUBE_OWNER_UNSPECIFIED: _ClassVar[CubeOwner]
    CUBE_OWNER_CENTRE: _ClassVar[CubeOwner]
    CUBE_OWNER_PLAYER: _ClassVar[CubeOwner]
    CUBE_OWNER_OPPONENT: _ClassVar[CubeOwner]

class Level(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEVEL_UNSPECIFIED: _ClassVar[Level]
    LEVEL_EASY: _ClassVar[Level]
    LEVEL_MEDIUM: _ClassVar[Level]
    LEVEL_HARD: _ClassVar[Level]
    LEVEL_MASTER: _ClassVar[Level]

class Side(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIDE_UNSPECIFIED: _ClassVar[Side]
    SIDE_PLAYER: _ClassVar[Side]
    SIDE_OPPONENT: _ClassVar[Side]

class BotAsk(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_ASK_UNSPECIFIED: _ClassVar[BotAsk]
    BOT_ASK_PLAY: _ClassVar[BotAsk]
    BOT_ASK_RESIGN: _ClassVar[BotAsk]
    BOT_ASK_DOUBLE: _ClassVar[BotAsk]
    BOT_ASK_TAKE: _ClassVar[BotAsk]
    BOT_ASK_BEAVER: _ClassVar[BotAsk]
    BOT_ASK_RACCOON: _ClassVar[BotAsk]
    BOT_ASK_ACCEPT: _ClassVar[BotAsk]

class TrainerAsk(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRAINER_ASK_UNSPECIFIED: _ClassVar[TrainerAsk]
    TRAINER_ASK_HINT: _ClassVar[TrainerAsk]
    TRAINER_ASK_PLAY: _ClassVar[TrainerAsk]
    TRAINER_ASK_DOUBLE: _ClassVar[TrainerAsk]
    TRAINER_ASK_ANSWER: _ClassVar[TrainerAsk]
FLOAT_FORMAT_UNSPECIFIED: FloatFormat
FLOAT_FORMAT_FLOAT64: FloatFormat
FLOAT_FORMAT_FLOAT32: FloatFormat
CUBE_OWNER_UNSPECIFIED: CubeOwner
CUBE_OWNER_CENTRE: CubeOwner
CUBE_OWNER_PLAYER: CubeOwner
CUBE_OWNER_OPPONENT: CubeOwner
LEVEL_UNSPECIFIED: Level
LEVEL_EASY: Level
LEVEL_MEDIUM: Level
LEVEL_HARD: Level
LEVEL_MASTER: Level
SIDE_UNSPECIFIED: Side
SIDE_PLAYER: Side
SIDE_OPPONENT: Side
BOT_ASK_UNSPECIFIED: BotAsk
BOT_ASK_PLAY: BotAsk
BOT_ASK_RESIGN: BotAsk
BOT_ASK_DOUBLE: BotAsk
BOT_ASK_TAKE: BotAsk
BOT_ASK_BEAVER: BotAsk
BOT_ASK_RACCOON: BotAsk
BOT_ASK_ACCEPT: BotAsk
TRAINER_ASK_UNSPECIFIED: TrainerAsk
TRAINER_ASK_HINT: TrainerAsk
TRAINER_ASK_PLAY: TrainerAsk
TRAINER_ASK_DOUBLE: TrainerAsk
TRAINER_ASK_ANSWER: TrainerAsk

class Probabilities(_message.Message):
    __slots__ = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
    WIN_FIELD_NUMBER: _ClassVar[int]
    WIN_GAMMON_FIELD_NUMBER: _ClassVar[int]
    WIN_BACKGAMMON_FIELD_NUMBER: _ClassVar[int]
    LOSE_GAMMON_FIELD_NUMBER: _ClassVar[int]
    LOSE_BACKGAMMON_FIELD_NUMBER: _ClassVar[int]
    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    def __init__(self, win: _Optional[float] = ..., win_gammon: _Optional[float] = ..., win_backgammon: _Optional[float] = ..., lose_gammon: _Optional[float] = ..., lose_backgammon: _Optional[float] = ...) -> None: ...

class Evaluation(_message.Message):
    __slots__ = ("probabilities", "equity")
    PROBABILITIES_FIELD_NUMBER: _ClassVar[int]
    EQUITY_FIELD_NUMBER: _ClassVar[int]
    probabilities: Probabilities
    equity: float
    def __init__(self, probabilities: _Optional[_Union[Probabilities, _Mapping]] = ..., equity: _Optional[float] = ...) -> None: ...

class EvaluateRequest(_message.Message):
    __slots__ = ("positions", "rules")
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    positions: _containers.RepeatedCompositeFieldContainer[_rules_pb2.PositionRef]
    rules: _rules_pb2.RuleSet
    def __init__(self, positions: _Optional[_Iterable[_Union[_rules_pb2.PositionRef, _Mapping]]] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ...) -> None: ...

class EvaluateResponse(_message.Message):
    __slots__ = ("evaluations", "model")
    EVALUATIONS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    evaluations: _containers.RepeatedCompositeFieldContainer[Evaluation]
    model: str
    def __init__(self, evaluations: _Optional[_Iterable[_Union[Evaluation, _Mapping]]] = ..., model: _Optional[str] = ...) -> None: ...

class EvaluatePackedRequest(_message.Message):
    __slots__ = ("boards", "format", "rules")
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    boards: bytes
    format: FloatFormat
    rules: _rules_pb2.RuleSet
    def __init__(self, boards: _Optional[bytes] = ..., format: _Optional[_Union[FloatFormat, str]] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ...) -> None: ...

class EvaluatePackedResponse(_message.Message):
    __slots__ = ("probabilities", "format", "count", "model")
    PROBABILITIES_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    probabilities: bytes
    format: FloatFormat
    count: int
    model: str
    def __init__(self, probabilities: _Optional[bytes] = ..., format: _Optional[_Union[FloatFormat, str]] = ..., count: _Optional[int] = ..., model: _Optional[str] = ...) -> None: ...

class ModelInfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ModelInfoResponse(_message.Message):
    __slots__ = ("model", "name", "device", "accelerator", "max_packed_boards", "variants", "race_table_points")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    ACCELERATOR_FIELD_NUMBER: _ClassVar[int]
    MAX_PACKED_BOARDS_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    RACE_TABLE_POINTS_FIELD_NUMBER: _ClassVar[int]
    model: str
    name: str
    device: str
    accelerator: bool
    max_packed_boards: int
    variants: _containers.RepeatedScalarFieldContainer[str]
    race_table_points: int
    def __init__(self, model: _Optional[str] = ..., name: _Optional[str] = ..., device: _Optional[str] = ..., accelerator: _Optional[bool] = ..., max_packed_boards: _Optional[int] = ..., variants: _Optional[_Iterable[str]] = ..., race_table_points: _Optional[int] = ...) -> None: ...

class EvaluatedPlay(_message.Message):
    __slots__ = ("play", "evaluation")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    EVALUATION_FIELD_NUMBER: _ClassVar[int]
    play: _rules_pb2.Play
    evaluation: Evaluation
    def __init__(self, play: _Optional[_Union[_rules_pb2.Play, _Mapping]] = ..., evaluation: _Optional[_Union[Evaluation, _Mapping]] = ...) -> None: ...

class BestPlayRequest(_message.Message):
    __slots__ = ("position", "dice", "rules")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    position: _rules_pb2.PositionRef
    dice: _rules_pb2.Dice
    rules: _rules_pb2.RuleSet
    def __init__(self, position: _Optional[_Union[_rules_pb2.PositionRef, _Mapping]] = ..., dice: _Optional[_Union[_rules_pb2.Dice, _Mapping]] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ...) -> None: ...

class BestPlayResponse(_message.Message):
    __slots__ = ("best", "legal_plays", "model")
    BEST_FIELD_NUMBER: _ClassVar[int]
    LEGAL_PLAYS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    best: EvaluatedPlay
    legal_plays: int
    model: str
    def __init__(self, best: _Optional[_Union[EvaluatedPlay, _Mapping]] = ..., legal_plays: _Optional[int] = ..., model: _Optional[str] = ...) -> None: ...

class CubeContext(_message.Message):
    __slots__ = ("cube_value", "cube_owner", "match_length", "score", "opponent_score", "crawford", "jacoby", "beaver")
    CUBE_VALUE_FIELD_NUMBER: _ClassVar[int]
    CUBE_OWNER_FIELD_NUMBER: _ClassVar[int]
    MATCH_LENGTH_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_SCORE_FIELD_NUMBER: _ClassVar[int]
    CRAWFORD_FIELD_NUMBER: _ClassVar[int]
    JACOBY_FIELD_NUMBER: _ClassVar[int]
    BEAVER_FIELD_NUMBER: _ClassVar[int]
    cube_value: int
    cube_owner: CubeOwner
    match_length: int
    score: int
    opponent_score: int
    crawford: bool
    jacoby: bool
    beaver: bool
    def __init__(self, cube_value: _Optional[int] = ..., cube_owner: _Optional[_Union[CubeOwner, str]] = ..., match_length: _Optional[int] = ..., score: _Optional[int] = ..., opponent_score: _Optional[int] = ..., crawford: _Optional[bool] = ..., jacoby: _Optional[bool] = ..., beaver: _Optional[bool] = ...) -> None: ...

class HintRequest(_message.Message):
    __slots__ = ("position", "dice", "rules", "cube", "ply", "level", "filter", "seed", "limit", "no_prune")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    CUBE_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    NO_PRUNE_FIELD_NUMBER: _ClassVar[int]
    position: _rules_pb2.PositionRef
    dice: _rules_pb2.Dice
    rules: _rules_pb2.RuleSet
    cube: CubeContext
    ply: int
    level: Level
    filter: str
    seed: int
    limit: int
    no_prune: bool
    def __init__(self, position: _Optional[_Union[_rules_pb2.PositionRef, _Mapping]] = ..., dice: _Optional[_Union[_rules_pb2.Dice, _Mapping]] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., cube: _Optional[_Union[CubeContext, _Mapping]] = ..., ply: _Optional[int] = ..., level: _Optional[_Union[Level, str]] = ..., filter: _Optional[str] = ..., seed: _Optional[int] = ..., limit: _Optional[int] = ..., no_prune: _Optional[bool] = ...) -> None: ...

class HintCandidate(_message.Message):
    __slots__ = ("play", "probabilities", "cubeless_equity", "cubeful_equity", "equity", "loss", "ply")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    PROBABILITIES_FIELD_NUMBER: _ClassVar[int]
    CUBELESS_EQUITY_FIELD_NUMBER: _ClassVar[int]
    CUBEFUL_EQUITY_FIELD_NUMBER: _ClassVar[int]
    EQUITY_FIELD_NUMBER: _ClassVar[int]
    LOSS_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    play: _rules_pb2.Play
    probabilities: Probabilities
    cubeless_equity: float
    cubeful_equity: float
    equity: float
    loss: float
    ply: int
    def __init__(self, play: _Optional[_Union[_rules_pb2.Play, _Mapping]] = ..., probabilities: _Optional[_Union[Probabilities, _Mapping]] = ..., cubeless_equity: _Optional[float] = ..., cubeful_equity: _Optional[float] = ..., equity: _Optional[float] = ..., loss: _Optional[float] = ..., ply: _Optional[int] = ...) -> None: ...

class HintResponse(_message.Message):
    __slots__ = ("candidates", "legal_plays", "cubeful", "model")
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    LEGAL_PLAYS_FIELD_NUMBER: _ClassVar[int]
    CUBEFUL_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    candidates: _containers.RepeatedCompositeFieldContainer[HintCandidate]
    legal_plays: int
    cubeful: bool
    model: str
    def __init__(self, candidates: _Optional[_Iterable[_Union[HintCandidate, _Mapping]]] = ..., legal_plays: _Optional[int] = ..., cubeful: _Optional[bool] = ..., model: _Optional[str] = ...) -> None: ...

class CubeDecisionRequest(_message.Message):
    __slots__ = ("position", "cube", "rules", "ply", "level", "no_prune")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CUBE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    NO_PRUNE_FIELD_NUMBER: _ClassVar[int]
    position: _rules_pb2.PositionRef
    cube: CubeContext
    rules: _rules_pb2.RuleSet
    ply: int
    level: Level
    no_prune: bool
    def __init__(self, position: _Optional[_Union[_rules_pb2.PositionRef, _Mapping]] = ..., cube: _Optional[_Union[CubeContext, _Mapping]] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., ply: _Optional[int] = ..., level: _Optional[_Union[Level, str]] = ..., no_prune: _Optional[bool] = ...) -> None: ...

class GammonPrice(_message.Message):
    __slots__ = ("player", "opponent")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    player: float
    opponent: float
    def __init__(self, player: _Optional[float] = ..., opponent: _Optional[float] = ...) -> None: ...

class CubeDecisionResponse(_message.Message):
    __slots__ = ("probabilities", "cubeless_equity", "cube_efficiency", "ply", "no_double", "double_take", "double_pass", "value", "mwc_no_double", "mwc_double_take", "mwc_double_pass", "mwc_value", "action", "should_double", "taker_response", "costs", "can_double", "dead_cube", "take_point", "gammon_price", "notes", "model")
    class CostsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    PROBABILITIES_FIELD_NUMBER: _ClassVar[int]
    CUBELESS_EQUITY_FIELD_NUMBER: _ClassVar[int]
    CUBE_EFFICIENCY_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    NO_DOUBLE_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_TAKE_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_PASS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    MWC_NO_DOUBLE_FIELD_NUMBER: _ClassVar[int]
    MWC_DOUBLE_TAKE_FIELD_NUMBER: _ClassVar[int]
    MWC_DOUBLE_PASS_FIELD_NUMBER: _ClassVar[int]
    MWC_VALUE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SHOULD_DOUBLE_FIELD_NUMBER: _ClassVar[int]
    TAKER_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    COSTS_FIELD_NUMBER: _ClassVar[int]
    CAN_DOUBLE_FIELD_NUMBER: _ClassVar[int]
    DEAD_CUBE_FIELD_NUMBER: _ClassVar[int]
    TAKE_POINT_FIELD_NUMBER: _ClassVar[int]
    GAMMON_PRICE_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    probabilities: Probabilities
    cubeless_equity: float
    cube_efficiency: float
    ply: int
    no_double: float
    double_take: float
    double_pass: float
    value: float
    mwc_no_double: float
    mwc_double_take: float
    mwc_double_pass: float
    mwc_value: float
    action: str
    should_double: bool
    taker_response: str
    costs: _containers.ScalarMap[str, float]
    can_double: bool
    dead_cube: bool
    take_point: float
    gammon_price: GammonPrice
    notes: _containers.RepeatedScalarFieldContainer[str]
    model: str
    def __init__(self, probabilities: _Optional[_Union[Probabilities, _Mapping]] = ..., cubeless_equity: _Optional[float] = ..., cube_efficiency: _Optional[float] = ..., ply: _Optional[int] = ..., no_double: _Optional[float] = ..., double_take: _Optional[float] = ..., double_pass: _Optional[float] = ..., value: _Optional[float] = ..., mwc_no_double: _Optional[float] = ..., mwc_double_take: _Optional[float] = ..., mwc_double_pass: _Optional[float] = ..., mwc_value: _Optional[float] = ..., action: _Optional[str] = ..., should_double: _Optional[bool] = ..., taker_response: _Optional[str] = ..., costs: _Optional[_Mapping[str, float]] = ..., can_double: _Optional[bool] = ..., dead_cube: _Optional[bool] = ..., take_point: _Optional[float] = ..., gammon_price: _Optional[_Union[GammonPrice, _Mapping]] = ..., notes: _Optional[_Iterable[str]] = ..., model: _Optional[str] = ...) -> None: ...

class ResignationRequest(_message.Message):
    __slots__ = ("position", "cube", "rules", "resignation", "resigner", "ply")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CUBE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    RESIGNATION_FIELD_NUMBER: _ClassVar[int]
    RESIGNER_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    position: _rules_pb2.PositionRef
    cube: CubeContext
    rules: _rules_pb2.RuleSet
    resignation: _rules_pb2.Outcome
    resigner: Side
    ply: int
    def __init__(self, position: _Optional[_Union[_rules_pb2.PositionRef, _Mapping]] = ..., cube: _Optional[_Union[CubeContext, _Mapping]] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., resignation: _Optional[_Union[_rules_pb2.Outcome, str]] = ..., resigner: _Optional[_Union[Side, str]] = ..., ply: _Optional[int] = ...) -> None: ...

class ResignationDecision(_message.Message):
    __slots__ = ("resignation", "resigner", "accept", "value", "play_on", "cost", "mwc_value", "mwc_play_on")
    RESIGNATION_FIELD_NUMBER: _ClassVar[int]
    RESIGNER_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PLAY_ON_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    MWC_VALUE_FIELD_NUMBER: _ClassVar[int]
    MWC_PLAY_ON_FIELD_NUMBER: _ClassVar[int]
    resignation: _rules_pb2.Outcome
    resigner: Side
    accept: bool
    value: float
    play_on: float
    cost: float
    mwc_value: float
    mwc_play_on: float
    def __init__(self, resignation: _Optional[_Union[_rules_pb2.Outcome, str]] = ..., resigner: _Optional[_Union[Side, str]] = ..., accept: _Optional[bool] = ..., value: _Optional[float] = ..., play_on: _Optional[float] = ..., cost: _Optional[float] = ..., mwc_value: _Optional[float] = ..., mwc_play_on: _Optional[float] = ...) -> None: ...

class ResignationResponse(_message.Message):
    __slots__ = ("decision", "should_resign", "model")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SHOULD_RESIGN_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    decision: ResignationDecision
    should_resign: _rules_pb2.Outcome
    model: str
    def __init__(self, decision: _Optional[_Union[ResignationDecision, _Mapping]] = ..., should_resign: _Optional[_Union[_rules_pb2.Outcome, str]] = ..., model: _Optional[str] = ...) -> None: ...

class BotSettings(_message.Message):
    __slots__ = ("level", "style", "rating", "rating_kind", "seed", "no_prune")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    STYLE_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    RATING_KIND_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    NO_PRUNE_FIELD_NUMBER: _ClassVar[int]
    level: str
    style: str
    rating: float
    rating_kind: str
    seed: int
    no_prune: bool
    def __init__(self, level: _Optional[str] = ..., style: _Optional[str] = ..., rating: _Optional[float] = ..., rating_kind: _Optional[str] = ..., seed: _Optional[int] = ..., no_prune: _Optional[bool] = ...) -> None: ...

class BotDecisionRequest(_message.Message):
    __slots__ = ("bot", "ask", "position", "rules", "dice", "cube", "level", "resigner_on_turn", "raccoon")
    BOT_FIELD_NUMBER: _ClassVar[int]
    ASK_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    CUBE_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    RESIGNER_ON_TURN_FIELD_NUMBER: _ClassVar[int]
    RACCOON_FIELD_NUMBER: _ClassVar[int]
    bot: BotSettings
    ask: BotAsk
    position: _rules_pb2.PositionRef
    rules: _rules_pb2.RuleSet
    dice: _rules_pb2.Dice
    cube: CubeContext
    level: int
    resigner_on_turn: bool
    raccoon: bool
    def __init__(self, bot: _Optional[_Union[BotSettings, _Mapping]] = ..., ask: _Optional[_Union[BotAsk, str]] = ..., position: _Optional[_Union[_rules_pb2.PositionRef, _Mapping]] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., dice: _Optional[_Union[_rules_pb2.Dice, _Mapping]] = ..., cube: _Optional[_Union[CubeContext, _Mapping]] = ..., level: _Optional[int] = ..., resigner_on_turn: _Optional[bool] = ..., raccoon: _Optional[bool] = ...) -> None: ...

class BotDecisionResponse(_message.Message):
    __slots__ = ("play", "level", "yes", "reply", "model")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    YES_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    play: _rules_pb2.Play
    level: int
    yes: bool
    reply: str
    model: str
    def __init__(self, play: _Optional[_Union[_rules_pb2.Play, _Mapping]] = ..., level: _Optional[int] = ..., yes: _Optional[bool] = ..., reply: _Optional[str] = ..., model: _Optional[str] = ...) -> None: ...

class TrainerRequest(_message.Message):
    __slots__ = ("ask", "position", "rules", "ply", "no_prune", "dice", "play", "cube", "doubled", "reply", "limit")
    ASK_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    NO_PRUNE_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    CUBE_FIELD_NUMBER: _ClassVar[int]
    DOUBLED_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ask: TrainerAsk
    position: _rules_pb2.PositionRef
    rules: _rules_pb2.RuleSet
    ply: int
    no_prune: bool
    dice: _rules_pb2.Dice
    play: _rules_pb2.Play
    cube: CubeContext
    doubled: bool
    reply: str
    limit: int
    def __init__(self, ask: _Optional[_Union[TrainerAsk, str]] = ..., position: _Optional[_Union[_rules_pb2.PositionRef, _Mapping]] = ..., rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., ply: _Optional[int] = ..., no_prune: _Optional[bool] = ..., dice: _Optional[_Union[_rules_pb2.Dice, _Mapping]] = ..., play: _Optional[_Union[_rules_pb2.Play, _Mapping]] = ..., cube: _Optional[_Union[CubeContext, _Mapping]] = ..., doubled: _Optional[bool] = ..., reply: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class TrainerResponse(_message.Message):
    __slots__ = ("answer_json", "model")
    ANSWER_JSON_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    answer_json: str
    model: str
    def __init__(self, answer_json: _Optional[str] = ..., model: _Optional[str] = ...) -> None: ...

class LuckRoll(_message.Message):
    __slots__ = ("position", "dice", "opening", "player")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    OPENING_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    position: _rules_pb2.PositionRef
    dice: _rules_pb2.Dice
    opening: bool
    player: int
    def __init__(self, position: _Optional[_Union[_rules_pb2.PositionRef, _Mapping]] = ..., dice: _Optional[_Union[_rules_pb2.Dice, _Mapping]] = ..., opening: _Optional[bool] = ..., player: _Optional[int] = ...) -> None: ...

class GameLuckRequest(_message.Message):
    __slots__ = ("rules", "rolls")
    RULES_FIELD_NUMBER: _ClassVar[int]
    ROLLS_FIELD_NUMBER: _ClassVar[int]
    rules: _rules_pb2.RuleSet
    rolls: _containers.RepeatedCompositeFieldContainer[LuckRoll]
    def __init__(self, rules: _Optional[_Union[_rules_pb2.RuleSet, _Mapping]] = ..., rolls: _Optional[_Iterable[_Union[LuckRoll, _Mapping]]] = ...) -> None: ...

class GameLuckResponse(_message.Message):
    __slots__ = ("human", "bot", "model")
    HUMAN_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    human: float
    bot: float
    model: str
    def __init__(self, human: _Optional[float] = ..., bot: _Optional[float] = ..., model: _Optional[str] = ...) -> None: ...
