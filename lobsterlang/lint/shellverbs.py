"""Which parsed shell commands have side effects: HTTP writes, merges, pushes, deploys, deletions, mail.

A command is judged by its program, its subcommands and its flags, also behind `sudo`/`env`/`timeout`/`xargs`
and inside `sh -c '…'`; a preview (`--dry-run`, `--preview`…) and a POST that only computes (a model's chat
completion, a search, a GraphQL query) do not act.
"""

from __future__ import annotations

import re

from lobsterlang.syntax.shellparse import Command, parse

_HTTP_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_CURL_BODY_FLAGS = ("-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "-F", "--form", "-T", "--upload-file", "--json")
_SUBCOMMANDS: dict[str, dict[str, frozenset[str]]] = {
    "gh": {
        "pr": frozenset({"merge", "create", "close", "comment", "edit", "review", "reopen", "ready"}),
        "issue": frozenset({"create", "close", "comment", "edit", "delete", "reopen", "transfer", "lock"}),
        "release": frozenset({"create", "delete", "upload", "edit"}),
        "repo": frozenset({"create", "delete", "archive", "rename", "edit", "fork"}),
        "workflow": frozenset({"run", "enable", "disable"}),
        "secret": frozenset({"set", "delete"}),
        "variable": frozenset({"set", "delete"}),
        "label": frozenset({"create", "delete", "edit"}),
        "gist": frozenset({"create", "delete", "edit"}),
    },
}
_VERB_COMMANDS: dict[str, frozenset[str]] = {
    "git": frozenset({"push"}),
    "kubectl": frozenset({"apply", "delete", "create", "replace", "patch", "scale", "drain", "cordon", "edit", "set", "label",
                          "annotate", "taint"}),
    "helm": frozenset({"install", "upgrade", "uninstall", "rollback", "delete"}),
    "terraform": frozenset({"apply", "destroy", "import"}),
    "tofu": frozenset({"apply", "destroy"}),
    "docker": frozenset({"push", "rm", "rmi"}),
    "npm": frozenset({"publish", "unpublish", "deprecate"}),
    "pnpm": frozenset({"publish"}),
    "yarn": frozenset({"publish"}),
    "cargo": frozenset({"publish"}),
    "twine": frozenset({"upload"}),
    "fly": frozenset({"deploy"}),
    "vercel": frozenset({"deploy"}),
    "netlify": frozenset({"deploy"}),
    "openclaw": frozenset({"send"}),
}
_MAIL_PROGRAMS = frozenset({"sendmail", "mail", "mailx", "msmtp", "mutt"})
_DESTROYERS = frozenset({"dd", "mkfs", "shred", "wipefs"})
_ACTING_NAMES = frozenset({"send", "post", "delete", "apply", "publish", "deploy"})
"""A first subcommand with one of these names acts (`mailer send`, `./release.sh deploy`)."""
_ROLLOUT_ACTS = frozenset({"restart", "undo", "pause", "resume"})
"""`kubectl rollout` subcommands that change a deployment (`status` and `history` read)."""
PREVIEW_FLAGS = frozenset({"--dry-run", "--dry_run", "--dryrun", "--preview", "--plan", "--diff", "--check", "--what-if",
                           "--noop", "--simulate", "--validate"})
"""Flags that make a command show what it would do instead of doing it."""
_VERB_DEPTH = 3
"""How many leading words of a known CLI may hold its acting verb (`kubectl -n prod delete`, `openclaw message send`)."""
_WRAPPERS = frozenset({"sudo", "env", "timeout", "nohup", "time", "nice", "command", "doas", "xargs", "watch"})
"""Programs that run the command in their arguments."""
_WRAPPER_VALUE_FLAGS = frozenset({"-u", "-g", "-n", "-I", "-P", "-L", "-d", "-E", "-s", "-a", "-k", "--signal",
                                   "--kill-after", "--max-args", "--max-procs", "--replace", "--delimiter", "--user", "--group"})
_COMPUTING = re.compile(
    r"/(?:v\d+(?:beta)?/)?(?:chat/completions|completions|embeddings|messages|responses|moderations|images/generations"
    r"|audio/transcriptions|api/generate|api/chat|api/embed|translate|search|_search|query|graphql)\b|:generateContent|:streamGenerateContent"
)
"""URL paths of APIs whose POST computes an answer and changes nothing (a model, a search, a translation)."""
_READERS = frozenset({"echo", "printf", "jq", "grep", "cat", "sed", "awk", "test", "[", "true", "false", "ls", "find"})

_HINTS = frozenset({
    "curl", "wget", "http", "https", "xh", "gh", "git", "kubectl", "helm", "terraform", "tofu", "docker", "npm", "pnpm",
    "yarn", "cargo", "twine", "fly", "vercel", "netlify", "openclaw", "sendmail", "mail", "mailx", "msmtp", "mutt", "rm",
    "dd", "mkfs", "shred", "wipefs", "send", "post", "delete", "apply", "publish", "deploy",
})
_LOWER_WORDS = re.compile(r"[a-z]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def may_act(text: str) -> bool:
    """A quick test true of every acting script (it has a program or subcommand name of `_HINTS` as a run of
    letters): most scripts are never parsed for effects."""
    return not _HINTS.isdisjoint(_LOWER_WORDS.findall(text))


def command_effect(command: Command, temporary: frozenset[str] = frozenset()) -> str | None:
    """Why a simple command has a side effect (`runs \\`curl -X POST\\``), or None; `temporary` names the args
    whose default is a temporary path (`rm -rf "${work_dir}"` with `/tmp/…` acts on nothing lasting)."""
    command = unwrapped(command)
    program = command.program
    if not program or program in _READERS:
        return None
    words = [w.value for w in command.args]
    if program in SHELL_PROGRAMS:
        return _shell_c_effect(words, temporary)
    subcommands = command.positionals()
    if program == "gh" and subcommands[:1] == ["api"]:
        found = _gh_api_write(words)
        return f"runs `{found}`" if found else None
    found = _http_write(program, words) or _subcommand_effect(program, subcommands) or _destructive(program, words, subcommands, temporary)
    return f"runs `{found}`" if found else None


SHELL_PROGRAMS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash"})


def unwrapped(command: Command) -> Command:
    """The command that `sudo`/`env X=1`/`timeout 5`/`xargs -I{}`… run (the command itself when it has no wrapper)."""
    for _ in range(4):
        if command.program not in _WRAPPERS:
            return command
        args = command.args
        index = 0
        while index < len(args) and (args[index].value.startswith("-") or "=" in args[index].value
                                     or (command.program == "timeout" and args[index].value[:1].isdigit())):
            index += 2 if args[index].value in _WRAPPER_VALUE_FLAGS else 1
        if index >= len(args):
            return command
        name = args[index]
        command = Command(name.value, name.start, name.end, command.end, args[index + 1 :])
    return command


def _shell_c_effect(words: list[str], temporary: frozenset[str]) -> str | None:
    """The effect of the script a shell runs with `-c '…'` (a literal script; its first acting command)."""
    for index, word in enumerate(words[:-1]):
        if word.startswith("-") and word.endswith("c") and word[1:].isalpha():
            for inner in parse(words[index + 1]).commands:
                found = command_effect(inner, temporary)
                if found:
                    return found
            return None
    return None


def _http_write(program: str, words: list[str]) -> str | None:
    if program not in ("curl", "wget", "http", "https", "xh"):
        return None
    if any(_COMPUTING.search(word) for word in words if "://" in word or word.startswith("/")) and not any("mutation" in w for w in words):
        return None
    query = program == "curl" and ("-G" in words or "--get" in words)
    # `curl --get -d x` sends the data as a query string: a GET
    for index, word in enumerate(words):
        method = _method(word, words[index + 1] if index + 1 < len(words) else "")
        if method in _HTTP_WRITES:
            return f"{program} -X {method}"
        if program == "curl" and not query and (word in _CURL_BODY_FLAGS or word.startswith(tuple(f + "=" for f in _CURL_BODY_FLAGS if f.startswith("--")))):
            return f"curl {word.split('=', 1)[0]} (a POST)"
        if program == "wget" and word.startswith(("--post-data", "--post-file", "--method")):
            return f"wget {word.split('=', 1)[0]}"
    if program in ("http", "https", "xh") and words and words[0].upper() in _HTTP_WRITES:
        return f"{program} {words[0].upper()}"
    return None


def _method(word: str, following: str) -> str:
    if word in ("-X", "--request"):
        return following.upper()
    if word.startswith("--request="):
        return word[10:].upper()
    if word.startswith("-X") and len(word) > 2:
        return word[2:].upper()
    return ""


def _gh_api_write(words: list[str]) -> str | None:
    """`gh api` with a write method, or with fields (which make it a POST)."""
    for index, word in enumerate(words):
        method = _method(word, words[index + 1] if index + 1 < len(words) else "") if word.startswith(("-X", "--request")) else ""
        if word in ("--method", "-X") and index + 1 < len(words):
            method = words[index + 1].upper()
        if method in _HTTP_WRITES:
            return f"gh api -X {method}"
        if word in ("-f", "-F", "--field", "--raw-field", "--input"):
            return f"gh api {word} (a POST)"
    return None


def _subcommand_effect(program: str, subcommands: list[str]) -> str | None:
    groups = _SUBCOMMANDS.get(program)
    if groups is not None and len(subcommands) >= 2 and subcommands[1] in groups.get(subcommands[0], ()):
        return f"{program} {subcommands[0]} {subcommands[1]}"
    if program == "kubectl" and "rollout" in subcommands[:_VERB_DEPTH]:
        after = subcommands[subcommands.index("rollout") + 1 : subcommands.index("rollout") + 2]
        return f"kubectl rollout {after[0]}" if after and after[0] in _ROLLOUT_ACTS else None
    verbs = _VERB_COMMANDS.get(program)
    at = next((i for i, word in enumerate(subcommands[:_VERB_DEPTH]) if verbs is not None and word in verbs), None)
    if at is None:
        return None
    shown = subcommands[at] if program == "kubectl" else " ".join(subcommands[: at + 1])  # kubectl: skip flag values
    return f"{program} {shown}"


def _destructive(program: str, words: list[str], subcommands: list[str], temporary: frozenset[str]) -> str | None:
    if program == "rm" and _recursive(words) and not all(_temporary(p, temporary) for p in subcommands):
        return "rm -r"
    if program in _MAIL_PROGRAMS:
        return f"{program} (sends mail)"
    if program in _DESTROYERS:
        return program
    if program in _SUBCOMMANDS or program in _VERB_COMMANDS or PREVIEW_FLAGS.intersection(w.split("=", 1)[0] for w in words):
        return None
    verb = _generic_verb(subcommands)
    return f"{program} {verb}" if verb else None


def _generic_verb(subcommands: list[str]) -> str | None:
    """An acting name as the first subcommand (`mailer send`), or the second after a plain noun (`gog gmail send`),
    with the words before it."""
    if subcommands[:1] and subcommands[0] in _ACTING_NAMES:
        return subcommands[0]
    if len(subcommands) >= 2 and subcommands[0].isalpha() and subcommands[1] in _ACTING_NAMES:
        return f"{subcommands[0]} {subcommands[1]}"
    return None


def _recursive(words: list[str]) -> bool:
    return any(w == "--recursive" or (w.startswith("-") and not w.startswith("--") and ("r" in w or "R" in w)) for w in words)


def _temporary(path: str, temporary: frozenset[str]) -> bool:
    if path.startswith(("/tmp/", "$TMPDIR", "${TMPDIR", "$tmp", "${tmp", "$TMP", "${TMP")):
        return True
    if path.startswith("${"):
        return path[2 : path.find("}")] in temporary
    name = _NAME.match(path, 1) if path.startswith("$") else None
    return name is not None and name.group(0) in temporary
