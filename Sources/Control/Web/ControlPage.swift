// yt-gst — the control page for phones: every room and the stream, steered over the service's WebSocket.

/// The page `GET /` serves: one HTML document with its CSS and script inline and nothing fetched from elsewhere (it
/// must work on a LAN without internet; the Content-Security-Policy forbids any other origin).
///
/// It opens `ws://HOST/jsonrpc`, authenticates first when it was opened with `?token=T` (kept in sessionStorage, and
/// taken out of the address bar), reads `Server.GetStatus` and from then on only applies the notifications pushed to
/// it (no polling); it reconnects by itself with a growing pause. Controls: per room its name (`Client.SetName`),
/// volume (`Client.SetVolume`, sent at most every 50 ms while dragging), mute, delay (`Client.SetLatency`), online
/// state, sync badge and a plot of the measured offset over the last minute (`yt-gst.Client.OnReport`); per group
/// its mute (`Group.SetMute`); the stream's now playing with previous, play/pause and next (`Stream.Control`).
enum ControlPage {
    /// The page's fields: no caching (it changes with the program), no referrer (the address may hold a token),
    /// and nothing loaded from anywhere but inline and this host's WebSocket.
    private static let headers: [(String, String)] = [
        ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
        ("Referrer-Policy", "no-referrer"), ("X-Content-Type-Options", "nosniff"),
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self' ws: wss:; "
                + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
    ]

    static var response: HTTPResponse { HTTPResponse(status: .ok, headers: headers, body: Array(html.utf8)) }

    /// 401 for a first load without the token; a reload (the token is no longer in the address) finds it in
    /// sessionStorage and comes back with it once.
    static var unauthorized: HTTPResponse {
        HTTPResponse(status: .unauthorized, headers: headers, body: Array(unauthorizedHTML.utf8))
    }

