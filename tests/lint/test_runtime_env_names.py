"""L107 knows the variables the runtime sets in every step: the idempotency key L409's hint suggests, and the
dispatch link that `openclaw.invoke` reads."""

from __future__ import annotations

from lobsterlang.lint import Config, Source, lint_source


def test_the_step_variables_the_runtime_sets_are_not_unknown() -> None:
    text = ('steps:\n  - id: post\n    run: echo "$LOBSTER_IDEMPOTENCY_KEY $LOBSTER_DISPATCH_SOCKET '
            '$LOBSTER_DISPATCH_TOKEN $LOBSTER_IDEMPOTENCY_KEYS"\n')
    found = lint_source(Source("w.lobster", text), Config()).diagnostics
    assert [(d.code, d.message) for d in found if d.code == "L107"] == [
        ("L107", "the runtime does not set `LOBSTER_IDEMPOTENCY_KEYS`"),
    ]
