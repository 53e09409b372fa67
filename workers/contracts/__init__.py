"""What producers and workers agree on.

Job and outcome shapes, task and channel names, job signing, a thread's line and the error
taxonomy. Nothing here imports Celery or a worker module: a producer imports this room and
:mod:`workers.client`, nothing more.
"""
