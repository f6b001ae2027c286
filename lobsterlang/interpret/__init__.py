"""The interpreter: runs pipeline IR, writes resume state and builds tool-mode envelopes."""
