"""Which parsed shell commands have side effects: HTTP writes, merges, pushes, deploys, deletions, mail."""

from __future__ import annotations

import re

from lobsterlang.syntax.shellparse import Command

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
    "kubectl": frozenset({"apply", "delete", "create", "replace", "patch", "scale", "rollout", "drain", "cordon", "edit", "set"}),
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
_READERS = frozenset({"echo", "printf", "jq", "grep", "cat", "sed", "awk", "test", "[", "true", "false", "ls", "find"})

_HINTS = frozenset({
    "curl", "wget", "http", "https", "xh", "gh", "git", "kubectl", "helm", "terraform", "tofu", "docker", "npm", "pnpm",
    "yarn", "cargo", "twine", "fly", "vercel", "netlify", "openclaw", "sendmail", "mail", "mailx", "msmtp", "mutt", "rm",
    "dd", "mkfs", "shred", "wipefs", "send", "post", "delete", "apply", "publish", "deploy",
})
_LOWER_WORDS = re.compile(r"[a-z]+")


def may_act(text: str) -> bool:
    """A quick test true of every acting script (it has a program or subcommand name of `_HINTS` as a run of
    letters): most scripts are never parsed for effects."""
    return not _HINTS.isdisjoint(_LOWER_WORDS.findall(text))


def command_effect(command: Command) -> str | None:
    """Why a simple command has a side effect (`runs \\`curl -X POST\\``), or None."""
    program = command.program
    if not program or program in _READERS:
        return None
    words = [w.value for w in command.args]
    subcommands = command.positionals()
    if program == "gh" and subcommands[:1] == ["api"]:
        found = _gh_api_write(words)
        return f"runs `{found}`" if found else None
    found = _http_write(program, words) or _subcommand_effect(program, subcommands) or _destructive(program, words, subcommands)
    return f"runs `{found}`" if found else None


def _http_write(program: str, words: list[str]) -> str | None:
    if program not in ("curl", "wget", "http", "https", "xh"):
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
    verbs = _VERB_COMMANDS.get(program)
    if verbs is not None and subcommands and subcommands[0] in verbs:
        return f"{program} {subcommands[0]}"
    return None


def _destructive(program: str, words: list[str], subcommands: list[str]) -> str | None:
    if program == "rm" and _recursive(words) and not all(_temporary(p) for p in subcommands):
        return "rm -r"
    if program in _MAIL_PROGRAMS:
        return f"{program} (sends mail)"
    if program in _DESTROYERS:
        return program
    if program not in _SUBCOMMANDS and program not in _VERB_COMMANDS and subcommands[:1] and subcommands[0] in _ACTING_NAMES:
        return f"{program} {subcommands[0]}"
    return None


def _recursive(words: list[str]) -> bool:
    return any(w == "--recursive" or (w.startswith("-") and not w.startswith("--") and ("r" in w or "R" in w)) for w in words)


def _temporary(path: str) -> bool:
    return path.startswith(("/tmp/", "$TMPDIR", "${TMPDIR", "$tmp", "${tmp", "$TMP", "${TMP"))
