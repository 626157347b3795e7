#!/usr/bin/env bash
# Interoperability with MCP clients we did not write: drives a real `norn serve --http`
# on a fresh copy of the demo vault with the official MCP Inspector CLI and runs the
# official MCP conformance suite's server scenarios against it.
#
#   scripts/mcp-interop.sh NORN_BIN
#
# Exit codes: 0 every check that applies passed; 1 a check failed; 2 usage;
# 77 skipped (npx missing, or the npm registry could not be reached).
# MCP_INTEROP_KEEP=1 keeps the work folder (vault, logs, conformance results).
# cmd/norn/interop_test.go (TestMCPInterop) runs this as part of `make test`;
# docs/mcp.md, "Interoperability", explains the results.
set -uo pipefail

# Pinned clients. Inspector 1.0.3 is the last release of the v1 line (v2 needs
# Node >= 22.19); it declares Node >= 22.7.5 but runs on Node 20, and has --header.
readonly INSPECTOR="@modelcontextprotocol/inspector@1.0.3"
readonly CONFORMANCE="@modelcontextprotocol/conformance@0.1.13"
readonly TOKEN_NAME="interop-agent"
readonly FETCH_TIMEOUT=${MCP_INTEROP_FETCH_TIMEOUT:-300} # seconds, first download
readonly CALL_TIMEOUT=${MCP_INTEROP_CALL_TIMEOUT:-180}   # seconds, one client run

# Conformance 0.1.13 server scenarios that apply to Norn: each must pass.
readonly APPLIES=(
  server-initialize ping tools-list server-sse-multiple-streams
  resources-list resources-subscribe resources-unsubscribe dns-rebinding-protection
)
# Scenarios that apply only when the server answers a POST with an SSE stream; Norn
# answers with JSON, so the suite runs no check (0 passed, 0 failed). Should it ever
# run checks, they must pass.
readonly APPLIES_IF_SSE=(server-sse-polling)
# Scenarios that do not apply, with the reason and what their failure must say (so a
# scenario failing for another reason is still a failure). They are the suite's
# "expected failures"; one that starts to pass fails this script until it moves up.
declare -A NA_REASON NA_EXPECT
na_scenario() { NA_REASON[$1]=$2; NA_EXPECT[$1]=$3; }
na_scenario logging-set-level "Norn offers no logging capability (server/mcp/mcp.go NewMCPServer has no WithLogging)" "logging not supported"
na_scenario tools-call-with-logging "needs the logging capability and the reference server's test_tool_with_logging tool" "logging not supported|not found"
na_scenario completion-complete "Norn offers no completions capability (no prompts or templated arguments to complete)" "not supported"
na_scenario prompts-list "Norn offers no prompts capability" "prompts not supported"
na_scenario prompts-get-simple "Norn offers no prompts capability" "prompts not supported"
na_scenario prompts-get-with-args "Norn offers no prompts capability" "prompts not supported"
na_scenario prompts-get-embedded-resource "Norn offers no prompts capability" "prompts not supported"
na_scenario prompts-get-with-image "Norn offers no prompts capability" "prompts not supported"
na_scenario tools-call-simple-text "calls the reference server's fixture tool test_simple_text" "not found"
na_scenario tools-call-image "calls the fixture tool test_image_content (Norn returns no images)" "not found"
na_scenario tools-call-audio "calls the fixture tool test_audio_content (Norn returns no audio)" "not found"
na_scenario tools-call-embedded-resource "calls the fixture tool test_embedded_resource" "not found"
na_scenario tools-call-mixed-content "calls the fixture tool test_multiple_content_types" "not found"
na_scenario tools-call-error "calls the fixture tool test_error_handling (Norn's tool errors are checked by the inspector part)" "not found"
na_scenario tools-call-with-progress "calls the fixture tool test_tool_with_progress" "not found"
na_scenario tools-call-sampling "calls the fixture tool test_sampling (Norn never asks the client to sample)" "not found"
na_scenario tools-call-elicitation "calls the fixture tool test_elicitation (Norn never elicits)" "not found"
na_scenario elicitation-sep1034-defaults "calls the fixture tool test_elicitation_sep1034_defaults (Norn never elicits)" "not found"
na_scenario elicitation-sep1330-enums "calls the fixture tool test_elicitation_sep1330_enums (Norn never elicits)" "not found"
na_scenario json-schema-2020-12 "looks for the fixture tool json_schema_2020_12_tool (pending suite)" "not found"
na_scenario resources-read-text "reads the fixture resource test://static-text (Norn's resources are norn://note/...; the inspector part reads one)" "not found"
na_scenario resources-read-binary "reads the fixture resource test://static-binary (Norn serves Markdown only)" "not found"
na_scenario resources-templates-read "reads the fixture template test://template/{id}/data (Norn's template norn://note/{+path} is read by the inspector part)" "not found"

