"""The workflow-file engine: run `.lobster` files, halt at approval and input gates, resume, journal runs.

Entry points: `frontend.run_file` (`lobster run FILE`), `runs.resume` (`lobster resume` for workflow-file tokens)
and `recover.resume_run` (`lobster resume --run ID`). The engine reaches runs only through the store interface
it is given (`stores`); the Postgres store and its workers live above it (docs/architecture.md).
"""
