"""Would msgspec pay for the data layer? Its import cost, IR records as msgspec Structs, its JSON codec for the IR and for `exec --json`.

Each engine runs in its own process: `record` is lobsterlang as it is; `msgspec` replaces `lobsterlang.record`
before anything imports it with `Record = msgspec.Struct` (frozen, `gc=False`, tagged by class name), so the
whole compiler builds Structs (bench/struct_records.py). The figures are compared in bench/README.md ("msgspec for the data layer").

    python bench/msgspec_bench.py           # about 2 minutes on the 2-core dev machine
    python bench/msgspec_bench.py --quick   # a smoke run
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402
from harness import best_of, best_of_each, one_core  # noqa: E402

ENGINES = ("record", "msgspec")


def engine_figures(engine: str, files: int, passes: int) -> dict[str, float]:
    """Compile throughput, record construction and the IR codec, in this process (one CPU)."""
    if engine == "msgspec":
        import struct_records  # type: ignore[import-not-found, unused-ignore]

        struct_records.install()
    from lobsterlang import ir, ir_codec
    from lobsterlang.compile import compile_workflow

    with tempfile.TemporaryDirectory() as tmp, one_core():
        sources = [(p.read_bytes(), str(p)) for p in corpus.write_corpus(Path(tmp), files)]
        trees = [compile_workflow(data, name).ir for data, name in sources]
        compile_s = best_of(passes, lambda: [compile_workflow(data, name) for data, name in sources])
        eager = [ir_codec.from_json(ir_codec.to_json(tree)) for tree in trees]  # spans as six numbers, not lazy
        figures = {"compile_files_per_s": files / compile_s, "records_per_file": _count(trees[0]) or 0.0}
        figures.update(_construction(ir))
        figures.update(_codec(engine, ir, ir_codec, eager, passes))
    return figures


def _count(node: Any) -> int:
    from lobsterlang.record import Record

    if isinstance(node, Record):
        return 1 + sum(_count(getattr(node, name)) for name in node._fields)
    if isinstance(node, tuple) and not hasattr(node, "start"):
        return sum(_count(item) for item in node)
    return 0


def _construction(ir: Any) -> dict[str, float]:
    """ns per record made, the collector paused as when compiling: a 2-field `Text` and the 15-field `Step`; bytes of a `Step`."""
    from lobsterlang.gcpause import collector_paused
    from lobsterlang.span import NO_SPAN

    text_args = ("x", NO_SPAN)
    step_args = ("s", None, None, None, None, None, None, None, None, None, None, None, (), NO_SPAN, NO_SPAN)
    count = 200_000
    with collector_paused():
        text = best_of(5, lambda: [ir.Text(*text_args) for _ in range(count)])
        step = best_of(5, lambda: [ir.Step(*step_args) for _ in range(count)])
    return {
        "make_text_ns": text / count * 1e9,
        "make_step_ns": step / count * 1e9,
        "step_bytes": sys.getsizeof(ir.Step(*step_args)),
    }


def _codec(engine: str, ir: Any, ir_codec: Any, trees: list[Any], passes: int) -> dict[str, float]:
    """ms per corpus file to encode the IR to JSON text and to decode it back (msgspec's text checked against today's)."""
    texts = [json.dumps(ir_codec.to_json(tree), separators=(",", ":")) for tree in trees]
    works: dict[str, Callable[[], object]] = {
        "encode": lambda: [json.dumps(ir_codec.to_json(tree), separators=(",", ":")) for tree in trees],
        "decode": lambda: [ir_codec.from_json(json.loads(text)) for text in texts],
    }
    if engine == "msgspec":
        import msgspec  # type: ignore[import-not-found, unused-ignore]

        from lobsterlang.span import Span

        encoder = msgspec.json.Encoder()
        decoder: Any = msgspec.json.Decoder(ir.Workflow, dec_hook=lambda kind, value: Span.from_list(value))
        works = {
            "encode": lambda: [encoder.encode(tree) for tree in trees],
            "decode": lambda: [decoder.decode(text) for text in texts],
        }
        ours = ['{"ir_version":1,' + encoder.encode(tree).decode()[1:] for tree in trees]
        if ours != texts or works["decode"]() != trees:
            raise SystemExit("msgspec's IR JSON differs from today's")
    times = best_of_each(passes, works)
    return {f"ir_{name}_ms_per_file": seconds / len(trees) * 1000 for name, seconds in times.items()}


def import_ms(statement: str, runs: int) -> tuple[float, float]:
    """Min and median ms of `statement` in a fresh process that has already imported what `lobster run` has (typing, inspect)."""
    code = f"import time, typing, inspect, dataclasses, datetime, json; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout)
        * 1000
        for _ in range(runs)
    ]
    return min(times), statistics.median(times)


def exec_json_figures(items: int, passes: int) -> dict[str, float]:
    """s per 1M items to decode `exec --json` text in 1 MiB batches as jsonitems does, `json.loads` and msgspec interleaved."""
    import msgspec  # type: ignore[import-not-found, unused-ignore]

    batches, batch, size = [], [], 0
    for i in range(items):
        batch.append(
            json.dumps(
                {"id": i, "n": (i * 7919) % items, "name": f"item-{i}", "kind": f"k{i % 997}", "tags": ["a", "b"]}
            )
        )
        size += len(batch[-1]) + 1
        if size >= 1 << 20 or i == items - 1:
            batches.append("[" + ",".join(batch) + "]")
            batch, size = [], 0
    decoders: dict[str, Callable[[str], Any]] = {"json": json.loads, "msgspec": msgspec.json.Decoder().decode}
    if any(decode(text) != json.loads(text) for text in batches[:2] for decode in decoders.values()):
        raise SystemExit("msgspec decodes the items differently")
    from lobsterlang.gcpause import collector_paused

    with one_core(), collector_paused():  # as run_pipeline runs the stages
        times = best_of_each(passes, {name: partial(_all_items, decode, batches) for name, decode in decoders.items()})
    return {f"exec_json_{name}_s_per_1m": seconds * 1_000_000 / items for name, seconds in times.items()}


def _all_items(decode: Callable[[str], Any], batches: list[str]) -> list[Any]:
    return [item for text in batches for item in decode(text)]


def pipeline_figures(items: int, passes: int) -> dict[str, float]:
    """CPU s of a whole `exec --json | where | pick | sort | head` run in this process, `json.loads` and msgspec in turns.

    For msgspec, `jsonitems` is given a `loads` that tries msgspec and, on any error, `json.loads` (the exact path).
    """
    import types

    import msgspec  # type: ignore[import-not-found, unused-ignore]

    from lobsterlang.compile import compile_pipeline
    from lobsterlang.interpret.pipeline import jsonitems
    from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline

    fast_decode = msgspec.json.Decoder().decode

    def fast_loads(text: str) -> Any:
        try:
            return fast_decode(text)
        except msgspec.DecodeError:
            return json.loads(text)

    modules = {"json": json, "msgspec": types.SimpleNamespace(loads=fast_loads, JSONDecodeError=json.JSONDecodeError)}
    pipeline = compile_pipeline(
        f"exec --json --shell 'cat items.json' | where 'n>={items // 2}' | pick id,n | sort --key n --desc | head --n 5"
    ).ir
    assert pipeline is not None
    cpu: dict[str, float] = dict.fromkeys(modules, float("inf"))
    with tempfile.TemporaryDirectory() as tmp, one_core():
        parts = (json.dumps({"id": i, "n": (i * 7919) % items, "name": f"item-{i}", "kind": f"k{i % 997}"}) for i in range(items))
        Path(tmp, "items.json").write_text("[" + ",".join(parts) + "]", encoding="utf-8")
        context = RunContext(cwd=tmp, env={**os.environ, "LOBSTER_MAX_OUTPUT_BYTES": str(1 << 30)})
        for _ in range(passes):
            for name, module in modules.items():
                setattr(jsonitems, "json", module)  # noqa: B010 (the module attribute jsonitems reads)
                begin = time.process_time()
                run_pipeline(pipeline, [], context)
                cpu[name] = min(cpu[name], time.process_time() - begin)
        setattr(jsonitems, "json", json)  # noqa: B010
    return {f"pipeline_cpu_s_{name}": seconds for name, seconds in cpu.items()}


def cold_starts(runs: int) -> dict[str, tuple[float, float]]:
    """Median and min ms of `lobster compile` / `lobster lint` of the twenty-step file, with and without Struct records, interleaved."""
    target = str(BENCH / "corpus" / "twenty-steps.lobster")
    prelude = f"import sys; sys.path.insert(0, {str(BENCH)!r}); "
    shim = "import struct_records; struct_records.install(); "
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    commands = {
        f"{command} {engine}": [
            sys.executable,
            "-c",
            prelude
            + (shim if engine == "msgspec" else "")
            + f"from lobsterlang.cli import main; sys.argv = ['lobster', {command!r}, {target!r}]; sys.exit(main())",
        ]
        for command in ("compile", "lint")
        for engine in ENGINES
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs + 1):  # the first round warms __pycache__ and is dropped
        for name, argv in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: (statistics.median(ms[1:]), min(ms[1:])) for name, ms in times.items()}


def in_child(function: str, *args: object) -> dict[str, float]:
    """Run one of the functions above in a fresh process, so that the engines do not share imports or memory."""
    code = f"import json, sys; sys.path.insert(0, {str(BENCH)!r}); import msgspec_bench as b; print(json.dumps(b.{function}(*{args!r})))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=BENCH.parent)
    if done.returncode:
        raise SystemExit(f"{function}{args} failed:\n{done.stderr}")
    return dict(json.loads(done.stdout))


def compile_some(engine: str, files: int, written: int) -> None:
    """Write `written` corpus files, compile one (the warm-up), then `files` more: `--callgrind` takes the difference of two runs."""
    if engine == "msgspec":
        import struct_records  # type: ignore[import-not-found, unused-ignore]

        struct_records.install()
    from lobsterlang.compile import compile_workflow

    with tempfile.TemporaryDirectory() as tmp:
        for path in corpus.write_corpus(Path(tmp), written)[: files + 1]:
            compile_workflow(path.read_bytes(), str(path))


def instructions(statement: str) -> int:
    """Instructions a fresh `python -c statement` executes (valgrind callgrind, fixed hash seed): steady under load."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", statement]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, cwd=BENCH)
    counted = [line for line in done.stderr.splitlines() if "Collected" in line]
    if done.returncode or not counted:
        raise SystemExit(f"callgrind failed:\n{done.stderr[-2000:]}")
    return int(counted[0].split()[-1])


