"""`lobster lsp`: start the language server on stdio (pygls is imported only here)."""

from __future__ import annotations

import click


def missing_extra() -> str:
    """What `lobster lsp` prints without the `lsp` extra: the install line that works for this copy."""
    from lobsterlang.extras import install_line

    return f"Error: lobster lsp needs the optional `lsp` extra; install it with: {install_line('lsp')}"


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk LSP over stdin/stdout (the default and only transport).")
@click.pass_context
def lsp_command(ctx: click.Context, stdio: bool) -> None:
    """Start the Lobster language server on stdin/stdout (needs the `lsp` extra).

    Editors start it for you: see docs/editors.md for VS Code, Neovim, Helix and Emacs.
    Exit 2 when the `lsp` extra is not installed (as `lobster mcp` does for its extra).
    """
    try:
        from lobsterlang_lsp.server import main
    except ImportError:
        click.echo(missing_extra(), err=True)
        ctx.exit(2)
    main()
