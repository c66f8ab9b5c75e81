#!/usr/bin/env bash
# tui-smoke.sh starts the simulator lab (the first incident on a real kube-apiserver),
# runs 'recover tui' against it in a tmux pane, presses keys as a person would, and
# asserts on the captured screen: the overview of the wedged cluster, the target, a
# step's diff against the live object, a run started, one change confirmed (the CVO
# disabled), an abort that says the CVO stays disabled, and the engine's resume and
# restore commands printed after quitting with apply's exit code 10.
#
#   hack/tui-smoke.sh            (from anywhere; make test runs it when tmux is present)
#
# Skips with a message (exit 0) when tmux is missing. On failure it prints the last
# screen and the lab's log. Needs the control-plane binaries (hack/kube-binaries.sh).
set -euo pipefail

if ! command -v tmux >/dev/null 2>&1; then
  echo "tui-smoke: tmux not found; skipping the TUI smoke test"
  exit 0
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
example=examples/reconciled-4.3-to-4.4
work=$(mktemp -d)
session="recover-tui-smoke-$$"
lab_pid=""

cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  if [ -n "$lab_pid" ] && kill -0 "$lab_pid" 2>/dev/null; then
    kill -INT "$lab_pid" 2>/dev/null || true
    wait "$lab_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "tui-smoke: FAIL: $*" >&2
  echo "---- last screen ----" >&2
  tmux capture-pane -p -t "$session" >&2 || true
  echo "---- lab log (tail) ----" >&2
  tail -n 20 "$work/lab.log" >&2 || true
  exit 1
}

screen() { tmux capture-pane -p -J -t "$session"; }

# wait_for TEXT [SECONDS]: wait until the screen shows TEXT.
wait_for() {
  local text=$1 limit=${2:-60} i=0
  while [ "$i" -lt $((limit * 5)) ]; do
    if screen | grep -qF -- "$text"; then
      return 0
    fi
    sleep 0.2
    i=$((i + 1))
  done
  fail "the screen never showed: $text"
}

# keys KEY...: send keys, then let the TUI redraw. Send Escape on its own: a
# terminal app reads ESC followed at once by a key as alt+key.
keys() {
  tmux send-keys -t "$session" "$@"
  sleep 0.3
}

echo "tui-smoke: building recover and the lab"
go build -o "$work/recover" ./cmd/recover
go build -o "$work/recover-lab" ./internal/lab/sim/cmd/recover-lab
export RECOVER_KUBE_BIN=${RECOVER_KUBE_BIN:-$(hack/kube-binaries.sh)}

echo "tui-smoke: starting the lab ($example)"
"$work/recover-lab" --scenario "$example" --fast --quiet >"$work/lab.log" 2>&1 &
lab_pid=$!
for _ in $(seq 1 600); do
  grep -q 'export KUBECONFIG=' "$work/lab.log" 2>/dev/null && break
  kill -0 "$lab_pid" 2>/dev/null || { cat "$work/lab.log" >&2; echo "tui-smoke: FAIL: the lab exited" >&2; exit 1; }
  sleep 0.2
done
kubeconfig=$(sed -n 's/^ *export KUBECONFIG=//p' "$work/lab.log" | head -n1)
[ -n "$kubeconfig" ] || { cat "$work/lab.log" >&2; echo "tui-smoke: FAIL: the lab printed no KUBECONFIG" >&2; exit 1; }

echo "tui-smoke: running recover tui in tmux"
tmux new-session -d -s "$session" -x 100 -y 30 \
  "cd '$root' && KUBECONFIG='$kubeconfig' '$work/recover' tui --graph $example/graph.json --graph-data $example/graph-data \
     --channel stable-4.4 --payload $example/releases/4.4.4 --i-have-a-backup --allow-stale \
     --journal '$work/run.journal' --plan-out '$work/plan.json'; echo \"EXIT=\$?\"; sleep 600"

# Overview: the claim beside the reality, and the kubelet that got ahead.
wait_for "CLAIM (ClusterVersion)" 120
wait_for "target 4.4.4"
wait_for "CVO running"
keys / k u b e l e t Enter
wait_for "KubeletNewerThanAPIServer"
wait_for "newer than"

# Target: the choice and the blocked alternative.
keys 2
wait_for "TARGET 4.4.4"
wait_for "blocked-edge"

# Plan: the first step's diff against the live CVO Deployment, by a server-side dry run.
keys 3
wait_for "001-disable-cvo"
keys d
wait_for "spec.replicas: 1 -> 0" 60

# Apply: start, confirm disable-cvo, then abort at the next question.
keys 4
wait_for "Press a to start"
keys a
wait_for "Start applying the plan?"
keys y
wait_for "WAITING FOR YOUR DECISION" 120
wait_for "001-disable-cvo"
keys y
wait_for "DISABLED by recover" 120
wait_for "WAITING FOR YOUR DECISION" 120
keys q
wait_for "Abort the run?"
wait_for "stays DISABLED"
keys y
wait_for "stopped: aborted" 60
wait_for "recover apply --resume"

# Quit: the summary with the engine's next commands stays in the terminal.
keys q
wait_for "EXIT=10" 60
wait_for "recover tui: aborted"
wait_for "oc scale deployment/cluster-version-operator -n openshift-cluster-version"
[ -s "$work/run.journal" ] || fail "no journal was written"
[ -s "$work/plan.json" ] || fail "the computed plan was not saved before the run"

# Reattach: --resume opens on the Apply screen with the journal's state; the ?
# overlay lists the resume key; quitting without a run exits 0.
tmux kill-session -t "$session"
tmux new-session -d -s "$session" -x 100 -y 30 \
  "cd '$root' && KUBECONFIG='$kubeconfig' '$work/recover' tui --resume '$work/run.journal'; echo \"EXIT=\$?\"; sleep 600"
wait_for "interrupted run: resumable" 120
wait_for "DISABLED by recover"
wait_for "Resumes the interrupted run"
keys ?
wait_for "resume run"
keys Escape # alone: ESC and q in one read would be alt+q
keys q
wait_for "EXIT=0" 60

echo "tui-smoke: ok"
