"""The shell scanner skips runs of plain characters in one match; it finds what stepping one by one finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.interpret.workflow.shellscan import ShellContext, _Scanner, context_at_end


class _OneByOne(_Scanner):
    """The scanner as it was: every character through `_step`."""

    def run(self) -> ShellContext:
        while self.i < len(self.text):
            if self.body is not None:
                if not self._body_line():
                    return ShellContext("heredoc", False, self.body)
                continue
            self._step(self.text[self.i])
        if self.body is not None:
            return ShellContext("heredoc", False, self.body)
        return ShellContext(self.stack[-1], self.escaped, None, self._command())


_PIECES = [
    "a", " ", "x=1", "'", '"', "`", "$", "\\", "(", ")", "((", "))", "{", "}", "[", "]", ":", "#", "<<", "<<-",
    "EOF", "'EOF'", "\n", "\t", ";", "&", "|", "$((", "${", "$(", "$[", "-", "+", "?", "=", "echo ", "jq '.a'",
    "${LOBSTER_ARG_Q}", "#", "${a:-b}", "${a[1]}", "/", "%",
]
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@settings(max_examples=1500, deadline=None)
@given(text=_TEXTS)
def test_skipping_plain_runs_changes_no_context(text: str) -> None:
    assert context_at_end(text) == _OneByOne(text).run()
