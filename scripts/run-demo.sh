#!/usr/bin/env bash
# Runs Norn on a fresh copy of the demo vault: `make run`.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
demo=$2
dir=$3
rm -rf "$dir/vault"
mkdir -p "$dir"
cp -R "$demo" "$dir/vault"
cd "$dir/vault"
export NORN_VAULT="$dir/vault"
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

say norn init
"$bin" init
say 'norn ls'
"$bin" ls
say 'norn read concepts/write-gates.md | head -12'
"$bin" read concepts/write-gates.md | head -12
say "echo '# Changed' | norn write concepts/vault.md        # no --expected-revision: refused"
echo '# Changed' | "$bin" write concepts/vault.md || echo "(exit $?: conflict, nothing written)"
say "norn write inbox/first-thought.md --author demo-agent"
printf -- '---\ntitle: First thought\ntags: [demo]\n---\n# First thought\n\nWritten by the demo; see [[Vault]].\n' | "$bin" write inbox/first-thought.md --author demo-agent
say "norn write inbox/bad.md   # breaks two gate rules"
printf -- '---\ntitle: Bad\ntags: [Not Kebab]\n---\nno final newline' | "$bin" write inbox/bad.md || echo "(exit $?: rejected, nothing written)"
say 'norn search "expected revision conflict" --limit 3'
"$bin" search "expected revision conflict" --limit 3
say 'norn log'
"$bin" log
say 'norn doctor'
"$bin" doctor
say 'git status --porcelain   # empty: the working tree matches HEAD'
git status --porcelain
echo
echo "The demo vault is at $dir/vault (NORN_VAULT=$dir/vault norn …)."