if [ $# -ne 1 ]; then
  echo "usage: $0 NORN_BIN" >&2
  exit 2
fi
NORN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
if [ ! -x "$NORN" ]; then
  echo "$0: $1 is not an executable norn binary" >&2
  exit 2
fi
DEMO=${NORN_DEMO_VAULT:-$(cd "$(dirname "$0")/.." && pwd)/demo/vault}

skip() {
  echo "skipped: $*"
  exit 77
}
command -v npx >/dev/null 2>&1 || skip "npx not available"
command -v node >/dev/null 2>&1 || skip "npx not available (no node)"

export NO_UPDATE_NOTIFIER=1 npm_config_update_notifier=false npm_config_fund=false \
  npm_config_audit=false npm_config_loglevel=error

work=$(mktemp -d -t norn-interop-XXXXXX)
vault=$work/vault
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    server_pid=""
  fi
}
cleanup() {
  stop_server
  if [ "${MCP_INTEROP_KEEP:-}" = 1 ]; then
    echo "kept $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

# --- results -------------------------------------------------------------------
summary=()
failed=0
pass() { summary+=("PASS  $1"); }
na() { summary+=("N/A   $1: $2"); }
fail() {
  summary+=("FAIL  $1")
  failed=$((failed + 1))
  printf '\nFAIL %s\n' "$1"
  if [ $# -gt 1 ] && [ -n "$2" ]; then
    printf '%s\n' "$2" | head -c 4000 | sed 's/^/    /'
    echo
  fi
}

# jcheck FILE JS: runs JS (a function body over the parsed JSON j, and the extra
# arguments as a) and prints what it returns; it returns a non-empty string, the
# problem, when the check fails.
jcheck() {
  local file=$1 js=$2
  shift 2
  node -e '
    const fs = require("fs");
    let j;
    try { j = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); }
    catch (e) { console.log("not JSON: " + e.message); process.exit(1); }
    let r;
    try { r = new Function("j", "a", process.argv[2])(j, process.argv.slice(3)); }
    catch (e) { r = "unexpected shape: " + e.message; }
    if (r) { console.log(r); process.exit(1); }' "$file" "$js" "$@"
}

# --- fetch the clients ---------------------------------------------------------
# fetch SPEC ARGS...: runs the package once (downloading it on first use). A registry
# that cannot be reached is a skip; a package that downloads but does not run is a
# failure.
fetch() {
  local spec=$1 out rc
  shift
  out=$(timeout "$FETCH_TIMEOUT" npx -y --prefer-offline "$spec" "$@" 2>&1)
  rc=$?
  [ $rc -eq 0 ] && return 0
  if [ $rc -eq 124 ]; then
    skip "could not fetch $spec from the npm registry (no answer in ${FETCH_TIMEOUT}s)"
  fi
  if printf '%s' "$out" | grep -Eq 'npm (error|ERR!) code (E[0-9]{3}|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTCACHED|ETARGET|EINTEGRITY|ERR_SOCKET_TIMEOUT|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN)|FetchError|network request|getaddrinfo'; then
    skip "could not fetch $spec from the npm registry: $(printf '%s' "$out" | grep -m1 -E 'npm (error|ERR!) code|FetchError' || true)"
  fi
  echo "$spec does not run here (exit $rc):"
  printf '%s\n' "$out" | tail -20
  exit 1
}
echo "== fetching $INSPECTOR and $CONFORMANCE (npm cache: reruns are quick)"
fetch "$INSPECTOR" --cli --help
fetch "$CONFORMANCE" --version

# --- the vault and the server --------------------------------------------------
echo "== vault: $DEMO copied to $vault"
cp -R "$DEMO" "$vault" || exit 1
if ! out=$("$NORN" init "$vault" 2>&1); then
  echo "norn init failed: $out"
  exit 1
fi
if ! tokjson=$("$NORN" --vault "$vault" --json token add "$TOKEN_NAME" --scopes read,write); then
  echo "norn token add failed"
  exit 1
fi
TOKEN=$(printf '%s' "$tokjson" | node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>process.stdout.write(JSON.parse(s).token||""))')
[ -n "$TOKEN" ] || { echo "norn token add printed no token: $tokjson"; exit 1; }

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})'
}

