"""What the gRPC services share: settings, JSON logs, errors, metrics, conversions and the server runner."""
