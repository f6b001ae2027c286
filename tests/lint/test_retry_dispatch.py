"""L409: `retry` on a step that dispatches a call, which the runtime does not repeat; L404 leaves that effect to it."""

from __future__ import annotations

from pathlib import Path

from lobsterlang.lint import Config, Source, lint_source

FIXTURES = Path(__file__).parent / "fixtures" / "L409"


def _findings(path: Path, target: str) -> list[tuple[str, int, str, str]]:
    result = lint_source(Source(str(path), path.read_bytes()), Config(target=target))
    return [(d.code, d.span.line, d.message, d.hint or "") for d in result.diagnostics]


def test_the_finding_names_the_call_and_the_hint_the_guarantee_and_the_ways_out() -> None:
    [(code, line, message, hint)] = _findings(FIXTURES / "bad.lobster", "lobsterlang")
    assert (code, line) == ("L409", 12)
    assert message == ("step `post` is retried, but it calls `openclaw.invoke`: once that call went out the step is not "
                       "retried (it may have taken effect), so `retry` covers only failures before it")
    assert "dispatch guarantee" in hint and "LOBSTER_IDEMPOTENCY_KEY" in hint and "on_error" in hint


def test_the_reference_retries_a_shell_s_call_so_there_it_is_l404() -> None:
    assert [f[0] for f in _findings(FIXTURES / "bad.lobster", "reference")] == ["L404"]
    assert [f[0] for f in _findings(FIXTURES / "pipeline.lobster", "reference")] == ["L409"]
