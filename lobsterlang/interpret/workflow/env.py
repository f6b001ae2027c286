"""A step's environment: process env, LOBSTER_ARGS_JSON, LOBSTER_ARG_<NAME>, workflow env, step env."""

from __future__ import annotations

from collections.abc import Mapping

from lobsterlang import ir
from lobsterlang.interpret.workflow.argvars import arg_env
from lobsterlang.interpret.workflow.templates import Scope, render_env_value

EnvLayer = tuple[ir.EnvVar, ...] | None


def apply_env(base: Mapping[str, str], layers: list[EnvLayer], scope: Scope) -> dict[str, str]:
    """`base` plus the arg variables, then each `env:` layer in order (only string values count)."""
    from_args = arg_env(scope.args)
    env = {**base, **from_args}
    for layer in layers:
        for var in layer or ():
            if var.template is not None:
                env[var.name] = render_env_value(var.template, scope, from_args)
    return env
