"""Draw docs/images/neovim.svg: Neovim 0.11 (the dev extra's wheel) with the documented init.lua, showing the server's
diagnostics and a hover, captured from a tmux pane with its colours and written as SVG.

Needs tmux. Run from the repository root: `python tools/editor_screenshot.py`.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images" / "neovim.svg"
WIDTH, HEIGHT = 104, 20
CELL_W, CELL_H, FONT = 8.4, 18, 14
SOCKET = "lobster-screenshot"
SHOWN = "vim.diagnostic.config({ virtual_text = true }) -- diagnostics beside the lines, for the picture\n"

Color = tuple[int, int, int]
Cell = tuple[str, Color, Color, bool]
"""A character, its foreground and background, and whether it is bold."""

_SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def main() -> None:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "editors")]
    from editor_setup import documented, workspace

    with tempfile.TemporaryDirectory(prefix="lobster-screenshot-") as scratch:
        home = Path(scratch) / "home"
        (home / ".config" / "nvim").mkdir(parents=True)
        (home / ".config" / "nvim" / "init.lua").write_text(documented("nvim-0.11") + SHOWN, encoding="utf-8")
        path = workspace(Path(scratch) / "project")
        screen = _capture(home, path)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(svg(screen), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


def _capture(home: Path, path: Path) -> str:
    nvim = shutil.which("nvim", path=str(Path(sys.executable).parent))
    assert nvim is not None, "no nvim beside this Python: pip install -e '.[dev]'"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".local/state"),
           "XDG_DATA_HOME": str(home / ".local/share"), "COLORTERM": "truecolor", "TERM": "tmux-256color",
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    command = " ".join(["env", *(f"{k}={v}" for k, v in env.items()), nvim, "-n", path.name])
    tmux = ["tmux", "-L", SOCKET, "-f", os.devnull]
    subprocess.run([*tmux, "new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT), "-c", str(path.parent), command], check=True)
    try:
        _until(tmux, "unknown command")  # the diagnostics are shown
        subprocess.run([*tmux, "send-keys", "7G15|", "K"], check=True)  # hover on `exec`
        _until(tmux, "side effects")
        return subprocess.run([*tmux, "capture-pane", "-p", "-e"], check=True, capture_output=True, text=True).stdout
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)


def _until(tmux: list[str], text: str) -> None:
    deadline = time.monotonic() + 60
    while text not in subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True, check=True).stdout:
        assert time.monotonic() < deadline, f"Neovim never showed {text!r}"
        time.sleep(0.1)


def cells(captured: str, fg: Color, bg: Color) -> list[list[Cell]]:
    """The screen as rows of cells, from tmux's `capture-pane -e` text (SGR colour sequences)."""
    rows = []
    for line in captured.split("\n")[:HEIGHT]:
        row: list[Cell] = []
        state = (fg, bg, False)
        for number, part in enumerate(_SGR.split(line)):  # text, codes, text, codes…
            if number % 2:
                state = _apply(part, state, fg, bg)
            else:
                row += [(char, *state) for char in part]
        rows.append((row + [(" ", fg, bg, False)] * WIDTH)[:WIDTH])
    return rows


def _apply(codes: str, state: tuple[Color, Color, bool], fg: Color, bg: Color) -> tuple[Color, Color, bool]:
    current_fg, current_bg, bold = state
    numbers = [int(p) if p else 0 for p in re.split("[;:]", codes)]
    index = 0
    while index < len(numbers):
        code = numbers[index]
        if code in (38, 48, 58) and numbers[index + 1 : index + 2] == [2]:
            color = (numbers[index + 2], numbers[index + 3], numbers[index + 4])
            current_fg, current_bg = (color, current_bg) if code == 38 else (current_fg, color) if code == 48 else (current_fg, current_bg)
            index += 5
            continue
        if code == 0:
            current_fg, current_bg, bold = fg, bg, False
        elif code == 1:
            bold = True
        elif code == 22:
            bold = False
        elif code == 39:
            current_fg = fg
        elif code == 49:
            current_bg = bg
        index += 1
    return current_fg, current_bg, bold


def svg(captured: str, fg: Color = (224, 226, 234), bg: Color = (20, 22, 27)) -> str:
    """An SVG of the captured screen: one rectangle per run of a background colour, one text per run of a style."""
    width, height = WIDTH * CELL_W, HEIGHT * CELL_H
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" viewBox="0 0 {width:.0f} {height}"'
             f' font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT}">',
             f'<rect width="100%" height="100%" fill="{_hex(bg)}"/>']
    for y, row in enumerate(cells(captured, fg, bg)):
        for x, run in _runs(row, key=lambda cell: cell[2]):
            if run[0][2] != bg:
                parts.append(f'<rect x="{x * CELL_W:.1f}" y="{y * CELL_H}" width="{len(run) * CELL_W:.1f}" height="{CELL_H}" fill="{_hex(run[0][2])}"/>')
        for x, run in _runs(row, key=lambda cell: (cell[1], cell[3])):
            text = "".join(cell[0] for cell in run)
            if text.strip():
                weight = ' font-weight="bold"' if run[0][3] else ""
                parts.append(f'<text x="{x * CELL_W:.1f}" y="{y * CELL_H + 13}" fill="{_hex(run[0][1])}"{weight}'
                             f' xml:space="preserve" textLength="{len(run) * CELL_W:.1f}">{html.escape(text)}</text>')
    return "\n".join([*parts, "</svg>"]) + "\n"


def _runs(row: list[Cell], key: Callable[[Cell], object]) -> list[tuple[int, list[Cell]]]:
    """Runs of neighbouring cells with the same `key`, with the column where each starts."""
    found: list[tuple[int, list[Cell]]] = []
    for x, cell in enumerate(row):
        if found and key(found[-1][1][-1]) == key(cell):
            found[-1][1].append(cell)
        else:
            found.append((x, [cell]))
    return found


def _hex(color: Color) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)


if __name__ == "__main__":
    main()
