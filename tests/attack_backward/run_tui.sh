#!/bin/bash
# usage: run_tui.sh FILE keys...  (each key arg sent separately, with 0.7 s sleeps)
f=$1; shift
tmux kill-session -t y 2>/dev/null
tmux new -d -s y -x 120 -y 40 "bash -c '. /work/main/.venv/bin/activate; cd /work/main/tests/attack_backward; attn-tui $f; echo EXIT=\$?; sleep 600'"
sleep 3
for k in "$@"; do tmux send-keys -t y $k; sleep 0.7; done
sleep 1
tmux capture-pane -p -t y
