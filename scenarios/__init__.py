"""The built-in scenarios: YAML files shipped with attn-tui (see ``core.loading.catalog``)."""
