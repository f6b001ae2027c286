"""`exec`: run a program (argv, or a shell line); stdout lines or parsed JSON become items, output capped."""

from __future__ import annotations

import codecs
import os
import re
import subprocess
import threading
from collections.abc import Generator, Iterator, Mapping
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.outputcap import OutputCap, output_cap
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.jsonitems import json_items
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.spool import spooled
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.process import CappedReader, kill_tree, write_stdin
from lobsterlang.interpret.values import stringify

_WHITESPACE = re.compile(r"\s")
_LINE_BREAK = re.compile(r"\r?\n")
STDIN_MODES = ("raw", "json", "jsonl")
CHUNK = 65536


def shell_argv(line: str, env: Mapping[str, str]) -> list[str]:
    """`/bin/sh -lc LINE`, or `LOBSTER_SHELL` with the flags its name calls for."""
    shell = env.get("LOBSTER_SHELL") or "/bin/sh"
    name = os.path.basename(shell).lower().removesuffix(".exe")
    if name in ("powershell", "pwsh"):
        return [shell, "-NoProfile", "-Command", line]
    if name == "cmd":
        return [shell, "/d", "/s", "/c", line]
    return [shell, "-lc", line]


def command_line(args: StageArgs) -> tuple[list[str], str | None]:
    """The argv to run and, in shell mode, the shell line (for error messages)."""
    key = shell_source(args)
    if key is not None:
        return [], str(args.get("shell") if key == "shell" else args.positionals[0])
    if not args.positionals:
        raise CommandError("exec requires a command")
    return list(args.positionals), None


def shell_source(args: StageArgs) -> str | int | None:
    """Which argument is the shell line: the `--shell` value, the first positional, or none (argv mode).

    The first positional is a shell line after a bare `--shell`, and (as in the reference) when it is
    the only positional and holds whitespace: the implicit-shell form.
    """
    shell = args.get("shell")
    if isinstance(shell, str):
        return "shell"
    if shell is True and args.positionals:
        return 0
    if len(args.positionals) == 1 and _WHITESPACE.search(args.positionals[0]):
        return 0
    return None


def shell_line(args: StageArgs, ctx: RunContext) -> tuple[str, dict[str, str]] | None:
    """The shell line with each `${arg}` as a quoted variable reference (when the run renders shell words)."""
    key = shell_source(args)
    if key is None:
        return None
    word = args.word(key)
    if word is not None and ctx.render_shell is not None:
        return ctx.render_shell(word, ctx.env)
    return str(args.get("shell") if key == "shell" else args.positionals[0]), {}


def stdin_payload(mode: str, items: list[Any]) -> bytes:
    """The child's stdin for `--stdin raw|json|jsonl`."""
    if mode == "json":
        text = stringify(items)
    elif mode == "jsonl":
        text = "".join(stringify(item) + "\n" for item in items)
    else:
        text = "\n".join(item if isinstance(item, str) else stringify(item) for item in items)
    return text.encode("utf-8")


