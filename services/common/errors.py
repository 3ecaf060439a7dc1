"""gRPC errors: INVALID_ARGUMENT with ``google.rpc.BadRequest`` field violations, and other codes."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status


class RpcAbort(Exception):
    """End the RPC with ``code`` and a readable ``message``."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def status(self) -> grpc.Status:
        status: grpc.Status = rpc_status.to_status(
            status_pb2.Status(code=self.code.value[0], message=self.message)
        )
        return status


class BadArgument(RpcAbort):
    """INVALID_ARGUMENT naming the request field (a path such as ``positions[2].xgid``)."""

    def __init__(self, field: str, description: str) -> None:
        super().__init__(grpc.StatusCode.INVALID_ARGUMENT, f"{field}: {description}")
        self.field = field
        self.description = description

    def status(self) -> grpc.Status:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=self.field, description=self.description)
            ]
        )
        detail = any_pb2.Any()
        detail.Pack(bad)
        status: grpc.Status = rpc_status.to_status(
            status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=self.message, details=[detail])
        )
        return status
