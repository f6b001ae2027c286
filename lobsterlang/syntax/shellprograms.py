"""Programs that run what they read on stdin as their code, so a here-document or here-string fed to them is a program.

`stdin_program(values)` names the interpreter (`python3`, `bash`, `psql`, `ssh`…) when the command
whose words are `values` (literal words; None for a word with an expansion) reads its program from
stdin, after stepping over wrappers such as `sudo`, `env`, `timeout` and `nice`; None when stdin is
data to it (`python3 -c …`, `python3 script.py`, `jq .`, `cat`) or when the program is not listed here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lobsterlang.syntax.shellwords import scan_options

STDIN = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
"""File names that mean the program's stdin."""


@dataclass(frozen=True)
class Interpreter:
    """How a program finds its code.

    `inline`: option letters or words whose presence puts the code in an argument (`-c`, `-e`);
    `from_file`: options naming the program file (stdin when it is `-` or `/dev/stdin`);
    `takes_value`/`long_values`: other options followed by a value; `program_operand`: which
    operand is the program file (None: operands never are); `default`: whether stdin is the
    program when nothing else names one; `stdin_letters`: option letters that force stdin (`sh -s`).
    """

    inline: frozenset[str] = frozenset()
    inline_letters: str = ""
    from_file: frozenset[str] = frozenset()
    takes_value: str = ""
    long_values: frozenset[str] = frozenset()
    program_operand: int | None = 0
    default: bool = True
    stdin_letters: str = ""


_SHELL = Interpreter(inline=frozenset({"--command"}), inline_letters="c", takes_value="oO", stdin_letters="s",
                     long_values=frozenset({"--rcfile", "--init-file"}))
_PYTHON = Interpreter(inline_letters="cm", takes_value="WX")
_DATA_UNLESS_FILE = Interpreter(from_file=frozenset({"-f", "--file", "--from-file"}), program_operand=None, default=False)
INTERPRETERS: dict[str, Interpreter] = {
    **dict.fromkeys(("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish"), _SHELL),
    **dict.fromkeys(("node", "nodejs"), Interpreter(inline=frozenset({"-e", "--eval", "-p", "--print"}), takes_value="r",
                                                     long_values=frozenset({"--require", "--import", "--loader"}))),
    "ruby": Interpreter(inline_letters="e", takes_value="IrCEF"),
    "perl": Interpreter(inline_letters="eE", takes_value="IM"),
    "php": Interpreter(inline=frozenset({"-r"}), from_file=frozenset({"-f"}), takes_value="cdz"),
    **dict.fromkeys(("lua", "luajit"), Interpreter(inline=frozenset({"-e"}), takes_value="l")),
    "Rscript": Interpreter(inline=frozenset({"-e"})),
    "R": Interpreter(inline=frozenset({"-e"}), from_file=frozenset({"-f", "--file"}), program_operand=None),
    "osascript": Interpreter(inline=frozenset({"-e"}), takes_value="ls"),
    **dict.fromkeys(("pwsh", "powershell"), Interpreter(from_file=frozenset({"-c", "-command", "-f", "-file"}))),
    **dict.fromkeys(("bc", "dc"), Interpreter(program_operand=None)),
    "psql": Interpreter(inline=frozenset({"-c", "--command"}), from_file=frozenset({"-f", "--file"}), takes_value="hpUdvoLTFRP",
                        long_values=frozenset({"--host", "--port", "--username", "--dbname", "--set", "--variable"}), program_operand=None),
    **dict.fromkeys(("mysql", "mariadb"), Interpreter(inline=frozenset({"-e", "--execute"}), takes_value="huPDS",
                                                      long_values=frozenset({"--host", "--user", "--port", "--database"}), program_operand=None)),
    "sqlite3": Interpreter(long_values=frozenset({"-cmd", "-separator", "-newline", "-nullvalue", "-init"}), program_operand=1),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "jq", "gojq"), _DATA_UNLESS_FILE),
    **dict.fromkeys(("source", "."), Interpreter(default=False)),
}
"""Interpreters by program name (`python3.12`, `pypy3` and friends are matched by `_PYTHON_NAME`)."""
_PYTHON_NAME = re.compile(r"(?:python|pypy)[0-9.]*")


@dataclass(frozen=True)
class Wrapper:
    """A program that runs the command after its own options (`sudo -u x CMD`); `skip` operands come first (`timeout 5`)."""

    takes_value: str = ""
    long_values: frozenset[str] = frozenset()
    skip: int = 0
    assignments: bool = False


