"""Webhook delivery of stored outcomes.

One attempt over HTTP (:mod:`.attempt`), the URL policy (:mod:`.policy`) and the delivery
state machine (:mod:`.machine`).
"""
