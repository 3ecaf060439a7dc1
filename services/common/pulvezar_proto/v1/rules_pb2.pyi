from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Variant(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIANT_UNSPECIFIED: _ClassVar[Variant]
    VARIANT_INTERNATIONAL: _ClassVar[Variant]
    VARIANT_TAVLA: _ClassVar[Variant]

class Winner(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WINNER_UNSPECIFIED: _ClassVar[Winner]
    WINNER_PLAYER: _ClassVar[Winner]
    WINNER_OPPONENT: _ClassVar[Winner]

class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUTCOME_UNSPECIFIED: _ClassVar[Outcome]
    OUTCOME_SINGLE: _ClassVar[Outcome]
    OUTCOME_GAMMON: _ClassVar[Outcome]
    OUTCOME_BACKGAMMON: _ClassVar[Outcome]
VARIANT_UNSPECIFIED: Variant
VARIANT_INTERNATIONAL: Variant
VARIANT_TAVLA: Variant
WINNER_UNSPECIFIED: Winner
WINNER_PLAYER: Winner
WINNER_OPPONENT: Winner
OUTCOME_UNSPECIFIED: Outcome
OUTCOME_SINGLE: Outcome
OUTCOME_GAMMON: Outcome
OUTCOME_BACKGAMMON: Outcome

class Board(_message.Message):
    __slots__ = ("mine", "theirs")
    MINE_FIELD_NUMBER: _ClassVar[int]
    THEIRS_FIELD_NUMBER: _ClassVar[int]
    mine: _containers.RepeatedScalarFieldContainer[int]
    theirs: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, mine: _Optional[_Iterable[int]] = ..., theirs: _Optional[_Iterable[int]] = ...) -> None: ...

class PositionRef(_message.Message):
    __slots__ = ("position_id", "xgid", "board")
    POSITION_ID_FIELD_NUMBER: _ClassVar[int]
    XGID_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    position_id: str
    xgid: str
    board: Board
    def __init__(self, position_id: _Optional[str] = ..., xgid: _Optional[str] = ..., board: _Optional[_Union[Board, _Mapping]] = ...) -> None: ...

class Dice(_message.Message):
    __slots__ = ("die1", "die2")
    DIE1_FIELD_NUMBER: _ClassVar[int]
    DIE2_FIELD_NUMBER: _ClassVar[int]
    die1: int
    die2: int
    def __init__(self, die1: _Optional[int] = ..., die2: _Optional[int] = ...) -> None: ...

class RuleSet(_message.Message):
    __slots__ = ("variant", "hit_and_stop", "must_bear_off")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    HIT_AND_STOP_FIELD_NUMBER: _ClassVar[int]
    MUST_BEAR_OFF_FIELD_NUMBER: _ClassVar[int]
    variant: Variant
    hit_and_stop: bool
    must_bear_off: bool
    def __init__(self, variant: _Optional[_Union[Variant, str]] = ..., hit_and_stop: _Optional[bool] = ..., must_bear_off: _Optional[bool] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("src", "dst", "hit")
    SRC_FIELD_NUMBER: _ClassVar[int]
    DST_FIELD_NUMBER: _ClassVar[int]
    HIT_FIELD_NUMBER: _ClassVar[int]
    src: int
    dst: int
    hit: bool
    def __init__(self, src: _Optional[int] = ..., dst: _Optional[int] = ..., hit: _Optional[bool] = ...) -> None: ...

class Play(_message.Message):
    __slots__ = ("notation", "position_id", "next_position_id", "moves", "hits")
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    POSITION_ID_FIELD_NUMBER: _ClassVar[int]
    NEXT_POSITION_ID_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    HITS_FIELD_NUMBER: _ClassVar[int]
    notation: str
    position_id: str
    next_position_id: str
    moves: _containers.RepeatedCompositeFieldContainer[Move]
    hits: int
    def __init__(self, notation: _Optional[str] = ..., position_id: _Optional[str] = ..., next_position_id: _Optional[str] = ..., moves: _Optional[_Iterable[_Union[Move, _Mapping]]] = ..., hits: _Optional[int] = ...) -> None: ...

class PositionIds(_message.Message):
    __slots__ = ("position_id", "xgid", "board")
    POSITION_ID_FIELD_NUMBER: _ClassVar[int]
    XGID_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    position_id: str
    xgid: str
    board: Board
    def __init__(self, position_id: _Optional[str] = ..., xgid: _Optional[str] = ..., board: _Optional[_Union[Board, _Mapping]] = ...) -> None: ...

class LegalPlaysRequest(_message.Message):
    __slots__ = ("position", "dice", "rules")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    position: PositionRef
    dice: Dice
    rules: RuleSet
    def __init__(self, position: _Optional[_Union[PositionRef, _Mapping]] = ..., dice: _Optional[_Union[Dice, _Mapping]] = ..., rules: _Optional[_Union[RuleSet, _Mapping]] = ...) -> None: ...

class LegalPlaysResponse(_message.Message):
    __slots__ = ("plays",)
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    plays: _containers.RepeatedCompositeFieldContainer[Play]
    def __init__(self, plays: _Optional[_Iterable[_Union[Play, _Mapping]]] = ...) -> None: ...

class ApplyPlayRequest(_message.Message):
    __slots__ = ("position", "dice", "rules", "notation")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    position: PositionRef
    dice: Dice
    rules: RuleSet
    notation: str
    def __init__(self, position: _Optional[_Union[PositionRef, _Mapping]] = ..., dice: _Optional[_Union[Dice, _Mapping]] = ..., rules: _Optional[_Union[RuleSet, _Mapping]] = ..., notation: _Optional[str] = ...) -> None: ...

class GameResult(_message.Message):
    __slots__ = ("winner", "outcome", "points", "points_with_cube")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    POINTS_WITH_CUBE_FIELD_NUMBER: _ClassVar[int]
    winner: Winner
    outcome: Outcome
    points: int
    points_with_cube: int
    def __init__(self, winner: _Optional[_Union[Winner, str]] = ..., outcome: _Optional[_Union[Outcome, str]] = ..., points: _Optional[int] = ..., points_with_cube: _Optional[int] = ...) -> None: ...

class ApplyPlayResponse(_message.Message):
    __slots__ = ("play", "board", "game_result")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    GAME_RESULT_FIELD_NUMBER: _ClassVar[int]
    play: Play
    board: Board
    game_result: GameResult
    def __init__(self, play: _Optional[_Union[Play, _Mapping]] = ..., board: _Optional[_Union[Board, _Mapping]] = ..., game_result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...

class ConvertIdRequest(_message.Message):
    __slots__ = ("position", "match_id")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    position: PositionRef
    match_id: str
    def __init__(self, position: _Optional[_Union[PositionRef, _Mapping]] = ..., match_id: _Optional[str] = ...) -> None: ...

class MatchState(_message.Message):
    __slots__ = ("match_id", "cube_value", "cube_owner", "dice_owner", "crawford", "game_state", "turn", "double_offered", "resignation", "dice", "match_length", "score0", "score1", "jacoby")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    CUBE_VALUE_FIELD_NUMBER: _ClassVar[int]
    CUBE_OWNER_FIELD_NUMBER: _ClassVar[int]
    DICE_OWNER_FIELD_NUMBER: _ClassVar[int]
    CRAWFORD_FIELD_NUMBER: _ClassVar[int]
    GAME_STATE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_OFFERED_FIELD_NUMBER: _ClassVar[int]
    RESIGNATION_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    MATCH_LENGTH_FIELD_NUMBER: _ClassVar[int]
    SCORE0_FIELD_NUMBER: _ClassVar[int]
    SCORE1_FIELD_NUMBER: _ClassVar[int]
    JACOBY_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    cube_value: int
    cube_owner: int
    dice_owner: int
    crawford: bool
    game_state: str
    turn: int
    double_offered: bool
    resignation: str
    dice: Dice
    match_length: int
    score0: int
    score1: int
    jacoby: bool
    def __init__(self, match_id: _Optional[str] = ..., cube_value: _Optional[int] = ..., cube_owner: _Optional[int] = ..., dice_owner: _Optional[int] = ..., crawford: _Optional[bool] = ..., game_state: _Optional[str] = ..., turn: _Optional[int] = ..., double_offered: _Optional[bool] = ..., resignation: _Optional[str] = ..., dice: _Optional[_Union[Dice, _Mapping]] = ..., match_length: _Optional[int] = ..., score0: _Optional[int] = ..., score1: _Optional[int] = ..., jacoby: _Optional[bool] = ...) -> None: ...

class ConvertIdResponse(_message.Message):
    __slots__ = ("position", "match", "gnubg_id")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    GNUBG_ID_FIELD_NUMBER: _ClassVar[int]
    position: PositionIds
    match: MatchState
    gnubg_id: str
    def __init__(self, position: _Optional[_Union[PositionIds, _Mapping]] = ..., match: _Optional[_Union[MatchState, _Mapping]] = ..., gnubg_id: _Optional[str] = ...) -> None: ...

class ScoreGameRequest(_message.Message):
    __slots__ = ("position", "rules", "cube_value", "jacoby")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    CUBE_VALUE_FIELD_NUMBER: _ClassVar[int]
    JACOBY_FIELD_NUMBER: _ClassVar[int]
    position: PositionRef
    rules: RuleSet
    cube_value: int
    jacoby: bool
    def __init__(self, position: _Optional[_Union[PositionRef, _Mapping]] = ..., rules: _Optional[_Union[RuleSet, _Mapping]] = ..., cube_value: _Optional[int] = ..., jacoby: _Optional[bool] = ...) -> None: ...

class ScoreGameResponse(_message.Message):
    __slots__ = ("finished", "result")
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    finished: bool
    result: GameResult
    def __init__(self, finished: _Optional[bool] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...
