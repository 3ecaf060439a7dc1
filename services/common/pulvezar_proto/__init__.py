"""Generated protobuf and gRPC stubs of proto/pulvezar (regenerate with proto/generate.sh)."""
