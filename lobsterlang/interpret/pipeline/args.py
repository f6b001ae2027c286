"""A stage's arguments as the reference's commands see them: positionals, and flags where the last one wins."""

from __future__ import annotations

from collections.abc import Callable

from lobsterlang import ir

WordRenderer = Callable[[ir.Word], str]
FlagValue = str | bool


def literal_word(word: ir.Word) -> str:
    """The default word renderer: the word's own value."""
    return word.value


class StageArgs:
    """`positionals` in order and `flags` by name (a bare flag is True)."""

    def __init__(self, positionals: list[str], flags: dict[str, FlagValue]) -> None:
        self.positionals = positionals
        self.flags = flags

    @classmethod
    def from_stage(cls, stage: ir.Stage, render: WordRenderer = literal_word) -> StageArgs:
        positionals: list[str] = []
        flags: dict[str, FlagValue] = {}
        for arg in stage.args:
            if isinstance(arg, ir.Positional):
                positionals.append(render(arg.value))
            else:
                flags[arg.name] = True if arg.value is None else render(arg.value)
        return cls(positionals, flags)

    def get(self, *names: str) -> FlagValue | None:
        """The first of `names` that was given (aliases are passed after the main name)."""
        for name in names:
            if name in self.flags:
                return self.flags[name]
        return None

    def text(self, *names: str) -> str | None:
        """The flag's value when it is a string (a bare flag gives None)."""
        value = self.get(*names)
        return value if isinstance(value, str) else None

    def truthy(self, *names: str) -> bool:
        """JavaScript truthiness of the flag: a bare flag or any non-empty string."""
        value = self.get(*names)
        return value is True or (isinstance(value, str) and value != "")

    def first(self) -> str | None:
        return self.positionals[0] if self.positionals else None
