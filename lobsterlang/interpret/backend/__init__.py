"""Run stores shared by many machines (Postgres, the `dbos` extra) and the workers that run their queued runs.

The interfaces they implement live below them, in the workflow engine (`workflow/stores.py`);
`interpret.wiring` opens the store a command uses and gives it its hand-off to the workers.
"""
