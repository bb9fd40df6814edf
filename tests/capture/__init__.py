"""attn-tui capture: real (tiny) Hugging Face models' attention as scenarios, and what capture
does without them."""
