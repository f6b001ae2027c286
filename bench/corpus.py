"""Deterministic generators of realistic `.lobster` workflow files for the compile benchmarks."""

from __future__ import annotations

import random
from pathlib import Path

NOUNS = ("inbox", "orders", "invoices", "tickets", "builds", "alerts", "users", "events", "repos", "reports")
VERBS = ("fetch", "list", "sync", "check", "scan", "export", "triage", "merge", "notify", "publish")
FIELDS = ("count", "score", "size", "age", "priority", "retries", "total", "errors")
KEYS = ("id", "name", "status", "owner", "title", "url", "date", "kind")
ARGS = ("limit", "query", "channel", "region", "owner", "since")
YAML_INDICATORS = tuple("!&*?|>'\"%@`-{}[],#:")


def scalar(text: str) -> str:
    """`text` as a YAML scalar: plain when that is safe, else single-quoted."""
    plain_ok = not text.startswith(YAML_INDICATORS) and ": " not in text and " #" not in text
    if plain_ok and not text.endswith((":", " ")) and text.strip() == text and text not in ("true", "false", "null"):
        return text
    return "'" + text.replace("'", "''") + "'"


class _Workflow:
    """Builds one workflow's lines; remembers earlier steps so references point backwards."""

    def __init__(self, rng: random.Random, args: list[str], lines: list[str]) -> None:
        self.rng = rng
        self.args = args
        self.lines = lines
        self.ids: list[str] = []
        self.gates: list[str] = []

    def recent(self) -> str:
        return self.rng.choice(self.ids[-8:])

    def command(self) -> str:
        r = self.rng
        arg = r.choice(self.args)
        return f"{r.choice(NOUNS)} {r.choice(VERBS)} --json --{arg} ${{{arg}}} --max {r.randint(1, 500)}"

    def pipeline(self) -> str:
        r = self.rng
        stages = [f'exec --json --shell "{self.command()}"'] if r.random() < 0.6 else []
        stages.append(f"where '{r.choice(FIELDS)}>{r.randint(0, 9)}'")
        if r.random() < 0.4:
            stages.append(f"sort --key {r.choice(KEYS)}" + (" --desc" if r.random() < 0.5 else ""))
        stages.append("pick " + ",".join(r.sample(KEYS, r.randint(2, 4))))
        stages.append("head --n ${limit}" if "limit" in self.args and r.random() < 0.5 else f"head --n {r.randint(1, 50)}")
        return " | ".join(stages)

    def condition(self) -> str:
        r = self.rng
        compare = f"${self.recent()}.json.{r.choice(FIELDS)} {r.choice(('>', '>=', '<', '==', '!='))} {r.randint(0, 9)}"
        if self.gates and r.random() < 0.5:
            gate = r.choice(self.gates[-4:])
            return r.choice((f"{compare} && !${gate}.approved", f"${gate}.approved", f"!${gate}.approved"))
        return r.choice((compare, f"{self.exit_code(self.recent())} == 0 || {compare}", f'${self.recent()}.json.status == "ok"'))

    def exit_code(self, step_id: str) -> str:
        """`$step.exitCode` (empty at run time), or `$gate.json.exitCode` for an approval step, whose result has no
        `exitCode` field at all (a compile error, S121)."""
        return f"${step_id}.json.exitCode" if step_id in self.gates else f"${step_id}.exitCode"

    def step(self, index: int) -> None:
        r, out = self.rng, self.lines
        step_id = f"{r.choice(VERBS)}-{r.choice(NOUNS)}-{index}"
        kind = r.choices(("run", "block", "pipeline", "approval"), weights=(4, 2, 4, 1))[0] if self.ids else "run"
        out.append(f"  - id: {step_id}")
        if self.ids and (kind in ("pipeline", "approval") or r.random() < 0.3):
            out.append(f"    stdin: ${self.recent()}.{r.choice(('json', 'json', 'stdout'))}")
        if self.ids and r.random() < 0.35:
            out.append(f"    when: {scalar(self.condition())}")
        if kind == "approval":
            self.approval(step_id)
        else:
            if r.random() < 0.4:
                self.env()
            self.action(kind, step_id)
            self.recovery()
        self.ids.append(step_id)

    def env(self) -> None:
        r = self.rng
        self.lines.append("    env:")
        for name in r.sample(("TOKEN", "REGION", "MODE", "TARGET", "LABEL"), r.randint(1, 3)):
            value = r.choice((f"${{{r.choice(self.args)}}}", f"{r.choice(NOUNS)}-{r.randint(1, 99)}"))
            if self.ids and r.random() < 0.4:
                value = f"${self.recent()}.json.{r.choice(KEYS)}"
            self.lines.append(f"      {name}: {scalar(value)}")

    def action(self, kind: str, step_id: str) -> None:
        out = self.lines
        if kind == "run":
            out.append(f"    run: {scalar(self.command())}")
        elif kind == "pipeline":
            out.append(f"    pipeline: {scalar(self.pipeline())}")
        else:
            out.append("    run: |")
            out.extend(f"      {self.command()} >&2" for _ in range(self.rng.randint(2, 4)))
            out.append(f"      printf '{{\"ok\":true,\"step\":\"%s\"}}\\n' {step_id}")

    def approval(self, step_id: str) -> None:
        r, out = self.rng, self.lines
        self.gates.append(step_id)
        if r.random() < 0.2:
            out.append("    approval: required")
            return
        prompt = f"Apply {r.randint(1, 40)} changes to {r.choice(NOUNS)} in ${{{r.choice(self.args)}}}?"
        out.extend(("    approval:", f"      prompt: {scalar(prompt)}"))
        if r.random() < 0.3:
            out.extend(("      items:", f"        - {r.choice(NOUNS)} {r.randint(1, 9)}", "      require_different_approver: true"))

    def recovery(self) -> None:
        r, out = self.rng, self.lines
        if r.random() < 0.25:
            out.extend(("    retry:", f"      max: {r.randint(2, 5)}", f"      backoff: {r.choice(('fixed', 'exponential'))}"))
            out.append(f"      delay_ms: {r.choice((250, 500, 1000, 2000))}")
        if r.random() < 0.25:
            out.append(f"    timeout_ms: {r.choice((5000, 30000, 60000, 300000))}")
        if r.random() < 0.1:
            out.append(f"    on_error: {r.choice(('continue', 'stop', 'skip_rest'))}")


