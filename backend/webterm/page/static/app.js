// The heimdall-tui web terminal: the session list and one terminal at a
// time over the WebSocket terminal protocol (wire/wsterm/PROTOCOL.md).
'use strict';

const $ = (id) => document.getElementById(id);
const enc = new TextEncoder();
const HEARTBEAT_MS = 30000;        // ping every 30 s
const BACKOFF_MIN = 1000, BACKOFF_MAX = 30000;

let uploadLimit = 0;
let assistants = [];

function notice(text, isError) {
  const n = $('notice');
  n.textContent = text;
  n.className = isError ? 'error' : '';
  n.hidden = false;
  clearTimeout(notice.t);
  notice.t = setTimeout(() => { n.hidden = true; }, isError ? 6000 : 3000);
}

function stateClass(s) {
  if (!s.alive) return 'dead';
  if (s.needsInput) return 'input';
  return (s.state || '').toLowerCase().replace(/[^a-z]/g, '');
}

// ---- session list -------------------------------------------------------

async function loadList() {
  let data;
  try {
    const r = await fetch('/api/sessions', { cache: 'no-store' });
    if (!r.ok) throw new Error(r.status + ' ' + (await r.text()));
    data = await r.json();
  } catch (e) {
    $('conn').textContent = 'offline';
    $('conn').className = 'conn bad';
    return;
  }
  $('conn').textContent = '';
  uploadLimit = data.uploadLimit;
  assistants = data.assistants || [];
  const sel = $('assistant');
  const keep = sel.value;
  sel.replaceChildren(...assistants.map((a) => {
    const o = document.createElement('option');
    o.value = a.key;
    o.textContent = a.name + (a.found ? '' : ' (not installed)');
    return o;
  }));
  // Keep the user's pick across refreshes; at first, the first assistant
  // that is installed (a missing one cannot start).
  const first = assistants.find((a) => a.found);
  if (keep) sel.value = keep;
  else if (first) sel.value = first.key;
  const ul = $('sessions');
  ul.replaceChildren(...data.sessions.map((s) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = '#/s/' + encodeURIComponent(s.id);
    a.dataset.id = s.id;
    const state = s.alive ? (s.needsInput ? 'needs input' : s.state) : 'exited ' + s.exitCode;
    a.innerHTML = '<span class="sid"></span><span class="state"></span><span class="name"></span><span class="dim"></span>';
    a.querySelector('.sid').textContent = s.id;
    a.querySelector('.state').textContent = state;
    a.querySelector('.state').classList.add(stateClass(s));
    a.querySelector('.name').textContent = s.name || s.title || '';
    a.querySelector('.dim').textContent = [s.assistant, s.cols + '×' + s.rows, s.viewers ? s.viewers + ' viewing' : '', s.dir].filter(Boolean).join(' · ');
    li.append(a);
    return li;
  }));
  $('empty').hidden = data.sessions.length > 0;
}

// ---- inbox ---------------------------------------------------------------

const KIND_MARK = { input: '! needs input', error: '✗ failed', done: '✓ done' };

// answer sends one answer to the dialog session id shows; the server
// refuses it (409, with the reason) when the screen no longer asks that.
async function answer(id, body) {
  const r = await fetch('/api/sessions/' + encodeURIComponent(id) + '/answer', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) { notice(text.trim() + ' — nothing was typed; open ' + id + ' to answer it there', true); loadInbox(); return; }
  const res = JSON.parse(text);
  notice('answered ' + id + ': ' + res.option + '. ' + res.label);
  loadInbox();
}

