"""Tracer provider set-up: OTLP/HTTP when an endpoint is configured, else console if asked.

Called once per worker process after fork (``worker_process_init``): exporters hold
threads and sockets that must not be shared across a fork.
"""

from __future__ import annotations

import sys
from typing import TextIO

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter


def setup_tracing(
    service_name: str,
    otlp_endpoint: str | None,
    *,
    console: bool = True,
    stream: TextIO | None = None,
) -> TracerProvider:
    """Install and return the global tracer provider.

    Args:
        service_name: ``service.name`` resource attribute.
        otlp_endpoint: OTLP/HTTP traces endpoint (``http://collector:4318/v1/traces``);
            when ``None``, spans go to the console, or nowhere if ``console`` is off.
        console: Print spans as JSON when no OTLP endpoint is set.
        stream: Where console spans go (default stderr).
    """
    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    exporter: SpanExporter | None = None
    if otlp_endpoint:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter(endpoint=otlp_endpoint)
    elif console:
        exporter = ConsoleSpanExporter(out=stream or sys.stderr)
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return provider
