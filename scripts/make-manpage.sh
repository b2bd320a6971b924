#!/usr/bin/env bash
# Prints the man page yt-gst(1), made from the tool's own --help texts, so the two never disagree.
# Usage: scripts/make-manpage.sh BINARY
set -euo pipefail
binary=$1
version=$("$binary" --version | head -n 1)
escape() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"; }
cat <<ROFF
.TH YT-GST 1 "" "$version" "User Commands"
.SH NAME
yt-gst \- play, inspect and stream WAV files through GStreamer
.SH SYNOPSIS
.B yt-gst
.I COMMAND
[\fIOPTIONS\fR] \fIARGUMENTS\fR
.SH DESCRIPTION
.nf
ROFF
"$binary" --help | escape
for command in $("$binary" --help | awk '/^COMMANDS:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{if (seen) exit; seen=1}'); do
  printf '.fi\n.SH "%s"\n.nf\n' "$(echo "yt-gst $command" | tr a-z A-Z)"
  "$binary" "$command" --help | escape
done
printf '.fi\n.SH FILES\n.nf\n$YT_GST_PIPELINES, $XDG_CONFIG_HOME/yt-gst/pipelines, PREFIX/share/yt-gst/pipelines: pipeline templates\n.fi\n'
