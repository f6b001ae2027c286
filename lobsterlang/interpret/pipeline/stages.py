"""Check a pipeline's stages before any runs (known commands, the flags they take) and name the stage an error came from."""

from __future__ import annotations

from collections.abc import Iterator
from types import CodeType, FrameType, GeneratorType, TracebackType
from typing import Any

from lobsterlang import ir
from lobsterlang.commands.specs import BY_NAME
from lobsterlang.interpret.errors import CommandError, LobsterRunError
from lobsterlang.suggest import closest


def note_stage(exc: LobsterRunError, number: int, name: str, hint: str = "") -> None:
    """Note on `exc` where it happened, `in stage 3 (pikc)`, unless a stage is noted already (the innermost, a
    nested pipeline's, wins). Human mode prints it below the error line; tool mode shows only the message."""
    if exc.stage_note is None:
        exc.stage_note = f"in stage {number} ({name}){hint}"


def unknown_command(name: str, number: int, known: list[str]) -> CommandError:
    """`Unknown command: <name>` (the reference's words), noted with its stage and the closest command."""
    error = CommandError(f"Unknown command: {name}")
    close = closest(name, known)
    note_stage(error, number, name, f"; did you mean `{close}`?" if close else "")
    return error


def check_flags(stage: ir.Stage, name: str, number: int) -> None:
    """Refuse a flag the command does not take (`head --nn 2`), which the reference silently ignores."""
    spec = BY_NAME.get(name)
    if spec is None:
        return
    accepted = [n for flag in spec.flags for n in (flag.name, *flag.aliases)]
    for arg in stage.args:
        if isinstance(arg, ir.Flag) and arg.name not in accepted:
            close = _nearest(arg.name, accepted)
            hint = f"did you mean --{close}?" if close else f"`lobster help {name}` lists its flags"
            error = CommandError(f"{name} has no flag --{arg.name}; {hint}")
            note_stage(error, number, name)
            raise error


def _nearest(name: str, names: list[str]) -> str | None:
    """The accepted flag `name` most likely meant: by similarity (`nn` → `n`, as lint L202), else by typo distance."""
    import difflib

    close = difflib.get_close_matches(name, names, n=1)
    return close[0] if close else closest(name, names)


class StageFrames:
    """The frames of the stages' generators, so that an error raised while items flow names the stage it came from.

    Only ids and code objects are kept, never the frames: a finished stage's frame would hold on to its locals
    (item lists freed in arrival order, `streams.freed_in_arrival_order`). A frame on the traceback matches when
    both agree.
    """

    def __init__(self) -> None:
        self._frames: dict[int, tuple[CodeType, int, str]] = {}

    def add(self, stream: Iterator[Any], number: int, name: str) -> None:
        """Remember `stream`'s frame (a generator's; other iterators are lists and raise nothing of their own)."""
        frame = stream.gi_frame if isinstance(stream, GeneratorType) else None
        if frame is not None:
            self._frames[id(frame)] = (frame.f_code, number, name)

    def locate(self, exc: LobsterRunError) -> None:
        """Note the innermost stage whose generator is on `exc`'s traceback."""
        found = None
        for frame in _frames_of(exc.__traceback__):
            known = self._frames.get(id(frame))
            if known is not None and known[0] is frame.f_code:
                found = known[1:]
        if found is not None:
            note_stage(exc, *found)


def _frames_of(tb: TracebackType | None) -> Iterator[FrameType]:
    while tb is not None:
        yield tb.tb_frame
        tb = tb.tb_next
