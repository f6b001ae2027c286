"""The standard Lobster commands: declared argument schemas shared by the runtime, linter and editor."""