function inboxItem(it) {
  const li = document.createElement('li');
  li.className = 'item ' + it.kind;
  li.dataset.session = it.session;
  const head = document.createElement('div');
  head.className = 'head';
  const mark = document.createElement('span');
  mark.className = 'kind';
  mark.textContent = KIND_MARK[it.kind] || it.kind;
  // A session without a terminal (an ACP agent's) is answered here.
  const a = document.createElement(it.terminal ? 'a' : 'span');
  if (it.terminal) a.href = '#/s/' + encodeURIComponent(it.session);
  a.className = 'session';
  a.textContent = it.session;
  const age = document.createElement('span');
  age.className = 'dim';
  age.textContent = it.age;
  head.append(mark, a, age);
  const reason = document.createElement('p');
  reason.className = 'reason';
  reason.textContent = it.reason || (it.kind === 'done' ? 'finished its turn' : '');
  li.append(head, reason);
  if (it.preview && it.preview.length) {
    const pre = document.createElement('pre');
    pre.className = 'preview';
    pre.textContent = it.preview.join('\n');
    li.append(pre);
  }
  const p = it.prompt;
  if (p && !p.multi) {
    const q = document.createElement('p');
    q.className = 'question';
    q.textContent = p.question;
    const opts = document.createElement('div');
    opts.className = 'answers';
    p.options.forEach((label, i) => {
      if (/^Type something\.?$/.test(label)) {
        const f = document.createElement('form');
        f.className = 'words';
        const input = document.createElement('input');
        input.placeholder = 'Answer in words';
        input.maxLength = 4096;
        input.setAttribute('aria-label', 'Answer ' + it.session + ' in words');
        const b = document.createElement('button');
        b.type = 'submit';
        b.textContent = 'Send';
        f.append(input, b);
        f.addEventListener('submit', (e) => {
          e.preventDefault();
          if (input.value.trim()) answer(it.session, { choice: 'text', text: input.value.trim(), question: p.question });
        });
        opts.append(f);
        return;
      }
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.option = String(i + 1);
      b.textContent = (i + 1) + '. ' + label;
      b.addEventListener('click', () => answer(it.session, { choice: 'option', option: i + 1, question: p.question }));
      opts.append(b);
    });
    li.append(q, opts);
  } else if (it.kind === 'input') {
    const why = document.createElement('p');
    why.className = 'dim';
    why.textContent = p && p.multi ? 'Several answers: open the session to answer.' : (it.promptError || 'Open the session to answer.');
    li.append(why);
  }
  return li;
}

async function loadInbox() {
  let data;
  try {
    const r = await fetch('/api/inbox', { cache: 'no-store' });
    if (!r.ok) throw new Error(r.status);
    data = await r.json();
  } catch (e) {
    return;
  }
  // A text being typed is kept: the list is not redrawn under it.
  if (document.activeElement && document.activeElement.closest && document.activeElement.closest('#inbox form')) return;
  $('inbox').replaceChildren(...data.items.map(inboxItem));
  $('inbox-empty').hidden = data.items.length > 0;
  $('inbox-count').textContent = data.items.length ? String(data.items.length) : '';
}

// ---- Web Push ------------------------------------------------------------

// The page offers push where the browser can take it: a service worker and
// the Push API, which browsers allow only on a secure origin (https, or
// localhost). The server pushes each new inbox item to the subscribed
// browsers (GET /api/push: its VAPID key; 404 when it serves none).
function b64url(s) {
  const pad = '='.repeat((4 - (s.length % 4)) % 4);
  const raw = atob((s + pad).replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

async function setupPush() {
  const btn = $('push'), why = $('push-why');
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) return;
  if (!window.isSecureContext) {
    why.textContent = 'Notifications need https: serve with --tls-cert/--tls-key (see the README).';
    why.hidden = false;
    return;
  }
  const r = await fetch('/api/push', { cache: 'no-store' });
  if (!r.ok) return;
  const { publicKey } = await r.json();
  const reg = await navigator.serviceWorker.register('/sw.js');
  const current = await reg.pushManager.getSubscription();
  btn.textContent = current ? 'Notifications on' : 'Notify this device';
  btn.hidden = false;
  btn.onclick = async () => {
    try {
      if ((await Notification.requestPermission()) !== 'granted') throw new Error('notifications are not allowed');
      const sub = (await reg.pushManager.getSubscription()) ||
        await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: b64url(publicKey) });
      const res = await fetch('/api/push/subscribe', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(sub) });
      if (!res.ok) throw new Error(await res.text());
      btn.textContent = 'Notifications on';
      notice('this device will be told what waits for you');
    } catch (e) {
      notice('notifications: ' + (e.message || e), true);
    }
  };
}
setupPush().catch(() => {});

