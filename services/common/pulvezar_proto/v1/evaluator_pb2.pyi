from . import rules_pb2 as _rules_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

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