# start_server LOG [FLAGS...]: serves the vault on a free loopback port, waits until
# it accepts connections and sets URL. A port taken in between is tried again.
URL=""
start_server() {
  local log=$1 port attempt i
  shift
  for attempt in 1 2 3; do
    port=$(free_port) || return 1
    "$NORN" --vault "$vault" serve --http "127.0.0.1:$port" --validate-output "$@" >"$log" 2>&1 &
    server_pid=$!
    for i in $(seq 1 300); do
      kill -0 "$server_pid" 2>/dev/null || break
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && kill -0 "$server_pid" 2>/dev/null; then
        URL="http://127.0.0.1:$port/mcp"
        return 0
      fi
      sleep 0.1
    done
    if kill -0 "$server_pid" 2>/dev/null; then
      echo "norn serve did not accept connections on 127.0.0.1:$port in 30s:"
    else
      wait "$server_pid" 2>/dev/null
      server_pid=""
      grep -qi "address already in use" "$log" && continue
      echo "norn serve exited:"
    fi
    cat "$log"
    stop_server
    return 1
  done
  echo "norn serve: no free port after 3 tries"
  return 1
}

# --- part a: the MCP Inspector CLI, with the token -------------------------------
inspect() { # OUT_PREFIX ARGS...: runs the inspector CLI against URL
  local out=$1
  shift
  timeout "$CALL_TIMEOUT" npx -y --prefer-offline "$INSPECTOR" --cli "$URL" --transport http "$@" \
    >"$work/$out.json" 2>"$work/$out.err"
}
auth=(--header "Authorization: Bearer $TOKEN")

start_server "$work/serve-token.log" || exit 1
echo "== part a: $INSPECTOR --cli $URL (token of $TOKEN_NAME)"

