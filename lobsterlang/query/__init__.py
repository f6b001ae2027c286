"""Questions editors and tools ask about a compiled workflow: names, references, what is at an offset,
completions, symbols and fixes. Every answer comes from the IR's spans (offsets are code points)."""
