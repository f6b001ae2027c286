"""The Lobster linter: rules over the IR of workflow files and pipeline strings.

    from lobsterlang.lint import Source, lint_sources
    [result] = lint_sources([Source("flow.lobster", data)])
"""

from lobsterlang.lint.config import Config, ConfigError, find_config, load_config
from lobsterlang.lint.engine import FileResult, Source, lint_source, lint_sources
from lobsterlang.lint.registry import Rule, all_rules

__all__ = [
    "Config", "ConfigError", "FileResult", "Rule", "Source", "all_rules", "find_config", "lint_source",
    "lint_sources", "load_config",
]