def run_exec(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    """Drain the input, start the child, and stream its stdout (with `--json`: read to the end, then parsed as pulled)."""
    argv, shell_text = command_line(args)
    line = shell_line(args, ctx)
    payload = _payload(args, input)
    cap = output_cap(ctx.env)  # a bad LOBSTER_MAX_OUTPUT_BYTES stops the stage before the child starts
    proc = _start(argv, line, ctx, payload)
    lines = _ChildLines(proc, ctx, payload, argv[0] if shell_text is None else shell_text, cap)
    if args.truthy("json"):
        return StageOutput(json_items(spooled(lines.seen_raw_chunks()), ctx.cancel))
    return StageOutput(lines.items())


def _payload(args: StageArgs, input: Iterator[Any]) -> bytes | None:
    mode = args.text("stdin")
    items = drain(input)
    if not mode:  # as in the reference, a bare `--stdin` or an empty value writes nothing to the child
        return None
    if mode.lower() not in STDIN_MODES:
        raise CommandError(f"exec --stdin must be raw, json, or jsonl (got {mode})")
    return stdin_payload(mode.lower(), items)


def _start(
    argv: list[str], line: tuple[str, dict[str, str]] | None, ctx: RunContext, payload: bytes | None,
) -> subprocess.Popen[bytes]:
    target = shell_argv(line[0], ctx.env) if line is not None else argv
    env = {**ctx.env, **line[1]} if line is not None else ctx.env
    try:
        return ctx.cancel.spawn(target, env, ctx.cwd, stdin=payload is not None)
    except FileNotFoundError:
        if line is not None:
            raise CommandError("exec shell not found; check LOBSTER_SHELL or ComSpec") from None
        raise CommandError(f"exec command not found: {argv[0]}") from None
    except OSError as exc:
        raise CommandError(f"exec failed (null): {exc.strerror or exc}: {target[0]}") from None
    except ValueError as exc:  # a NUL byte in an argument or in the environment
        raise CommandError(f"exec failed (null): {exc}: {target[0]}") from None


class _ChildLines:
    """A running child: its stdout as text, its stderr collected in a thread, both capped, errors on exit.

    `label` names the child in `exec failed (<code>): …` when it printed nothing: the command, or the shell line.
    """

    def __init__(self, proc: subprocess.Popen[bytes], ctx: RunContext, payload: bytes | None, label: str, cap: OutputCap) -> None:
        self.proc, self.cancel, self.label = proc, ctx.cancel, label
        self.stdout = CappedReader(proc, "stdout", cap, keep=0)
        self.stderr = CappedReader(proc, "stderr", cap, keep=1 << 20)
        self.stdout_seen: list[str] = []
        self._threads = [threading.Thread(target=self._read_stderr, daemon=True)]
        if payload is not None:
            self._threads.append(threading.Thread(target=write_stdin, args=(proc, payload), daemon=True))
        for thread in self._threads:
            thread.start()

    def items(self) -> Iterator[str]:
        """Non-empty stdout lines, as they arrive; stopping early kills the child's tree."""
        pending = ""
        for chunk in self.text_chunks():
            pending += chunk
            *complete, pending = _LINE_BREAK.split(pending)
            yield from (line for line in complete if line)
        if pending:
            yield pending

    def text_chunks(self) -> Iterator[str]:
        """Decoded stdout chunks; raises `exec failed (<code>): …` when the child fails."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        raw_chunks = self.raw_chunks()
        try:
            for raw in raw_chunks:
                text = decoder.decode(raw)
                self._seen(text)
                yield text
        finally:
            raw_chunks.close()
        yield decoder.decode(b"", final=True)

    def seen_raw_chunks(self) -> Iterator[bytes]:
        """Stdout as read (its first MiB also decoded for error messages, as `text_chunks` does)."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        for raw in self.raw_chunks():
            if self._seen_bytes() < 1 << 20:
                self._seen(decoder.decode(raw))
            yield raw

    def raw_chunks(self) -> Generator[bytes, None, None]:
        """Stdout as read, capped; raises `exec failed (<code>): …` when the child fails."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        finished = False
        try:
            for raw in iter(lambda: os.read(fd, CHUNK), b""):
                if not self.stdout.take(raw):
                    self.stdout.give_up(fd)
                    break
                yield raw
            finished = True
        finally:
            self._finish(finished)

    def _seen_bytes(self) -> int:
        return sum(map(len, self.stdout_seen))

    def _seen(self, text: str) -> None:
        if self._seen_bytes() < 1 << 20:
            self.stdout_seen.append(text)

    def _finish(self, finished: bool) -> None:
        if not finished or self.cancel.cancelled:
            kill_tree(self.proc)
        code = self.proc.wait()
        for thread in self._threads:
            thread.join(timeout=1)
        self.cancel.forget(self.proc)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        self.cancel.check()
        self.stdout.check()
        self.stderr.check()
        if finished and code != 0:
            raise CommandError(f"exec failed ({code if code >= 0 else 'null'}): {self._reason()}")

    def _reason(self) -> str:
        err = self.stderr.data.decode("utf-8", "replace").strip()
        return err or "".join(self.stdout_seen).strip() or self.label

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr.read_all(self.proc.stderr.fileno())
        self.proc.stderr.close()
