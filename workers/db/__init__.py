"""App tables (SQLAlchemy 2), engine/session factory and the repository of queries."""
