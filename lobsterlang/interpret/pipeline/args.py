"""A stage's arguments as the reference's commands see them: positionals, and flags where the last one wins."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lobsterlang import ir

WordRenderer = Callable[[ir.Word], str]
ShellRenderer = Callable[[ir.Word, Mapping[str, str]], tuple[str, dict[str, str]]]
"""A word that a shell will read: its text, and variables that carry the values it refers to."""
FlagValue = str | bool


def literal_word(word: ir.Word) -> str:
    """The default word renderer: the word's own value."""
    return word.value


class StageArgs:
    """`positionals` in order and `flags` by name (a bare flag is True); `words` are their source words."""

    def __init__(
        self, positionals: list[str], flags: dict[str, FlagValue], words: dict[int | str, ir.Word] | None = None,
    ) -> None:
        self.positionals = positionals
        self.flags = flags
        self.words = words or {}

    @classmethod
    def from_stage(cls, stage: ir.Stage, render: WordRenderer = literal_word) -> StageArgs:
        positionals: list[str] = []
        flags: dict[str, FlagValue] = {}
        words: dict[int | str, ir.Word] = {}
        for arg in stage.args:
            if isinstance(arg, ir.Positional):
                words[len(positionals)] = arg.value
                positionals.append(render(arg.value))
            else:
                flags[arg.name] = True if arg.value is None else render(arg.value)
                if arg.value is not None:
                    words[arg.name] = arg.value
                else:
                    words.pop(arg.name, None)
        return cls(positionals, flags, words)

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

    def word(self, key: int | str) -> ir.Word | None:
        """The source word of positional `key` (an index) or flag `key` (a name), when it had one."""
        return self.words.get(key)

    def first(self) -> str | None:
        return self.positionals[0] if self.positionals else None
