"""The ``/v1`` routers, one per area."""
