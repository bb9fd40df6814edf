"""A lesson's beats: reading them and playing them."""
