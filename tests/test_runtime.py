"""The pipeline runtime: lazy streaming, stopping producers, signals, JavaScript semantics, state keys."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import alive

from lobsterlang.compile import compile_pipeline
from lobsterlang.interpret.errors import InvalidToken, StateKeyError
from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline
from lobsterlang.interpret.state import StateStore, key_to_filename
from lobsterlang.interpret.tokens import decode_token, encode_unsigned
from lobsterlang.interpret.values import UNDEFINED, compare, js_string, number_str, stringify, to_number


def run(text: str, items: Iterable[Any] = (), **ctx: Any) -> list[Any]:
    pipeline = compile_pipeline(text).ir
    assert pipeline is not None
    return run_pipeline(pipeline, items, RunContext(**ctx)).items


def test_head_stops_an_endless_producer_and_kills_it(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    out = run(f"exec --shell 'echo $$ > {pidfile}; exec yes' | template --text 'got {{{{.}}}}' | head --n 3", cwd=str(tmp_path))
    assert out == ["got y"] * 3 and time.monotonic() - started < 5
    assert not alive(int(pidfile.read_text()))


def test_lazy_stages_pull_item_by_item() -> None:
    pulled: list[int] = []

    def source() -> Iterator[dict[str, int]]:
        for n in range(1_000_000):
            pulled.append(n)
            yield {"n": n}

    assert run("where n>=2 | pick n | head --n 2", source()) == [{"n": 2}, {"n": 3}]
    assert len(pulled) == 4


def test_unknown_command_is_reported_before_anything_runs(tmp_path: Path) -> None:
    from lobsterlang.interpret.errors import CommandError

    with pytest.raises(CommandError, match="Unknown command: nosuch"):
        run(f"exec --shell 'touch {tmp_path / 'ran'}' | nosuch")
    assert not (tmp_path / "ran").exists()


def test_render_word_substitutes_into_words() -> None:
    pipeline = compile_pipeline("exec echo WORD").ir
    assert pipeline is not None
    ctx = RunContext(render_word=lambda word: "replaced" if word.value == "WORD" else word.value)
    assert run_pipeline(pipeline, [], ctx).items == ["replaced"]


def _spawn_cli(pipeline: str, tmp_path: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "LOBSTER_STATE_DIR": str(tmp_path / "state")}
    return subprocess.Popen([sys.executable, "-m", "lobsterlang", "run", "--mode", "tool", pipeline],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_stops_the_run_and_its_process_tree(sig: int, code: int, tmp_path: Path) -> None:
    script = "sleep 60 & echo $! > grandchild; trap '' TERM; sleep 60"
    proc = _spawn_cli(f"exec --shell \"{script}\"", tmp_path)
    grandchild = tmp_path / "grandchild"
    deadline = time.monotonic() + 10
    while not (grandchild.exists() and grandchild.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=10)
    assert proc.returncode == code
    assert json.loads(out)["error"] == {"type": "runtime_error", "message": f"Received {signal.Signals(sig).name}"}
    assert not alive(int(grandchild.read_text()))


def test_loose_equality_and_relations() -> None:
    assert compare("==", "1", 1) and compare("==", 1, True) and not compare("==", "true", True)
    assert compare("==", None, UNDEFINED) and not compare("==", None, 0)
    assert compare(">=", None, 0) and not compare("<", UNDEFINED, 5) and not compare(">=", UNDEFINED, 5)
    assert compare("<", "B", "a") and compare("==", [1], "1") and compare("!=", {"a": 1}, "x")
    assert compare("<", "\uffff", "\U0001f600") is False  # UTF-16 code units, as JavaScript compares


def test_numbers_print_as_javascript() -> None:
    assert [number_str(x) for x in (1.0, 1e21, 1.5e-7, 0.000001, 123456789012345680000.0)] == [
        "1", "1e+21", "1.5e-7", "0.000001", "123456789012345680000"]
    assert stringify([1.0, float("nan"), UNDEFINED, {"a": UNDEFINED, "b": 2.5e-8}]) == '[1,null,null,{"b":2.5e-8}]'
    assert js_string([1, None, "a"]) == "1,,a" and js_string({"a": 1}) == "[object Object]"
    assert [to_number(x) for x in ("0x10", " 12 ", "", "1e3")] == [16, 12, 0, 1000]


@pytest.mark.parametrize(
    "key, name",
    [("_Demo KEY_", "demo_key.json"), ("___Demo KEY___", "demo_key.json"), (" Demo KEY ", "demo_key.json"),
     ("-Demo KEY-", "-demo_key-.json"), (".Demo KEY.", ".demo_key..json"), ("../../etc/passwd", ".._.._etc_passwd.json")],
)
def test_state_keys_map_to_file_names_as_the_reference(key: str, name: str) -> None:
    assert key_to_filename(key) == name


@pytest.mark.parametrize("key", ["_", "___", ""])
def test_empty_state_keys_are_refused(key: str) -> None:
    with pytest.raises(StateKeyError, match="state key is empty/invalid"):
        key_to_filename(key)


def test_reference_tokens_decode_only_with_the_unsigned_opt_in() -> None:
    token = encode_unsigned("pipeline-resume", "pipeline_resume_0b7c6f1e-2d2a-4c55-9a39-3f1d2b9e8a10")
    assert token == ("eyJwcm90b2NvbFZlcnNpb24iOjEsInYiOjEsImtpbmQiOiJwaXBlbGluZS1yZXN1bWUiLCJzdGF0ZUtleSI6InBpcGVs"
                     "aW5lX3Jlc3VtZV8wYjdjNmYxZS0yZDJhLTRjNTUtOWEzOS0zZjFkMmI5ZThhMTAifQ")
    with pytest.raises(InvalidToken, match="accept-unsigned-state"):
        decode_token(token, _no_signer)
    assert decode_token(token, _no_signer, accept_unsigned=True).state_key.endswith("3f1d2b9e8a10")


def _no_signer() -> Any:
    raise AssertionError("an unsigned token needs no key")


def test_claim_is_single_use(tmp_path: Path) -> None:
    from lobsterlang.interpret.errors import StateNotFound

    store = StateStore(tmp_path / "s")
    store.write("pipeline_resume_x", {"a": 1})
    claim = store.claim("pipeline_resume_x")
    assert claim.value == {"a": 1}
    with pytest.raises(StateNotFound):
        store.claim("pipeline_resume_x")
    claim.release()
    assert list((tmp_path / "s").iterdir()) == []


def test_approval_ids_are_eight_hex_and_never_overwritten(tmp_path: Path) -> None:
    from lobsterlang.interpret.gatestate import issue
    from lobsterlang.interpret.signing import Signer

    store = StateStore(tmp_path)
    signer = Signer(b"k" * 32)
    ids = {issue(store, signer, f"k{n}", {}, {"stateKey": f"k{n}"}, approval=True)[1] for n in range(50)}
    assert len(ids) == 50 and all(i is not None and len(i) == 8 and int(i, 16) >= 0 for i in ids)
    some = sorted(i for i in ids if i)[0]
    key, token = store.approval_index(some[:4] + "-" + some[4:])
    assert key.startswith("k") and token is not None and signer.verify(token)["approvalId"] == some
    assert not store.publish_approval_id(some, "other", "t")
    assert store.approval_index(some) == (key, token)


@pytest.mark.parametrize(
    "argv, code, message",
    [(["run", "--mode", "tool", "exec echo a | approve"], 1, "No such file or directory: /proc/lobster-nope"),
     (["exec /"], 1, "exec failed (null): Permission denied: /"),
     (["exec --json --shell 'cat deep.json'"], 1, "value nested too deeply")],
)
def test_system_problems_are_errors_not_tracebacks(argv: list[str], code: int, message: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from lobsterlang.cli import main

    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOBSTER_STATE_DIR", "/proc/lobster-nope")
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert message in out + err and "Traceback" not in out + err
