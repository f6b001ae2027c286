"""`lobsterlang.syntax.shellvalues`: where bash evaluates a `${x}` value, read from the parse tree (no shell runs here).

tests/test_shell_eval_contexts.py runs the constructs under real shells; this file pins the decisions,
including spellings and neighbours that must stay data.
"""

from __future__ import annotations

import re

import pytest

from lobsterlang.syntax.shellhints import may_evaluate
from lobsterlang.syntax.shellparse import Script
from lobsterlang.syntax.shellprograms import stdin_program
from lobsterlang.syntax.shellvalues import value_uses

REF = re.compile(r"\$\{x\}")

EVALUATED = {
    "echo $((${x} + 1))": ("arithmetic", "$((…))"),
    "echo $[${x} + 1]": ("arithmetic", "$[…]"),
    "(( ${x} > 1 ))": ("arithmetic", "((…))"),
    "for (( i = 0; i < ${x}; i++ )); do :; done": ("arithmetic", "for ((…))"),
    'echo "${a[${x}]}"': ("arithmetic", "an array subscript"),
    "echo ${s:${x}:2}": ("arithmetic", "a substring offset ${x:…}"),
    'echo "${@:${x}}"': ("arithmetic", "a substring offset ${x:…}"),
    "echo $(( ${v:-${x}} ))": ("arithmetic", "$((…))"),
    '[[ "${x}" -eq 1 ]]': ("arithmetic", "[[ … -eq … ]]"),
    "[[ ! ( ${x} -gt 1 ) ]]": ("arithmetic", "[[ … -gt … ]]"),
    'let "v = ${x}"': ("arithmetic", "let"),
    "let 'v = ${x}'": ("arithmetic", "let"),
    'builtin let "v=${x}"': ("arithmetic", "let"),
    'command -p let "v=${x}"': ("arithmetic", "let"),
    'command -- let "v=${x}"': ("arithmetic", "let"),
    'builtin builtin let "v=${x}"': ("arithmetic", "let"),
    '\\let "v=${x}"': ("arithmetic", "let"),
    'l\\et "v=${x}"': ("arithmetic", "let"),
    '"l"e\'t\' "v=${x}"': ("arithmetic", "let"),
    "$'\\154et' \"v=${x}\"": ("arithmetic", "let"),
    "$'\\x6cet' \"v=${x}\"": ("arithmetic", "let"),
    'time -p let "v=${x}"': ("arithmetic", "let"),
    'echo "$(let "v=${x}")"': ("arithmetic", "let"),
    "declare -i v=${x}": ("arithmetic", "declare -i"),
    "local -ri v=${x}": ("arithmetic", "local -i"),
    "integer v=${x}": ("arithmetic", "integer"),
    "float v; v=${x}": ("arithmetic", "an integer variable (declare -i v)"),
    "command declare -i v=${x}": ("arithmetic", "declare -i"),
    "declare -ai a=(1 ${x})": ("arithmetic", "declare -i"),
    "typeset -i v; v+=${x}": ("arithmetic", "an integer variable (declare -i v)"),
    "declare -i v; v=$(echo ${x})": ("arithmetic", "an integer variable (declare -i v)"),
    "a[${x}]=1": ("arithmetic", "an array subscript"),
    "a+=([${x}]=1)": ("arithmetic", "an array subscript"),
    "declare -a a=([${x}]=1)": ("arithmetic", "declare -a"),
    "echo $(( $(echo ${x}) ))": ("arithmetic", "$((…))"),
    "echo $(( $(cat <<EOF\n${x}\nEOF\n) ))": ("arithmetic", "$((…))"),
    "echo $(( `echo ${x}` ))": ("arithmetic", "$((…))"),
    'printf -v "${x}" %s 1': ("name", "printf -v"),
    'printf -v"${x}" %s 1': ("name", "printf -v"),
    'printf -v "a[${x}]" %s 1': ("arithmetic", "an array subscript in printf -v"),
    "read -r ${x}": ("name", "read"),
    "read -p prompt ${x}": ("name", "read"),
    "read -ra ${x}": ("name", "read -a"),
    "mapfile -t ${x} < f": ("name", "mapfile"),
    "readarray ${x} < f": ("name", "readarray"),
    "declare ${x}=1": ("name", "declare"),
    'declare "${x}"': ("name", "declare"),
    "export ${x}=1": ("name", "export"),
    "readonly ${x}": ("name", "readonly"),
    "f() { local ${x}=1; }": ("name", "local"),
    "declare -n r=${x}": ("name", "declare -n"),
    "declare -n r; r=${x}": ("name", "a nameref (declare -n r)"),
    "local -n r=${x}": ("name", "local -n"),
    "[[ -v ${x} ]]": ("name", "[[ -v … ]]"),
    "[ -v ${x} ]": ("name", "[ -v … ]"),
    "[[ -R ${x} ]]": ("name", "[[ -R … ]]"),
    "test -v ${x}": ("name", "test -v"),
    "test ! -v ${x}": ("name", "test -v"),
    "unset ${x}": ("name", "unset"),
    "unset -v ${x}": ("name", "unset"),
    "getopts ab ${x}": ("name", "getopts"),
    "wait -n -p ${x}": ("name", "wait -p"),
    "read $(echo ${x})": ("name", "read"),
    'declare -a "a=(${x})"': ("words", 'declare "a=(…)" (a quoted array assignment)'),
    'declare a="(${x})"': ("words", 'declare "a=(…)" (a quoted array assignment)'),
    "python3 <<'EOF'\nprint('${x}')\nEOF": ("program", "a here-document that python3 runs as its program"),
    "python3 - arg <<'EOF'\n${x}\nEOF": ("program", "a here-document that python3 runs as its program"),
    "/usr/bin/python3.12 -u <<EOF\n${x}\nEOF": ("program", "a here-document that python3.12 runs as its program"),
    "sudo -u bob env A=1 timeout 5 node <<'EOF'\n${x}\nEOF": ("program", "a here-document that node runs as its program"),
    "cat <<'EOF' | bash\n${x}\nEOF": ("program", "a here-document that bash runs as its program"),
    "cat - <<< \"${x}\" | sh -s": ("program", "a here-string that sh runs as its program"),
    "bash -eo pipefail <<'EOF'\n${x}\nEOF": ("program", "a here-document that bash runs as its program"),
    "ssh host <<'EOF'\n${x}\nEOF": ("program", "a here-document that ssh runs as its program"),
    "ssh -p 22 host python3 - <<'EOF'\n${x}\nEOF": ("program", "a here-document that python3 runs as its program"),
    "psql -U me db <<'EOF'\n${x}\nEOF": ("program", "a here-document that psql runs as its program"),
    "sqlite3 db <<'EOF'\n${x}\nEOF": ("program", "a here-document that sqlite3 runs as its program"),
    "jq -n -f /dev/stdin <<'EOF'\n${x}\nEOF": ("program", "a here-document that jq runs as its program"),
    'source /dev/stdin <<< "${x}"': ("program", "a here-string that source runs as its program"),
    'python3 <<< "${x}"': ("program", "a here-string that python3 runs as its program"),
    "echo $(($((${x}))))": ("arithmetic", "$((…))"),
    "echo $(( ${x} @(a|b) ))": ("unknown", "shell text that could not be parsed"),
    "echo $[ a b ]] ${x}; let": ("unknown", "shell text that could not be parsed"),
}

