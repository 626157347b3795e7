// Package web serves the web explorer of `norn serve --http`: the page (its
// built files, embedded from dist/) and the JSON API the page reads
// (/web/api/...), behind browser sessions. A person logs in once with a bearer
// token (POST /web/login) or a one-time link (GET /?token=...) and holds an
// HttpOnly, SameSite=Strict session cookie from then on; every request other
// than a GET also carries the session's CSRF token.
//
// It owns the sessions and their CSRF tokens, the rendering of a note to HTML
// (goldmark, with Norn's own link resolver for wikilinks and embeds, and no raw
// HTML or script URLs from the note), and the API's JSON shapes. Every answer
// is what the session's principal may see: each request takes a vault.Viewer and
// asks it, as the MCP tools do.
//
// It never opens a listener or checks Host and Origin headers: package server
// mounts it behind the same checks as MCP. It never reads or writes a note
// except through the vault package, and never logs a token or a session id.
package web
