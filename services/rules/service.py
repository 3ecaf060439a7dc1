"""The ``pulvezar.v1.RulesService`` servicer."""

from __future__ import annotations

from typing import Any

import grpc

from pulvezar import XGID, PulvezarError, Rules, format_gnubg_id
from services.common import convert, reading
from services.common.errors import BadArgument
from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.common.pulvezar_proto.v1 import rules_pb2_grpc
from services.common.server import check_deadline, rpc

SERVICE = "pulvezar.v1.RulesService"
_rpc = rpc("rules")


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
    @_rpc
    async def LegalPlays(
        self, request: pb.LegalPlaysRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.LegalPlaysResponse:
        _, plays = reading.plays(request)
        check_deadline(context, "move generation")
        return pb.LegalPlaysResponse(plays=[convert.play(p) for p in plays])

    @_rpc
    async def ApplyPlay(
        self, request: pb.ApplyPlayRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ApplyPlayResponse:
        rule_set, plays = reading.plays(request)
        try:
            chosen = plays.find(request.notation)
        except PulvezarError as e:
            raise BadArgument("notation", str(e)) from None
        response = pb.ApplyPlayResponse(play=convert.play(chosen), board=convert.board(chosen.position))
        result = rule_set.game_result(chosen.position)
        if result is not None:
            response.game_result.CopyFrom(convert.game_result(result))
        return response

    @_rpc
    async def ConvertId(
        self, request: pb.ConvertIdRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ConvertIdResponse:
        has_position = request.HasField("position")
        if not has_position and not request.match_id:
            raise BadArgument("position", "give a position, a match_id or both")
        response = pb.ConvertIdResponse()
        match = convert.match_id(request.match_id) if request.match_id else None
        if match is not None:
            response.match.CopyFrom(convert.match_state(match))
        if not has_position:
            return response
        p = convert.position(request.position)
        xgid: XGID | None = None
        if request.position.WhichOneof("kind") == "xgid":
            if match is not None:
                raise BadArgument("match_id", "an XGID carries its own match state; give one or the other")
            xgid = XGID.parse(request.position.xgid)
            try:
                match = xgid.to_match_id()
            except PulvezarError:
                match = None  # a beaver has no Match ID form
            if match is not None:
                response.match.CopyFrom(convert.match_state(match))
        elif match is not None:
            try:
                xgid = XGID.from_match_id(p, match)
            except PulvezarError as e:
                raise BadArgument("match_id", str(e)) from None
        response.position.CopyFrom(convert.position_ids(p, xgid))
        if match is not None:
            response.gnubg_id = format_gnubg_id(p, match)
        return response

    @_rpc
    async def ScoreGame(
        self, request: pb.ScoreGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ScoreGameResponse:
        p, rule_set = reading.position(request)
        cube = convert.cube_value(request.cube_value, rule_set)
        if request.jacoby and not rule_set.uses_cube:
            raise BadArgument("jacoby", f"{rule_set.name} has no cube, so no Jacoby rule")
        result = rule_set.game_result(p)
        if result is None:
            return pb.ScoreGameResponse(finished=False)
        return pb.ScoreGameResponse(finished=True, result=convert.game_result(result, cube, request.jacoby))


def add_to(server: grpc.aio.Server) -> list[str]:
    rules_pb2_grpc.add_RulesServiceServicer_to_server(RulesServicer(), server)
    return [SERVICE]


async def warm() -> None:
    """Load the move generator and the notation code once."""
    rules = Rules.international()
    start = rules.start_position()
    [p.notation for p in rules.legal_plays(start, (3, 1))]