DATA = [
    "echo ${x}", "echo let ${x}", "echo 'let v=${x}'", "echo '$((${x}))'", "# let ${x}", "v=${x}", "a=(${x})",
    "declare v=${x}", "declare -a a=(${x})", "declare -A m=([${x}]=1)", "export v=${x}", "echo @(a|b) ${x}",
    "[ ${x} -eq 1 ]", "test ${x} -eq 1", "[[ ${x} == a ]]", "[[ -n ${x} ]]", "printf '%d' ${x}", "read -p ${x} v", "read -t ${x} v",
    "unset -f ${x}", "echo ${v:-${x}}", "command -v let ${x}", "${x} let v=1", "shift ${x}", "n=$(wc -l < ${x}); echo $((n))",
    "echo $(( $(wc -l < ${x}) ))", "cat <<'EOF'\n${x}\nEOF", "cat <<EOF | grep -c x\n${x}\nEOF", "python3 -c 'print(1)' <<'EOF'\n${x}\nEOF",
    "python3 script.py <<'EOF'\n${x}\nEOF", "bash -c 'cat' <<'EOF'\n${x}\nEOF", "awk '{print}' <<'EOF'\n${x}\nEOF", "jq . <<< ${x}",
    "psql -c 'select 1' <<'EOF'\n${x}\nEOF", "sqlite3 db 'select 1' <<'EOF'\n${x}\nEOF", "ssh host 'cat > f' <<'EOF'\n${x}\nEOF",
    "sudo tee f <<'EOF'\n${x}\nEOF", "{ python3; } <<'EOF'\n${x}\nEOF", "mapfile -C ${x} -c 1 a < f", "eval ${x}", "diff <(echo ${x}) f",
]


