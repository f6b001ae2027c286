"""The pipeline runtime: stages, their arguments, the standard commands and resume."""
