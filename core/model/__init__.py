"""What a scenario is: its options, inputs, masks, RoPE, heads, labels and the edits to it."""