def workflow(seed: str, steps: int = 20) -> str:
    """One workflow file of `steps` steps; the same seed always gives the same text."""
    rng = random.Random(seed)
    args = rng.sample(ARGS, rng.randint(2, 4))
    lines = [f"# generated by bench/corpus.py (seed {seed!r})", f"name: bench-{rng.choice(NOUNS)}-{rng.randint(1, 999)}"]
    lines.append(f"description: {rng.choice(VERBS).capitalize()} {rng.choice(NOUNS)} and report on them.")
    lines.append("args:")
    for name in args:
        lines.extend((f"  {name}:", f"    default: {scalar(str(rng.randint(1, 100)) if name == 'limit' else rng.choice(NOUNS))}"))
    if rng.random() < 0.3:
        lines.extend(("env:", f"  LOG_LEVEL: {rng.choice(('info', 'debug', 'warn'))}"))
    lines.append("steps:")
    builder = _Workflow(rng, args, lines)
    for index in range(steps):
        builder.step(index)
    return "\n".join(lines) + "\n"


def write_corpus(directory: Path, count: int, steps: int = 20, seed: int = 0) -> list[Path]:
    """Write `count` different workflows to `directory`; returns their paths in order."""
    paths = []
    for index in range(count):
        path = directory / f"wf-{index:04d}.lobster"
        path.write_text(workflow(f"{seed}:{index}", steps), encoding="utf-8")
        paths.append(path)
    return paths
