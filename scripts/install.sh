#!/usr/bin/env bash
# Installs a built yt-gst: the binary, the pipeline templates, the man page yt-gst(1) (made from the same text as
# --help) and bash and zsh completions.
# Usage: scripts/install.sh BINARY PREFIX [DESTDIR]
set -euo pipefail
binary=$1 prefix=$2 destdir=${3:-}
root="$destdir$prefix"
cd "$(dirname "$0")/.."
install -Dm755 "$binary" "$root/bin/yt-gst"
install -d "$root/share/yt-gst/pipelines"
install -m644 pipelines/*.pipeline "$root/share/yt-gst/pipelines/"
install -d "$root/share/man/man1" "$root/share/bash-completion/completions" "$root/share/zsh/site-functions"
scripts/make-manpage.sh "$binary" > "$root/share/man/man1/yt-gst.1"
"$binary" completions bash > "$root/share/bash-completion/completions/yt-gst"
"$binary" completions zsh > "$root/share/zsh/site-functions/_yt-gst"
echo "installed yt-gst in $root"
