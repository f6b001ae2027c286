"""A pipeline run's start-up loads the pipeline runtime and the state store, not the workflow engine."""

from __future__ import annotations

import subprocess
import sys


def test_the_pipeline_frontend_does_not_load_the_workflow_engine() -> None:
    code = (
        "import sys\n"
        "import lobsterlang.interpret.pipeline.frontend\n"
        "print(sorted(name for name in sys.modules if name.startswith(('lobsterlang.interpret.workflow.engine',"
        " 'lobsterlang.interpret.workflow.journal'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"