// A new session is named by the server as the dashboard names its own
// (claude-1, claude-2, …), then joined.
$('new-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await fetch('/api/sessions?assistant=' + encodeURIComponent($('assistant').value), { method: 'POST' });
  if (!r.ok) {
    notice((await r.text()).trim() || ('could not start: ' + r.status), true);
    return;
  }
  const { id } = await r.json();
  location.hash = '#/s/' + encodeURIComponent(id);
});

// ---- terminal -----------------------------------------------------------

class TermView {
  constructor(id, assistant) {
    this.id = id;
    this.assistant = assistant;
    this.ended = false;
    this.closed = false;
    this.backoff = BACKOFF_MIN;
    this.chunks = null;
    this.chain = Promise.resolve(); // output is written in the order it came
    this.term = new Terminal({ cursorBlink: true, scrollback: 5000, fontSize: window.innerWidth < 600 ? 12 : 14,
      fontFamily: 'ui-monospace, Menlo, Consolas, monospace', theme: { background: '#1a1b26' } });
    this.fit = new FitAddon.FitAddon();
    this.term.loadAddon(this.fit);
    this.term.open($('term'));
    this.term.onData((d) => this.sendBytes(enc.encode(d)));
    this.term.onResize(() => this.sendResize());
    this.onWinResize = () => this.refit();
    window.addEventListener('resize', this.onWinResize);
    this.ro = new ResizeObserver(() => this.refit());
    this.ro.observe($('term-wrap'));
    this.refit();
    this.term.focus();
    this.connect();
  }

