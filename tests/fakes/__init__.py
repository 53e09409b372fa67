"""In-process stand-ins for external services, for unit tests (no network beyond 127.0.0.1)."""
