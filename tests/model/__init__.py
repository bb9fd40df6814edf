"""What a scenario is, as values: the edits, masks, options and the scenario itself."""
