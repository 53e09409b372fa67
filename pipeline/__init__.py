"""The corrective RAG graph: state, nodes, pure routing edges and wiring.

Nothing in this package imports Celery or reads the environment; every dependency
(chat models, retriever, web search, redactor, thresholds) arrives as LangGraph runtime
context (:class:`pipeline.deps.Deps`).
"""