  refit() {
    if (this.closed) return;
    try { this.fit.fit(); } catch (e) { /* not laid out yet */ }
  }

  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let u = proto + '//' + location.host + '/ws/' + encodeURIComponent(this.id);
    if (this.assistant) u += '?assistant=' + encodeURIComponent(this.assistant);
    return u;
  }

  connect() {
    if (this.closed || this.ended) return;
    setConn('connecting…', '');
    const ws = new WebSocket(this.url());
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.expectChunks = true;
    this.chunks = null;
    ws.onopen = () => {
      this.opened = true;
      this.backoff = BACKOFF_MIN;
      setConn('connected', 'ok');
      this.sendResize();
      this.startHeartbeat();
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data === 'string') this.onText(ev.data);
      else this.onBinary(new Uint8Array(ev.data));
    };
    ws.onclose = (ev) => {
      this.stopHeartbeat();
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed || this.ended) return;
      if (!this.opened && !this.assistant) this.checkTerminal();
      setConn('disconnected: ' + (ev.reason || ev.code) + ', retrying in ' + Math.round(this.backoff / 1000) + ' s', 'bad');
      this.retry = setTimeout(() => this.connect(), this.backoff);
      this.backoff = Math.min(BACKOFF_MAX, this.backoff * 2);
    };
  }

  // checkTerminal stops the retries when the server lists no terminal
  // session by this id (an ACP agent's has none: its requests are
  // answered in the inbox), which the browser's WebSocket cannot tell
  // from a server that is away.
  async checkTerminal() {
    let data;
    try {
      const r = await fetch('/api/sessions', { cache: 'no-store' });
      if (!r.ok) return;
      data = await r.json();
    } catch (e) { return; }
    if (this.closed || this.opened || data.sessions.some((s) => s.id === this.id)) return;
    this.ended = true;
    clearTimeout(this.retry);
    $('ended-text').textContent = 'No terminal for ' + this.id + ' here (an ACP agent\'s requests are answered in the inbox).';
    $('ended').hidden = false;
    setConn('no terminal', 'bad');
  }

  startHeartbeat() {
    this.stopHeartbeat();
    this.heartbeat = setInterval(() => this.sendJSON({ type: 'ping', data: { ts: Date.now() } }), HEARTBEAT_MS);
  }
  stopHeartbeat() { clearInterval(this.heartbeat); }

  open() { return this.ws && this.ws.readyState === WebSocket.OPEN; }
  sendBytes(b) { if (this.open()) this.ws.send(b); }
  sendJSON(v) { if (this.open()) this.ws.send(JSON.stringify(v)); }

  sendResize() {
    const rows = this.term.rows, cols = this.term.cols;
    this.sendBytes(new Uint8Array([0x00, (rows >> 8) & 0xff, rows & 0xff, (cols >> 8) & 0xff, cols & 0xff]));
  }

  onBinary(b) {
    // A snapshot chunk: [0x02][index][total][gzip data]. A snapshot comes
    // first on a connection, once: after it, or once raw output came, a
    // 0x02 is output (Ctrl-B's byte, printed by a program).
    if (this.expectChunks && b.length >= 3 && b[0] === 0x02 && b[1] < b[2]) {
      const total = b[2];
      if (!this.chunks || this.chunks.length !== total) this.chunks = new Array(total).fill(null);
      this.chunks[b[1]] = b.slice(3);
      if (this.chunks.every((c) => c !== null)) {
        const parts = this.chunks;
        this.chunks = null;
        this.expectChunks = false;
        this.chain = this.chain.then(async () => {
          const data = await gunzip(parts);
          this.term.reset();
          await new Promise((res) => this.term.write(data, res));
        }).catch((e) => notice('snapshot: ' + e, true));
      }
      return;
    }
    this.expectChunks = false;
    this.chain = this.chain.then(() => new Promise((res) => this.term.write(b, res)));
  }

  onText(text) {
    let m;
    try { m = JSON.parse(text); } catch (e) { return; }
    switch (m.type) {
      case 'status': this.onStatus(m); break;
      case 'chat': addChat(m); break;
      case 'pong': break;
      case 'file_upload':
        if (m.success) notice('File uploaded: ' + m.filename);
        else notice('Upload failed: ' + m.error, true);
        break;
      case 'exit':
        this.ended = true;
        $('ended-text').textContent = 'Session ended (exit code ' + m.exitCode + ')';
        $('ended').hidden = false;
        setConn('ended', 'bad');
        break;
    }
  }

  onStatus(m) {
    this.status = m;
    $('title').textContent = (m.sessionName || this.id) + ' · ' + m.assistant;
    $('meta').textContent = m.viewers + (m.viewers === 1 ? ' viewer' : ' viewers') + ' · ' + m.cols + '×' + m.rows;
    if (document.activeElement !== $('rename')) $('rename').value = m.sessionName || '';
    const y = $('yolo');
    y.hidden = !m.yoloSupported;
    y.classList.toggle('on', !!m.yoloMode);
    y.textContent = m.yoloMode ? 'YOLO: on' : 'YOLO: off';
  }

  upload(file) {
    if (!this.open()) { notice('Not connected', true); return; }
    if (uploadLimit && file.size > uploadLimit) { notice(file.name + ' is too large (at most ' + uploadLimit + ' bytes)', true); return; }
    const reader = new FileReader();
    reader.onload = () => {
      const data = new Uint8Array(reader.result);
      const name = enc.encode(file.name).slice(0, 0xffff);
      const msg = new Uint8Array(3 + name.length + data.length);
      msg[0] = 0x01; msg[1] = (name.length >> 8) & 0xff; msg[2] = name.length & 0xff;
      msg.set(name, 3); msg.set(data, 3 + name.length);
      this.sendBytes(msg);
    };
    reader.onerror = () => notice('Error reading ' + file.name, true);
    reader.readAsArrayBuffer(file);
  }

  close() {
    this.closed = true;
    clearTimeout(this.retry);
    this.stopHeartbeat();
    window.removeEventListener('resize', this.onWinResize);
    this.ro.disconnect();
    if (this.ws) { const ws = this.ws; this.ws = null; ws.close(1000, 'left'); }
    this.term.dispose();
  }
}

