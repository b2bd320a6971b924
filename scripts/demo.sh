#!/usr/bin/env bash
# Plays the bundled sample through the default output; where the machine has none, says so and plays it
# in real time into a silent sink instead, so the player can still be seen working.
# Usage: scripts/demo.sh BINARY SAMPLE
set -uo pipefail
binary=$1 sample=$2
"$binary" --version
"$binary" info "$sample"
echo
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
"$binary" play "$sample" 2> >(tee "$errors" >&2)
status=$?
wait
if [ "$status" -eq 1 ] && grep -q "no audio output available" "$errors"; then
  echo "This machine has no audio output: playing the sample in real time into a silent sink instead."
  "$binary" play "$sample" --sink 'fakesink sync=true'
  status=$?
fi
exit "$status"