WRAPPERS: dict[str, Wrapper] = {
    "builtin": Wrapper(), "command": Wrapper(), "time": Wrapper(), "nohup": Wrapper(), "setsid": Wrapper(),
    "exec": Wrapper("a"), "doas": Wrapper("uC"), "stdbuf": Wrapper("ioe"), "ionice": Wrapper("cnp"),
    "sudo": Wrapper("ugCDhprtURT", frozenset({"--user", "--group", "--chdir", "--host", "--prompt", "--role", "--type"})),
    "env": Wrapper("uCS", frozenset({"--unset", "--chdir", "--split-string"}), assignments=True),
    "nice": Wrapper("n", frozenset({"--adjustment"})),
    "timeout": Wrapper("ks", frozenset({"--kill-after", "--signal"}), skip=1),
}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
SSH_VALUES = "BbcDEeFIiJLlmOoPpQRSWw"


def program_name(word: str | None) -> str:
    """`/usr/bin/python3` → `python3`."""
    return (word or "").rsplit("/", 1)[-1]


def unwrap(values: list[str | None]) -> list[str | None] | None:
    """The command that wrappers in `values` run (`sudo -u x python3 -` → `python3 -`); None when nothing runs (`command -v`)."""
    while values and program_name(values[0]) in WRAPPERS:
        name = program_name(values[0])
        spec = WRAPPERS[name]
        options = scan_options(values[1:], spec.takes_value, long_values=spec.long_values)
        if name == "command" and ("v" in options.flags or "V" in options.flags):
            return None
        rest = values[1 + options.operands :]
        while spec.assignments and rest and _ASSIGNMENT.match(rest[0] or ""):
            rest = rest[1:]
        values = rest[spec.skip :]
    return values


def stdin_program(values: list[str | None]) -> str | None:
    """The interpreter that runs the command's stdin as its program, or None (see the module docstring)."""
    command = unwrap(values)
    if not command:
        return None
    name = program_name(command[0])
    if name == "ssh":
        return _ssh(command[1:])
    spec = INTERPRETERS.get(name) or (_PYTHON if _PYTHON_NAME.fullmatch(name) else None)
    if spec is None:
        return None
    return name if _reads_program_from_stdin(spec, command[1:]) else None


def _ssh(args: list[str | None]) -> str | None:
    """`ssh host` runs stdin in the remote login shell; `ssh host CMD…` feeds stdin to CMD."""
    options = scan_options(args, SSH_VALUES)
    remote = args[options.operands + 1 :]
    if options.operands >= len(args):
        return None
    return "ssh" if not remote else stdin_program(remote)


def _reads_program_from_stdin(spec: Interpreter, args: list[str | None]) -> bool:
    operands: list[str | None] = []
    at = 0
    while at < len(args):
        word = args[at]
        if word == "--":
            operands += args[at + 1 :]
            break
        if word is None or word in STDIN or len(word) < 2 or word[0] not in "-+":
            operands.append(word)
            at += 1
            continue
        decided = _option(spec, word, args[at + 1] if at + 1 < len(args) else None)
        if decided is not None:
            return decided
        at += 2 if _takes_next(spec, word) else 1
    return _operands_decide(spec, operands)


def _option(spec: Interpreter, word: str, following: str | None) -> bool | None:
    """What option `word` says about stdin: True (it is the program), False (the program is elsewhere), None (nothing)."""
    name, _, value = word.partition("=")
    if name in spec.inline or name.lower() in spec.inline:
        return False
    if name in spec.from_file or name.lower() in spec.from_file:
        target = value or following
        return target in STDIN
    if word.startswith("-") and not word.startswith("--"):
        for letter in word[1:]:
            if letter in spec.stdin_letters:
                return True
            if letter in spec.inline_letters:
                return False
            if letter in spec.takes_value:
                break
    return None


def _takes_next(spec: Interpreter, word: str) -> bool:
    """Whether the word after option `word` is its value (`-o pipefail`, `-eo pipefail`, `--rcfile f`)."""
    if "=" in word:
        return False
    if word in spec.long_values:
        return True
    if word.startswith("--"):
        return False
    first = next((i for i, letter in enumerate(word[1:], 1) if letter in spec.takes_value), None)
    return first == len(word) - 1


def _operands_decide(spec: Interpreter, operands: list[str | None]) -> bool:
    if spec.program_operand is None:
        return spec.default
    if len(operands) <= spec.program_operand:
        return spec.default
    return operands[spec.program_operand] in STDIN


def passes_stdin_through(values: list[str | None]) -> bool:
    """Whether the command copies its stdin to its stdout unchanged (`cat`, `cat -`)."""
    command = unwrap(values)
    if not command or program_name(command[0]) != "cat":
        return False
    return all(word in STDIN or (word or "").startswith("-") for word in command[1:])
