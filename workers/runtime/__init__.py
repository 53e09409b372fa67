"""The process's clients and their hardening.

Resources, the encrypted and guarded checkpointer, the thread lock, the circuit breaker,
web egress, the model factory, telemetry and shutdown. No job logic lives here.
"""
