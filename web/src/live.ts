// The live change feed (docs/feed.md): one websocket to /v1/events, authenticated
// by the session cookie, resumed from the last cursor after a drop.
import type { Change } from "./api";
import { $ } from "./dom";

export interface FeedEvent {
  type: "event"; commit: string; parents: string[]; author: { name: string; email?: string };
  op?: string; reason?: string; time: string; source: string; changes: Change[];
}

type Listener = (e: FeedEvent) => void;

export class Feed {
  private listeners = new Set<Listener>();
  private since = "";
  private ws: WebSocket | null = null;
  private backoff = 250;
  private stopped = false;
  private timer = 0;

  // on registers fn for every event; the returned function unregisters it.
  on(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.timer);
    this.ws?.close(1000);
    this.ws = null;
    this.status("");
  }

  private connect(): void {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = this.since ? "?since=" + this.since : "";
    const ws = new WebSocket(`${proto}//${location.host}/v1/events${q}`);
    this.ws = ws;
    ws.onopen = () => { this.backoff = 250; this.status("live"); };
    ws.onmessage = (m) => this.message(String(m.data));
    ws.onclose = (c) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      this.status("offline");
      if (c.code === 1008 && /revoked/.test(c.reason)) return; // the token is gone: stay closed
      this.timer = window.setTimeout(() => this.connect(), this.backoff);
      this.backoff = Math.min(this.backoff * 2, 30000);
    };
  }

  private message(data: string): void {
    let m: { type: string; commit?: string; head?: string };
    try { m = JSON.parse(data); } catch { return; }
    if (m.type === "event" && m.commit) {
      this.since = m.commit;
      for (const fn of this.listeners) fn(m as FeedEvent);
    } else if ((m.type === "head" || m.type === "resync") && m.head) {
      this.since = m.head;
    } else if (m.type === "hello" && m.head && !this.since) {
      this.since = m.head;
    }
  }

  private status(s: string): void {
    const el = $("live");
    el.textContent = s ? "● " + s : "";
    el.dataset.state = s;
  }
}

// touches reports whether an event changed path (at its new or old place).
export function touches(e: FeedEvent, path: string): boolean {
  return e.changes.some((c) => c.path === path || c.from === path);
}
