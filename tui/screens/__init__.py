"""The app's screens: the debugger itself, help, choices, save-as and the scenario chooser."""