# a1. tools/list: our tools, each with an input and an output schema.
if inspect tools-list "${auth[@]}" --method tools/list; then
  if msg=$(jcheck "$work/tools-list.json" '
      const tools = j.tools || [];
      const names = tools.map(t => t.name);
      for (const want of ["search", "read_note", "write_note", "edit_note", "vault_map", "archive_note"])
        if (!names.includes(want)) return "no tool " + want + " in " + names.join(",");
      for (const t of tools) {
        if (!t.outputSchema || t.outputSchema.type !== "object") return t.name + ": no object outputSchema";
        if (!t.inputSchema || t.inputSchema.type !== "object") return t.name + ": no object inputSchema";
      }
      const s = tools.find(t => t.name === "search"), w = tools.find(t => t.name === "write_note");
      if (!s.annotations || s.annotations.readOnlyHint !== true) return "search is not readOnlyHint";
      if (!w.annotations || w.annotations.readOnlyHint !== false) return "write_note claims readOnlyHint";
      console.error("    " + tools.length + " tools, each with an outputSchema");'); then
    pass "inspector tools/list: our tools, each with inputSchema and outputSchema"
  else
    fail "inspector tools/list" "$msg"
  fi
else
  fail "inspector tools/list (exit $?)" "$(cat "$work/tools-list.err" "$work/tools-list.json")"
fi

# a2. without the token the inspector cannot connect: 401 missing_token.
if inspect no-token --method tools/list; then
  fail "inspector without a token was served" "$(cat "$work/no-token.json")"
elif grep -q "missing_token" "$work/no-token.err" "$work/no-token.json"; then
  pass "inspector without a token: refused (401 missing_token)"
else
  fail "inspector without a token: refused, but not with missing_token" "$(cat "$work/no-token.err")"
fi

# a3. tools/call search: structuredContent with hits; the text block is the same JSON.
if inspect search "${auth[@]}" --method tools/call --tool-name search \
  --tool-arg "query=expected revision conflict" --tool-arg limit=3; then
  if msg=$(jcheck "$work/search.json" '
      if (j.isError) return "isError: " + JSON.stringify(j.content);
      const sc = j.structuredContent;
      if (!sc || !Array.isArray(sc.hits) || sc.hits.length === 0) return "no structuredContent.hits";
      if (sc.hits.length > 3) return "limit 3 gave " + sc.hits.length + " hits";
      for (const h of sc.hits) if (!h.path || !/^[0-9a-f]{40}$/.test(h.revision)) return "hit without path or revision: " + JSON.stringify(h);
      const text = (j.content || []).find(c => c.type === "text");
      if (!text || JSON.stringify(JSON.parse(text.text)) !== JSON.stringify(sc)) return "the text block is not the structured content";
      console.error("    " + sc.total + " hits in all, first " + sc.hits[0].path);'); then
    pass "inspector tools/call search: structuredContent (hits with path and revision) and the same JSON as text"
  else
    fail "inspector tools/call search" "$msg"
  fi
else
  fail "inspector tools/call search (exit $?)" "$(cat "$work/search.err" "$work/search.json")"
fi

# a4. tools/call write_note: the write is a commit authored by the token's name.
note_path=inbox/mcp-interop.md
note_body=$'---\ntitle: MCP interop\ntags: [interop]\n---\n# MCP interop\n\nWritten by the MCP Inspector CLI; see [[Vault]].\n'
head_before=$(git -C "$vault" rev-parse HEAD)
if inspect write "${auth[@]}" --method tools/call --tool-name write_note \
  --tool-arg "path=$note_path" --tool-arg "content=$note_body"; then
  commit=$(node -e 'const j=require(process.argv[1]);process.stdout.write((j.structuredContent&&j.structuredContent.commit)||"")' "$work/write.json")
  revision=$(node -e 'const j=require(process.argv[1]);process.stdout.write((j.structuredContent&&j.structuredContent.revision)||"")' "$work/write.json")
  log=$(git -C "$vault" log -1 --format='%H%n%an%n%P%n%(trailers:key=Norn-Op,valueonly)')
  want=$(printf '%s\n%s\n%s\n%s' "$commit" "$TOKEN_NAME" "$head_before" write)
  status=$(git -C "$vault" status --porcelain)
  if [ -z "$commit" ]; then
    fail "inspector tools/call write_note: no commit in structuredContent" "$(cat "$work/write.json")"
  elif [ "$(printf '%s' "$log" | sed '/^$/d')" != "$want" ]; then
    fail "inspector tools/call write_note: git log -1 disagrees" "want:
$want
got:
$log"
  elif [ "$(git -C "$vault" rev-parse "HEAD:$note_path")" != "$revision" ] || ! printf '%s' "$note_body" | cmp -s - "$vault/$note_path"; then
    fail "inspector tools/call write_note: the note at HEAD or on disk is not what was written"
  elif [ -n "$status" ]; then
    fail "inspector tools/call write_note: git status not clean" "$status"
  else
    pass "inspector tools/call write_note: commit ${commit:0:12} on the old HEAD, author $TOKEN_NAME (git log -1), Norn-Op: write, status clean"
  fi
else
  fail "inspector tools/call write_note (exit $?)" "$(cat "$work/write.err" "$work/write.json")"
fi

# a5. resources/read of the note just written, through the template norn://note/{+path}.
if inspect resource "${auth[@]}" --method resources/read --uri "norn://note/$note_path"; then
  if msg=$(jcheck "$work/resource.json" '
      const c = (j.contents || [])[0];
      if (!c || c.text !== a[0]) return "contents[0].text is not the note: " + JSON.stringify(j).slice(0, 300);
      if (c.mimeType !== "text/markdown") return "mimeType " + c.mimeType;' "$note_body"); then
    pass "inspector resources/read norn://note/$note_path: the bytes written"
  else
    fail "inspector resources/read" "$msg"
  fi
else
  fail "inspector resources/read (exit $?)" "$(cat "$work/resource.err" "$work/resource.json")"
fi

# a6. a write the gates refuse (no final newline): nothing is written, and the client
# sees Norn's gate_rejected. (TypeScript SDK 1.x clients check structuredContent
# against the output schema even on an error, so Norn sends errors as text alone.)
head_before=$(git -C "$vault" rev-parse HEAD)
inspect refused "${auth[@]}" --method tools/call --tool-name write_note \
  --tool-arg "path=inbox/mcp-interop-refused.md" --tool-arg "content=# No final newline"
rc=$?
seen=$(cat "$work/refused.json" "$work/refused.err")
if [ "$(git -C "$vault" rev-parse HEAD)" != "$head_before" ] || [ -e "$vault/inbox/mcp-interop-refused.md" ] || [ -n "$(git -C "$vault" status --porcelain)" ]; then
  fail "inspector write_note refused by a gate: something was written"
elif msg=$(jcheck "$work/refused.json" '
    if (j.isError !== true) return "isError is not true";
    if (j.structuredContent !== undefined) return "an error result with structuredContent";
    const e = JSON.parse(((j.content || [])[0] || {}).text || "{}");
    if (e.code !== "gate_rejected" || e.class !== "fix_input") return "not a fix_input gate_rejected: " + JSON.stringify(e);
    if (!(e.violations || []).some(v => v.rule)) return "no violations with rule ids";'); then
  pass "inspector write_note refused by a gate: nothing written, the client sees gate_rejected with the rules broken"
else
  fail "inspector write_note refused by a gate: unexpected answer (exit $rc)" "$msg
$seen"
fi
stop_server

# --- part b: the conformance suite, without a token --------------------------------
# The suite (0.1.13) has no option to send headers, so this server serves requests
# without a token as local-agent: --allow-unauthenticated-loopback, loopback only.
start_server "$work/serve-anon.log" --allow-unauthenticated-loopback || exit 1
echo "== part b: $CONFORMANCE server --url $URL --suite all (norn serve --allow-unauthenticated-loopback)"
baseline=$work/conformance-baseline.yml
{
  echo "server:"
  for s in "${!NA_REASON[@]}"; do echo "  - $s"; done
} >"$baseline"
timeout "$CALL_TIMEOUT" npx -y --prefer-offline "$CONFORMANCE" server --url "$URL" --suite all \
  --expected-failures "$baseline" -o "$work/conformance" >"$work/conformance.out" 2>&1
suite_rc=$?

# One line per scenario from its checks.json: name, passed, failed, warnings, the
# first failure's message.
node -e '
  const fs = require("fs"), path = require("path"), dir = process.argv[1];
  for (const d of fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []) {
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(d);
    if (!m) continue;
    let checks;
    try { checks = JSON.parse(fs.readFileSync(path.join(dir, d, "checks.json"), "utf8")); }
    catch (e) { console.log([m[1], 0, 1, 0, "no checks.json: " + e.message].join("\t")); continue; }
    const n = s => checks.filter(c => c.status === s).length;
    const f = checks.find(c => c.status === "FAILURE" || c.status === "WARNING");
    const msg = f ? (f.errorMessage || f.description || f.name || "").replace(/\s+/g, " ").slice(0, 300) : "";
    console.log([m[1], n("SUCCESS"), n("FAILURE"), n("WARNING"), msg].join("\t"));
  }' "$work/conformance" >"$work/conformance.tsv"
stop_server

declare -A seen_scenario
while IFS=$'\t' read -r name passed nfail warned msg; do
  seen_scenario[$name]=1
  res="$passed passed, $nfail failed, $warned warnings"
  if [[ " ${APPLIES[*]} " == *" $name "* ]]; then
    if [ "$passed" -gt 0 ] && [ "$nfail" -eq 0 ] && [ "$warned" -eq 0 ]; then
      pass "conformance $name ($res)"
    else
      fail "conformance $name ($res)" "$msg"
    fi
  elif [[ " ${APPLIES_IF_SSE[*]} " == *" $name "* ]]; then
    if [ "$passed" -eq 0 ] && [ "$nfail" -eq 0 ] && [ "$warned" -eq 0 ]; then
      na "conformance $name" "no checks ran: Norn answers POSTs with JSON, not SSE, so there are no priming events or retry fields to test (SEP-1699)"
    elif [ "$nfail" -eq 0 ] && [ "$warned" -eq 0 ]; then
      pass "conformance $name ($res)"
    else
      fail "conformance $name ($res)" "$msg"
    fi
  elif [ -n "${NA_REASON[$name]+x}" ]; then
    if [ "$nfail" -eq 0 ] && [ "$warned" -eq 0 ]; then
      fail "conformance $name now passes ($res): move it from the not-applicable list to APPLIES in $0"
    elif printf '%s' "$msg" | grep -Eq "${NA_EXPECT[$name]}"; then
      na "conformance $name" "${NA_REASON[$name]}"
    else
      fail "conformance $name (not applicable, but it failed for another reason: want /${NA_EXPECT[$name]}/)" "$msg"
    fi
  else
    fail "conformance $name: a scenario this script does not know ($res): classify it" "$msg"
  fi
done <"$work/conformance.tsv"
for s in "${APPLIES[@]}" "${APPLIES_IF_SSE[@]}" "${!NA_REASON[@]}"; do
  [ -n "${seen_scenario[$s]+x}" ] || fail "conformance $s: the suite did not run it" "$(tail -20 "$work/conformance.out")"
done
if [ $suite_rc -ne 0 ] && [ $failed -eq 0 ]; then
  fail "conformance suite exited $suite_rc with the expected-failures baseline" "$(tail -30 "$work/conformance.out")"
fi

# --- summary ---------------------------------------------------------------------
echo
echo "== summary ($INSPECTOR, $CONFORMANCE, node $(node --version))"
printf '%s\n' "${summary[@]}" | grep -v '^N/A'
printf '%s\n' "${summary[@]}" | grep '^N/A'
npass=$(printf '%s\n' "${summary[@]}" | grep -c '^PASS')
nna=$(printf '%s\n' "${summary[@]}" | grep -c '^N/A')
echo
if [ $failed -ne 0 ]; then
  echo "mcp-interop: $npass passed, $failed failed, $nna not applicable"
  exit 1
fi
echo "mcp-interop: $npass passed, 0 failed, $nna not applicable"