def uses(text: str) -> list[tuple[str, str] | None]:
    spans = [(m.start(), m.end()) for m in REF.finditer(text)]
    return [None if use is None else (use.kind, use.construct) for use in value_uses(Script(text), spans)]


@pytest.mark.parametrize("text", sorted(EVALUATED))
def test_evaluated_contexts(text: str) -> None:
    assert uses(text) == [EVALUATED[text]]


@pytest.mark.parametrize("text", DATA)
def test_data_contexts(text: str) -> None:
    assert uses(text) == [None]


@pytest.mark.parametrize("text", sorted(EVALUATED))
def test_the_quick_test_picks_every_evaluated_text(text: str) -> None:
    assert may_evaluate(text)


@pytest.mark.parametrize("text", ["echo ${x}", "curl -sf \"https://x/${x}\" | jq .items", "git commit -m \"${x}\"", 'echo "${x}" > out'])
def test_the_quick_test_leaves_plain_commands_unparsed(text: str) -> None:
    assert not may_evaluate(text)


def test_offsets_count_characters_not_bytes() -> None:
    text = "echo ☃☃ && let \"v=${x}\""
    assert uses(text) == [("arithmetic", "let")]


@pytest.mark.parametrize(
    "words, program",
    [(["python3"], "python3"), (["python3", "-"], "python3"), (["python3", "-c", "x"], None), (["python3", "-m", "json.tool"], None),
     (["python3", "-W", "ignore"], "python3"), (["python3", "-Wignore", "s.py"], None), (["bash", "-lc", "x"], None),
     (["bash", "-s", "a"], "bash"), (["bash", "s.sh"], None), (["bash", "-o", "pipefail"], "bash"), (["node", "--eval", "1"], None),
     (["node", "--require", "x", "-"], "node"), (["perl", "-E", "say 1"], None), (["R", "-f", "-"], "R"), (["R", "-f", "s.R"], None),
     (["sqlite3", "-cmd", ".mode json", "db"], "sqlite3"), (["command", "-v", "python3"], None), (["nice", "-n", "5", "ruby"], "ruby"),
     (["timeout", "--signal", "KILL", "5", "php"], "php"), (["env", "-u", "X", "A=1", "lua"], "lua"), (["ssh", "h", "cat"], None),
     (["ssh"], None), ([None, "x"], None), (["python3", None], None), (["cat"], None), (["pwsh", "-Command", "-"], "pwsh")],
)
def test_stdin_programs(words: list[str | None], program: str | None) -> None:
    assert stdin_program(words) == program