async function gunzip(parts) {
  const blob = new Blob(parts);
  const stream = blob.stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function setConn(text, cls) {
  $('conn').textContent = text;
  $('conn').className = 'conn ' + cls;
}

function addChat(m) {
  const li = document.createElement('li');
  const who = document.createElement('span');
  who.className = 'who';
  who.textContent = m.userName + ': ';
  const t = document.createElement('time');
  t.dateTime = m.timestamp;
  t.textContent = new Date(m.timestamp).toLocaleTimeString();
  li.append(who, document.createTextNode(m.text), t);
  $('chat-log').append(li);
  li.scrollIntoView({ block: 'end' });
  if ($('chat').hidden) $('chat-toggle').textContent = 'Chat •';
}

// ---- wiring -------------------------------------------------------------

let view = null;

function route() {
  const m = location.hash.match(/^#\/s\/([^?]+)(?:\?assistant=(.*))?$/);
  if (view) { view.close(); view = null; }
  $('ended').hidden = true;
  $('chat-log').replaceChildren();
  if (m) {
    $('list-view').hidden = true;
    $('term-view').hidden = false;
    $('title').textContent = decodeURIComponent(m[1]);
    view = new TermView(decodeURIComponent(m[1]), m[2] ? decodeURIComponent(m[2]) : '');
    // Once started, a reload joins rather than starts: drop ?assistant.
    if (m[2]) history.replaceState(null, '', '#/s/' + m[1]);
  } else {
    $('term-view').hidden = true;
    $('list-view').hidden = false;
    $('title').textContent = '';
    $('meta').textContent = '';
    setConn('', '');
    loadList();
    loadInbox();
  }
}
window.addEventListener('hashchange', route);
setInterval(() => { if (!view && !document.hidden) { loadList(); loadInbox(); } }, 3000);

$('rename-btn').addEventListener('click', () => {
  if (view) view.sendJSON({ type: 'rename_session', name: $('rename').value.trim() });
});
$('rename').addEventListener('keydown', (e) => { if (e.key === 'Enter') $('rename-btn').click(); });
$('yolo').addEventListener('click', () => { if (view) view.sendJSON({ type: 'toggle_yolo' }); });
$('chat-toggle').addEventListener('click', () => {
  $('chat').hidden = !$('chat').hidden;
  $('chat-toggle').textContent = 'Chat';
  if (view) view.refit();
  if (!$('chat').hidden) $('chat-input').focus();
});
$('chat-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('chat-input').value.trim();
  if (!text || !view) return;
  let name = localStorage.getItem('heimdall-user');
  if (!name) {
    name = (prompt('Your name for the chat') || '').trim();
    if (!name) return;
    localStorage.setItem('heimdall-user', name);
  }
  view.sendJSON({ type: 'chat', userName: name, text: text });
  $('chat-input').value = '';
});
$('file').addEventListener('change', (e) => {
  for (const f of e.target.files) if (view) view.upload(f);
  e.target.value = '';
});
const KEYS = { esc: '\x1b', tab: '\t', ctrlc: '\x03', up: '\x1b[A', down: '\x1b[B', right: '\x1b[C', left: '\x1b[D', enter: '\r' };
$('keys').addEventListener('click', (e) => {
  const k = e.target.dataset && e.target.dataset.key;
  if (k && view) { view.sendBytes(enc.encode(KEYS[k])); view.term.focus(); }
});

// Drag and drop: files dropped on the terminal are uploaded.
const wrap = $('term-wrap');
wrap.addEventListener('dragover', (e) => { e.preventDefault(); $('drop').hidden = false; });
wrap.addEventListener('dragleave', () => { $('drop').hidden = true; });
wrap.addEventListener('drop', (e) => {
  e.preventDefault();
  $('drop').hidden = true;
  for (const f of e.dataTransfer.files) if (view) view.upload(f);
});

route();
