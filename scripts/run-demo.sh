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

# The port first, before the tour: a taken one is replaced by the next free one.
addr=${NORN_ADDR:-127.0.0.1:7777}
host=${addr%:*}
port=${addr##*:}
taken() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; }
want=$port
while taken "$port"; do
  port=$((port + 1))
  if [ "$port" -gt $((want + 50)) ]; then
    echo "ports $want to $port on $host are all taken: make run NORN_ADDR=$host:PORT" >&2
    exit 1
  fi
done
if [ "$port" != "$want" ]; then
  echo "port $want on $host is taken; using $port"
fi
addr=$host:$port

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

# Serve it over MCP: a demo token, the connection lines, then the server in front.
say "norn token add demo-agent --scopes read,write --json"
token=$("$bin" token add demo-agent --scopes read,write --json | sed -n 's/.*"token": *"\([^"]*\)".*/\1/p')
if [ -z "$token" ]; then
  echo "could not create the demo token" >&2
  exit 1
fi
url="http://$addr/mcp"
cat <<EOT

The demo vault is at $dir/vault (NORN_VAULT=$dir/vault norn …).
Norn now serves it over MCP at $url (demo token for agent "demo-agent": $token).

Connect Claude Code:
  claude mcp add --transport http norn-demo $url --header "Authorization: Bearer $token"
Or any MCP client, as JSON config (.mcp.json, Cursor, …):
  {"mcpServers": {"norn-demo": {"type": "http", "url": "$url", "headers": {"Authorization": "Bearer $token"}}}}
Try it without a client:
  curl -s $url -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \\
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-06-18' \\
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}'
Writes by the agent are commits authored by demo-agent: git -C $dir/vault log.
Browse it in the web explorer: open the one-time login link norn serve prints
below ("web explorer: ... ?token=norn_link_..."; it works once, within the hour),
or open http://$addr/ and log in with a token (norn token add NAME).
Another address: make run NORN_ADDR=127.0.0.1:8888. Stop with Ctrl-C.

EOT
say "norn serve --http $addr"
# The connection lines above carry the real token: leave out serve's own, which
# can only say <token>.
exec "$bin" serve --http "$addr" 2> >(grep -v --line-buffered 'connect Claude Code' >&2)
