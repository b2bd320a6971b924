#!/usr/bin/env bash
# Conformance against the shared WAV corpus: a table (variant, files, passed) for yt-gst and the same for
# GStreamer's `filesrc ! wavparse` on the same files. Usage: scripts/conformance.sh [YT_GST_BINARY]
# The corpus is $YT_GST_WAV_CORPUS, else ../shared/wav-corpus beside the checkout. Exit 1 when a yt-gst row fails.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-.build/release/yt-gst}"
exec python3 scripts/conformance.py "$binary" "${YT_GST_WAV_CORPUS:-$(cd .. && pwd)/shared/wav-corpus}"