    private static let unauthorizedHTML = #"""
        <!doctype html><html lang="en"><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1"><title>yt-gst rooms</title>
        <body style="font:18px system-ui,sans-serif;margin:2em">
        <p id="m">This page needs the control token: open <code>http://HOST:PORT/?token=TOKEN</code>.</p>
        <script>
        const t = sessionStorage.getItem("yt-gst-token");
        if (t && !new URLSearchParams(location.search).has("token")) {
          location.replace("/?token=" + encodeURIComponent(t));
        } else if (t) {
          sessionStorage.removeItem("yt-gst-token");
          document.getElementById("m").textContent = "The control token was not accepted.";
        }
        </script></body></html>
        """#

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <link rel="icon" href="data:,">
        <title>yt-gst rooms</title>
        <style>
        :root { --bg:#f4f4f6; --card:#fff; --fg:#15151a; --dim:#5b5b66; --accent:#1a5fd0; --ok:#176b2c; --bad:#a4161a;
                --line:#d5d5dc; font:17px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        @media (prefers-color-scheme: dark) {
          :root { --bg:#121217; --card:#1d1d24; --fg:#ececf1; --dim:#a3a3b2; --accent:#6ea2ff; --ok:#5fd17a;
                  --bad:#ff7b7b; --line:#34343f; }
        }
        * { box-sizing: border-box; }
        body { margin:0; background:var(--bg); color:var(--fg); }
        header { position:sticky; top:0; z-index:1; background:var(--card); border-bottom:1px solid var(--line);
                 padding:10px 14px; }
        main { padding:12px; max-width:1200px; margin:0 auto; }
        h1 { font-size:1rem; margin:0; color:var(--dim); font-weight:600; }
        h2 { font-size:.8rem; margin:0; flex:1; min-width:0; overflow:hidden; text-overflow:ellipsis; white-space:nowrap;
             text-transform:uppercase; letter-spacing:.04em; color:var(--dim); }
        header > * { max-width:1200px; margin-left:auto; margin-right:auto; }
        #conn { font-size:.85rem; color:var(--dim); }
        #notice:empty { display:none; }
        #notice { margin:8px 0 0; padding:8px 10px; border-radius:8px; background:var(--bad); color:#fff; }
        .np { display:grid; grid-template-columns:1fr auto; gap:4px 12px; align-items:center; margin-top:6px; }
        .np .title { font-weight:650; font-size:1.1rem; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
        .np .artist, .np .time { color:var(--dim); font-size:.9rem; }
        .np progress { grid-column:1 / -1; width:100%; height:6px; }
        .transport { display:flex; gap:8px; grid-row:1 / 3; grid-column:2; }
        button { font:inherit; min-width:48px; min-height:48px; border-radius:12px; border:1px solid var(--line);
                 background:var(--card); color:var(--fg); cursor:pointer; padding:0 12px; }
        button:focus-visible, input:focus-visible { outline:3px solid var(--accent); outline-offset:2px; }
        button[aria-pressed="true"] { background:var(--fg); color:var(--bg); }
        button svg { width:24px; height:24px; fill:currentColor; vertical-align:middle; }
        button .label { margin-left:4px; font-size:.9rem; }
        button:disabled { opacity:.45; cursor:default; }
        #groups { display:grid; grid-template-columns:1fr; gap:12px; }
        @media (min-width:760px) { #groups { grid-template-columns:repeat(auto-fill, minmax(340px, 1fr)); } }
        .group { background:var(--card); border:1px solid var(--line); border-radius:14px; padding:10px 12px; }
        .ghead { display:flex; align-items:center; gap:8px; }
        .room { border-top:1px solid var(--line); margin-top:10px; padding-top:10px; }
        .rhead { display:flex; align-items:center; gap:8px; }
        .name { font:inherit; font-weight:600; flex:1; min-width:0; min-height:44px; border:1px solid transparent;
                border-radius:8px; background:transparent; color:inherit; padding:0 6px; }
        .name:hover, .name:focus { border-color:var(--line); }
        .online { font-size:.85rem; white-space:nowrap; }
        .online::before { content:"● "; }
        .online.off { color:var(--dim); }
        .online.off::before { content:"○ "; }
        .vol { display:flex; align-items:center; gap:10px; margin-top:6px; }
        .vol input { flex:1; min-height:44px; accent-color:var(--accent); }
        .pct { width:3.2em; text-align:right; font-variant-numeric:tabular-nums; }
        .sync { display:flex; align-items:center; gap:10px; margin-top:6px; flex-wrap:wrap; }
        .badge { font-size:.85rem; border-radius:999px; padding:3px 10px; border:1px solid currentColor;
                 font-variant-numeric:tabular-nums; white-space:nowrap; }
        .badge.ok { color:var(--ok); } .badge.bad { color:var(--bad); } .badge.none { color:var(--dim); }
        .badge.ok::before { content:"✓ "; } .badge.bad::before { content:"⚠ "; }
        canvas.plot { width:150px; height:40px; border:1px solid var(--line); border-radius:6px; }
        label.delay { display:flex; align-items:center; gap:6px; font-size:.9rem; color:var(--dim); margin-left:auto; }
        label.delay input { width:5.5em; min-height:44px; font:inherit; color:var(--fg); background:var(--card);
                            border:1px solid var(--line); border-radius:8px; padding:0 6px; }
        .empty { color:var(--dim); text-align:center; padding:2em 0; }
        </style>
        </head>
        <body>
        <header>
          <h1>yt-gst · rooms <span id="conn" role="status" aria-live="polite">connecting…</span></h1>
          <div class="np" aria-label="Now playing">
            <div class="title" id="title">—</div>
            <div class="transport">
              <button id="prev" aria-label="Previous track"></button>
              <button id="play" aria-label="Pause"></button>
              <button id="next" aria-label="Next track"></button>
            </div>
            <div><span class="artist" id="artist"></span> <span class="time" id="time"></span></div>
            <progress id="progress" max="1" value="0" aria-label="Position in the track"></progress>
          </div>
          <p id="notice" role="alert"></p>
        </header>
        <main>
          <div id="groups"><p class="empty">No rooms yet: start <code>yt-gst receive</code> in a room.</p></div>
        </main>
        <script>
        "use strict";
        const TOKEN_KEY = "yt-gst-token";
        (function keepToken() {
          const params = new URLSearchParams(location.search);
          if (!params.has("token")) return;
          sessionStorage.setItem(TOKEN_KEY, params.get("token"));
          params.delete("token");
          const rest = params.toString();
          history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
        })();
        const token = sessionStorage.getItem(TOKEN_KEY);
        const $ = (id) => document.getElementById(id);
        const ICONS = {   // inline SVG paths (no icon font, no emoji font needed)
          prev: "M6 5h2v14H6zM20 5v14L9 12z", play: "M7 4v16l13-8z", pause: "M6 4h4v16H6zM14 4h4v16h-4z",
          next: "M16 5h2v14h-2zM4 5v14l11-7z",
          sound: "M3 9v6h4l5 5V4L7 9zM15.5 8.5l1.4-1.4a7 7 0 0 1 0 9.8l-1.4-1.4a5 5 0 0 0 0-7z",
          muted: "M3 9v6h4l5 5V4L7 9zM15 9.4 16.4 8l2.6 2.6L21.6 8 23 9.4 20.4 12l2.6 2.6-1.4 1.4-2.6-2.6-2.6 2.6-1.4-1.4 2.6-2.6z",
        };
        /// Shows an icon and a short word on a button (the word keeps the state readable without the icon's shape).
        function face(button, icon, word) {
          const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
          svg.setAttribute("viewBox", "0 0 24 24");
          svg.setAttribute("aria-hidden", "true");
          const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
          path.setAttribute("d", ICONS[icon]);
          svg.append(path);
          const parts = [svg];
          if (word) parts.push(el("span", { class: "label" }, word));
          button.replaceChildren(...parts);
        }
        const state = { groups: [], streams: [] };
        const offsets = new Map();          // client id -> [[ms, µs], ...] over the last minute
        const cards = new Map();            // client id -> the room's elements
        const sections = new Map();         // group id -> the group's elements
        let ws = null, nextId = 1, pending = new Map(), backoff = 500, playClock = null;

        function connect() {
          const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/jsonrpc";
          ws = new WebSocket(url);
          ws.onopen = async () => {
            backoff = 500;
            $("conn").textContent = "connected";
            if (token) {
              const auth = await call("Server.Authenticate", { token });
              if (auth.error) notice("The control token was not accepted: the page can only watch.");
            }
            const status = await call("Server.GetStatus");
            if (status.result) setServer(status.result.server);
          };
          ws.onmessage = (event) => {
            let message;
            try { message = JSON.parse(event.data); } catch (e) { return; }
            for (const m of Array.isArray(message) ? message : [message]) receive(m);
          };
          ws.onclose = () => {
            for (const resolve of pending.values()) resolve({ error: { code: -1, message: "disconnected" } });
            pending.clear();
            const seconds = Math.round(backoff / 100) / 10;
            $("conn").textContent = "offline, reconnecting in " + seconds + " s";
            setTimeout(connect, backoff);
            backoff = Math.min(backoff * 2, 10000);
          };
        }

        function call(method, params) {
          const id = nextId++;
          const message = { jsonrpc: "2.0", id, method };
          if (params !== undefined) message.params = params;
          return new Promise((resolve) => {
            if (!ws || ws.readyState !== WebSocket.OPEN) { resolve({ error: { code: -1, message: "offline" } }); return; }
            pending.set(id, resolve);
            ws.send(JSON.stringify(message));
          });
        }

        /// A change: sent, and on refusal the page says why and reloads the truth.
        async function change(method, params) {
          const reply = await call(method, params);
          if (!reply.error) return;
          notice(reply.error.code === -32001
            ? "Not allowed: open this page with ?token=… to change things."
            : method + ": " + reply.error.message);
          const status = await call("Server.GetStatus");
          if (status.result) setServer(status.result.server);
        }

        function notice(text) {
          $("notice").textContent = text;
          clearTimeout(notice.timer);
          notice.timer = setTimeout(() => { $("notice").textContent = ""; }, 6000);
        }

        function receive(m) {
          if (m.id !== undefined && pending.has(m.id)) {
            pending.get(m.id)(m);
            pending.delete(m.id);
            return;
          }
          const p = m.params || {};
          const handler = notifications[m.method];
          if (handler) handler(p);
        }

        const notifications = {
          "Server.OnUpdate": (p) => setServer(p.server),
          "Client.OnConnect": (p) => putClient(p.client),
          "Client.OnDisconnect": (p) => putClient(p.client),
          "Client.OnVolumeChanged": (p) => editClient(p.id, (c) => { c.config.volume = p.volume; }),
          "Client.OnLatencyChanged": (p) => editClient(p.id, (c) => { c.config.latency = p.latency; }),
          "Client.OnNameChanged": (p) => editClient(p.id, (c) => { c.config.name = p.name; }),
          "yt-gst.Client.OnReport": (p) => editClient(p.id, (c) => { c["yt-gst"] = p["yt-gst"]; }),
          "Group.OnMute": (p) => editGroup(p.id, (g) => { g.muted = p.mute; }),
          "Group.OnNameChanged": (p) => editGroup(p.id, (g) => { g.name = p.name; }),
          "Group.OnStreamChanged": (p) => editGroup(p.id, (g) => { g.stream_id = p.stream_id; }),
          "Stream.OnProperties": (p) => editStream(p.id, (s) => { s.properties = p.properties; }),
          "Stream.OnUpdate": (p) => editStream(p.id, (s) => { Object.assign(s, p.stream); }),
        };

        function setServer(server) {
          state.groups = server.groups || [];
          state.streams = server.streams || [];
          for (const g of state.groups) for (const c of g.clients) record(c);
          render();
        }

        function findClient(id) {
          for (const g of state.groups) for (const c of g.clients) if (c.id === id) return c;
          return null;
        }

        function putClient(client) {
          if (!client) return;
          const known = findClient(client.id);
          if (!known) { call("Server.GetStatus").then((s) => { if (s.result) setServer(s.result.server); }); return; }
          Object.assign(known, client);
          record(known);
          render();
        }

        function editClient(id, edit) {
          const c = findClient(id);
          if (!c) return;
          edit(c);
          record(c);
          render();
        }

        function editGroup(id, edit) {
          const g = state.groups.find((g) => g.id === id);
          if (g) { edit(g); render(); }
        }

        function editStream(id, edit) {
          const s = state.streams.find((s) => s.id === id);
          if (s) { edit(s); renderStream(); }
        }

        /// Keeps the client's measured offset for its plot (one minute of it).
        function record(c) {
          const sync = c["yt-gst"] && c["yt-gst"].sync;
          if (!sync || typeof sync.offsetUs !== "number") return;
          const points = offsets.get(c.id) || [];
          points.push([Date.now(), sync.offsetUs]);
          while (points.length && points[0][0] < Date.now() - 60000) points.shift();
          offsets.set(c.id, points);
        }

        /// Rooms and groups updated in place; the elements are only re-arranged when the rooms or groups change (so
        /// a slider being dragged or a name being typed is never taken from under a finger).
        function render() {
          const box = $("groups");
          const groups = state.groups.filter((g) => g.clients.length);
          const layout = groups.map((g) => g.id + ":" + g.clients.map((c) => c.id).join(",")).join("|");
          for (const g of groups) {
            groupSection(g);
            for (const c of g.clients) roomCard(c, g);
          }
          if (layout !== render.layout) {
            render.layout = layout;
            if (!groups.length) {
              box.replaceChildren(el("p", { class: "empty" }, "No rooms yet: start yt-gst receive in a room."));
            } else {
              box.replaceChildren(...groups.map((g) => {
                const section = sections.get(g.id).root;
                section.replaceChildren(sections.get(g.id).head, ...g.clients.map((c) => cards.get(c.id).root));
                return section;
              }));
            }
            const ids = new Set(groups.flatMap((g) => g.clients.map((c) => c.id)));
            for (const id of [...cards.keys()]) if (!ids.has(id)) cards.delete(id);
            for (const id of [...sections.keys()]) if (!groups.some((g) => g.id === id)) sections.delete(id);
          }
          renderStream();
        }

        function el(tag, attributes, text) {
          const e = document.createElement(tag);
          for (const [k, v] of Object.entries(attributes || {})) e.setAttribute(k, v);
          if (text !== undefined) e.textContent = text;
          return e;
        }

        function clientName(c) { return c.config.name || (c.host && c.host.name) || c.id; }

        /// A group's section and header (made once per group, updated in place).
        function groupSection(g) {
          let section = sections.get(g.id);
          if (!section) {
            section = { root: el("section", { class: "group" }), head: el("div", { class: "ghead" }) };
            section.title = el("h2");
            section.mute = el("button");
            section.mute.onclick = () => {
              const group = section.group;
              group.muted = !group.muted;
              render();
              change("Group.SetMute", { id: group.id, mute: group.muted });
            };
            section.head.append(section.title, section.mute);
            sections.set(g.id, section);
          }
          section.group = g;
          const title = g.name || g.clients.map(clientName).join(" + ");
          section.root.setAttribute("aria-label", "Group " + title);
          section.title.textContent = "Group · " + title;
          section.mute.setAttribute("aria-pressed", String(!!g.muted));
          face(section.mute, g.muted ? "muted" : "sound", g.muted ? "Group muted" : "Group");
          section.mute.setAttribute("aria-label", (g.muted ? "Unmute group " : "Mute group ") + title);
          return section;
        }

        /// A room's card, made once per client and updated in place (a slider being dragged is left alone).
        function roomCard(c, g) {
          let card = cards.get(c.id);
          if (!card) { card = makeCard(c.id); cards.set(c.id, card); }
          card.client = c;
          card.group = g;
          const name = clientName(c);
          card.root.setAttribute("aria-label", "Room " + name);
          if (document.activeElement !== card.name) card.name.value = name;
          card.name.setAttribute("aria-label", "Name of room " + name);
          card.online.textContent = c.connected ? "online" : "offline";
          card.online.className = "online" + (c.connected ? "" : " off");
          const volume = c.config.volume;
          // Not under the user's hand: while a slider moves, and for a second after (the hub's echo of an earlier
          // step, or a room's report sent before it, would pull a slider moved by keys back between two presses);
          // the hub's latest is shown then.
          const settling = 1000 - (Date.now() - card.movedAt);
          if (!card.dragging && settling <= 0) {
            card.slider.value = volume.percent;
            card.pct.textContent = volume.percent + "%";
          } else if (!card.settleTimer) {
            card.settleTimer = setTimeout(() => {
              card.settleTimer = null;
              roomCard(card.client, card.group);
            }, Math.max(settling, 200));
          }
          card.slider.setAttribute("aria-label", "Volume of " + name);
          card.mute.setAttribute("aria-pressed", String(!!volume.muted));
          face(card.mute, volume.muted ? "muted" : "sound", volume.muted ? "Muted" : "");
          card.mute.setAttribute("aria-label", (volume.muted ? "Unmute " : "Mute ") + name);
          if (document.activeElement !== card.delay) card.delay.value = c.config.latency;
          card.delay.setAttribute("aria-label", "Delay of " + name + " in milliseconds");
          badge(card, c, g);
          plot(card.canvas, offsets.get(c.id) || []);
          return card;
        }

        function makeCard(id) {
          const card = {
            root: el("div", { class: "room", role: "group" }), dragging: false, movedAt: 0, settleTimer: null,
          };
          card.name = el("input", { class: "name", type: "text", maxlength: "64", enterkeyhint: "done" });
          card.name.onchange = () => {
            const value = card.name.value.trim();
            if (!value) return;
            card.client.config.name = value;
            change("Client.SetName", { id, name: value });
            card.name.blur();
          };
          card.name.onkeydown = (e) => { if (e.key === "Enter") card.name.blur(); };
          card.online = el("span", { class: "online" });
          const head = el("div", { class: "rhead" });
          head.append(card.name, card.online);
          card.mute = el("button", {});
          card.mute.onclick = () => {
            const volume = card.client.config.volume;
            volume.muted = !volume.muted;
            render();
            change("Client.SetVolume", { id, volume: { muted: volume.muted } });
          };
          card.slider = el("input", { type: "range", min: "0", max: "100", step: "1" });
          card.pct = el("span", { class: "pct", "aria-hidden": "true" });
          wireSlider(card, id);
          const vol = el("div", { class: "vol" });
          vol.append(card.mute, card.slider, card.pct);
          card.badge = el("span", { class: "badge none", role: "status" });
          card.canvas = el("canvas", { class: "plot", width: "300", height: "80", role: "img" });
          card.delay = el("input", { type: "number", min: "-10000", max: "10000", step: "1", inputmode: "numeric" });
          card.delay.onchange = () => {
            const value = Math.round(Number(card.delay.value));
            if (!Number.isFinite(value)) return;
            card.client.config.latency = value;
            change("Client.SetLatency", { id, latency: value });
          };
          const delay = el("label", { class: "delay" }, "Delay ");
          delay.append(card.delay, document.createTextNode(" ms"));
          const sync = el("div", { class: "sync" });
          sync.append(card.badge, card.canvas, delay);
          card.root.append(head, vol, sync);
          return card;
        }

        /// Volume while dragging: at most one call per 50 ms, the last value always sent.
        function wireSlider(card, id) {
          let timer = null, lastSent = 0;
          const send = () => {
            timer = null;
            lastSent = Date.now();
            const percent = Number(card.slider.value);
            card.client.config.volume.percent = percent;
            change("Client.SetVolume", { id, volume: { percent } });
          };
          card.slider.oninput = () => {
            card.dragging = true;
            card.movedAt = Date.now();
            card.pct.textContent = card.slider.value + "%";
            if (timer === null) timer = setTimeout(send, Math.max(0, 50 - (Date.now() - lastSent)));
          };
          card.slider.onchange = () => {
            card.dragging = false;
            card.movedAt = Date.now();
            if (timer !== null) { clearTimeout(timer); send(); }
          };
        }

        function badge(card, c, g) {
          const sync = c["yt-gst"] && c["yt-gst"].sync;
          if (!c.connected || !sync || typeof sync.offsetUs !== "number") {
            card.badge.className = "badge none";
            card.badge.textContent = c.connected ? "sync: not measured" : "sync: —";
          } else {
            const us = Math.round(sync.offsetUs);
            card.badge.className = "badge " + (sync.inSync ? "ok" : "bad");
            card.badge.textContent = (sync.inSync ? "in sync " : "out of sync ") + (us > 0 ? "+" : "") + us + " µs";
          }
          card.canvas.setAttribute("aria-label", "Sync offset of " + clientName(c) + " over the last minute");
        }

        /// The offset over the last minute: time left to right, zero in the middle, each report held until the next
        /// (a dot where it came), scaled to the largest and the scale written in the corner.
        function plot(canvas, points) {
          const ctx = canvas.getContext("2d");
          const w = canvas.width, h = canvas.height, now = Date.now();
          const style = getComputedStyle(document.documentElement);
          ctx.clearRect(0, 0, w, h);
          ctx.strokeStyle = style.getPropertyValue("--line");
          ctx.lineWidth = 2;
          ctx.beginPath(); ctx.moveTo(0, h / 2); ctx.lineTo(w, h / 2); ctx.stroke();
          const recent = points.filter((p) => p[0] >= now - 60000);
          if (!recent.length) return;
          const scale = Math.max(100, ...recent.map((p) => Math.abs(p[1])));
          const x = (t) => w - ((now - t) / 60000) * w, y = (us) => h / 2 - (us / scale) * (h / 2 - 6);
          ctx.strokeStyle = ctx.fillStyle = style.getPropertyValue("--accent");
          ctx.lineWidth = 3;
          ctx.beginPath();
          recent.forEach((p, i) => {
            if (i === 0) ctx.moveTo(x(p[0]), y(p[1])); else ctx.lineTo(x(p[0]), y(recent[i - 1][1]));
            ctx.lineTo(x(p[0]), y(p[1]));
          });
          ctx.lineTo(w, y(recent[recent.length - 1][1]));
          ctx.stroke();
          for (const p of recent) { ctx.beginPath(); ctx.arc(x(p[0]), y(p[1]), 4, 0, 2 * Math.PI); ctx.fill(); }
          ctx.fillStyle = style.getPropertyValue("--dim");
          ctx.font = "20px system-ui, sans-serif";
          ctx.fillText("±" + Math.round(scale) + " µs", 6, 22);
        }

        function currentStream() {
          const g = state.groups.find((g) => g.clients.length) || state.groups[0];
          return (g && state.streams.find((s) => s.id === g.stream_id)) || state.streams[0] || null;
        }

        function clock(seconds) {
          if (typeof seconds !== "number" || !Number.isFinite(seconds)) return "";
          const s = Math.max(0, Math.floor(seconds));
          return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
        }

        function renderStream() {
          const s = currentStream();
          const p = (s && s.properties) || {};
          const meta = p.metadata || {};
          $("title").textContent = meta.title || (s ? s.id : "Nothing playing");
          $("artist").textContent = Array.isArray(meta.artist) ? meta.artist.join(", ") : (meta.artist || "");
          const playing = p.playbackStatus === "playing";
          face($("play"), playing ? "pause" : "play");
          $("play").setAttribute("aria-label", playing ? "Pause" : "Play");
          $("prev").disabled = !s || p.canGoPrevious === false;
          $("next").disabled = !s || p.canGoNext === false;
          $("play").disabled = !s;
          clearInterval(playClock);
          const since = Date.now(), start = typeof p.position === "number" ? p.position : null;
          const show = () => {
            const position = start === null ? null : start + (playing ? (Date.now() - since) / 1000 : 0);
            const duration = meta.duration;
            const end = typeof duration === "number" && duration > 0 ? duration : null;
            $("time").textContent = position === null ? "" : clock(end ? Math.min(position, end) : position)
              + (end ? " / " + clock(end) : "");
            $("progress").value = end && position !== null ? Math.min(1, position / end) : 0;
          };
          show();
          if (playing) playClock = setInterval(show, 1000);
        }

        function control(command) {
          const s = currentStream();
          if (!s) return;
          if (command === "pause" || command === "play") {
            s.properties = s.properties || {};
            s.properties.playbackStatus = command === "pause" ? "paused" : "playing";
            renderStream();
          }
          change("Stream.Control", { id: s.id, command });
        }
        face($("prev"), "prev");
        face($("next"), "next");
        $("prev").onclick = () => control("previous");
        $("next").onclick = () => control("next");
        $("play").onclick = () => {
          const s = currentStream();
          control(s && s.properties && s.properties.playbackStatus === "playing" ? "pause" : "play");
        };
        setInterval(() => { for (const card of cards.values()) plot(card.canvas, offsets.get(card.client.id) || []); }, 2000);
        connect();
        </script>
        </body>
        </html>
        """#
}