def callgrind_figures(files: int) -> None:
    """Millions of instructions: importing msgspec, a cold `lobster compile`, and compiling one corpus file, per engine."""
    shim = "import struct_records; struct_records.install(); "
    target = str(BENCH / "corpus" / "twenty-steps.lobster")
    cli = f"from lobsterlang.cli import main; sys.argv = ['lobster', 'compile', {target!r}]; main()"
    loaded = "import sys, lobsterlang.compile, lobsterlang.ir_codec"
    extra = instructions(loaded + ", msgspec.json") - instructions(loaded)
    print(f"import msgspec.json after lobsterlang.compile: {extra / 1e6:.1f} M instructions")
    for engine in ENGINES:
        cold = instructions("import sys; " + (shim if engine == "msgspec" else "") + cli)
        runs = [
            instructions(f"import msgspec_bench; msgspec_bench.compile_some({engine!r}, {n}, {files + 1})")
            for n in (0, files)
        ]
        print(
            f"{engine:8} cold `lobster compile` {cold / 1e6:7.1f} M, one corpus file {(runs[1] - runs[0]) / files / 1e6:5.2f} M"
        )


def best_rows(rounds: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Each engine's best figure over rounds in which the two engines took turns (the most files/s, the fewest ns or ms)."""
    pick = {name: max if name.endswith("per_s") else min for name in rounds[0]["record"]}
    return {engine: {name: pick[name](r[engine][name] for r in rounds) for name in pick} for engine in ENGINES}


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, one pass")
    parser.add_argument("--callgrind", action="store_true", help="count instructions with valgrind instead of timing")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("msgspec") is None:
        raise SystemExit(
            "error: msgspec is not installed (it is not a dependency of lobsterlang)\nhint: pip install msgspec"
        )
    if args.callgrind:
        callgrind_figures(5 if args.quick else 20)
        return 0
    files, passes, items, runs, rounds = (25, 1, 20_000, 3, 1) if args.quick else (300, 5, 1_000_000, 20, 3)
    print(f"{load()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    low, middle = import_ms("import msgspec.json", runs)
    print(f"import msgspec.json (after typing, inspect, json): min {low:.1f} ms, median {middle:.1f} ms")
    for name, (middle, low) in cold_starts(runs).items():
        print(f"cold start {name:17} median {middle:6.1f} ms  min {low:6.1f} ms")
    rows = best_rows(
        [{engine: in_child("engine_figures", engine, files, passes) for engine in ENGINES} for _ in range(rounds)]
    )
    print(f"{'figure':28}{'record + json':>16}{'msgspec':>12}")
    for name in rows["record"]:
        print(f"{name:28}{rows['record'][name]:16.4g}{rows['msgspec'][name]:12.4g}")
    figures = {**in_child("exec_json_figures", items, passes), **in_child("pipeline_figures", items, passes)}
    for name, seconds in figures.items():
        print(f"{name:28}{seconds:16.4g}")
    print(load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
