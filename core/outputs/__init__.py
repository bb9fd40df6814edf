"""--print, --json, --markdown and handouts."""
