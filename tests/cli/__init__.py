"""The command line and the package: modes, exit codes, hostile text in headless output, imports
and layers."""
