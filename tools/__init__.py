"""Developer tools: parser and docs generators, reference-case recorders."""
