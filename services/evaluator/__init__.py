"""The Evaluator gRPC service: pulvezar's net behind a micro-batching queue."""
