// scout serve: the page's only script. Plain DOM, no framework; every text that came from a
// server under test is set with textContent, never parsed as HTML.
'use strict';

const PHASES = ['discovery', 'auth', 'handshake', 'protocol', 'catalog', 'execution',
  'expectations', 'performance', 'resilience', 'security'];
const STATUS_ORDER = { fail: 0, warn: 1, info: 2, skip: 3, pass: 4 };
const DOWNLOADS = [['json', 'JSON'], ['junit', 'JUnit'], ['sarif', 'SARIF'],
  ['markdown', 'Markdown'], ['har', 'HAR']];

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function api(path, options) {
  const res = await fetch(path, Object.assign({ credentials: 'same-origin' }, options || {}));
  let body = null;
  const type = res.headers.get('content-type') || '';
  if (type.includes('json')) body = await res.json();
  else body = { error: (await res.text()).trim() };
  return { ok: res.ok, status: res.status, body };
}

let info = null;
let current = null; // { id, source: EventSource, counts }

async function loadInfo() {
  const r = await api('/api/info');
  if (!r.ok) { $('flags').textContent = r.body.error || 'Not authorised.'; return; }
  info = r.body;
  const parts = [];
  parts.push(info.public ? 'public (--public): reachable from other machines' : 'loopback only');
  if (info.public) parts.push('commands refused whatever the flags say');
  else parts.push(info.allow_stdio ? 'commands allowed (--allow-stdio)' : 'commands refused (no --allow-stdio)');
  parts.push(`at most ${info.max_runs} run(s) at a time (--max-runs)`);
  parts.push(info.policy);
  const flags = $('flags');
  flags.textContent = '';
  flags.append(el('strong', { text: `v${info.version}` }), ' · started with: ' + parts.join(' · '));
  $('command-field').hidden = !info.allow_stdio;
}

function parseHeaders(text) {
  const headers = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const i = line.indexOf(':');
    if (i <= 0) throw new Error(`"${line}" is not a "Name: value" header line`);
    headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return headers;
}

async function startRun(event) {
  event.preventDefault();
  const error = $('form-error');
  error.textContent = '';
  const request = {};
  const url = $('url').value.trim();
  const command = info && info.allow_stdio
    ? $('command').value.split('\n').map((s) => s.trim()).filter(Boolean) : [];
  if (command.length && !url) {
    request.command = command;
  } else {
    request.url = url;
    try {
      const headers = parseHeaders($('headers').value);
      if (Object.keys(headers).length) request.headers = headers;
    } catch (e) { error.textContent = e.message; $('headers').focus(); return; }
    const tokenEnv = $('token-env').value.trim();
    if (tokenEnv) request.token_env = tokenEnv;
  }
  const button = $('start');
  button.disabled = true;
  try {
    const r = await api('/api/runs', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request),
    });
    if (!r.ok) { error.textContent = r.body.error || `The run was refused (${r.status}).`; return; }
    openRun(r.body);
    refreshRecent();
  } catch (e) {
    error.textContent = `scout serve did not answer: ${e.message}`;
  } finally {
    button.disabled = false;
  }
}

function phaseList() {
  const list = $('phases');
  list.textContent = '';
  for (const p of PHASES) {
    list.append(el('li', { id: `phase-${p}`, class: 'waiting' },
      el('span', { class: 'name', text: p }), el('span', { class: 'state', text: 'waiting' })));
  }
}

function setPhase(phase, cls, text) {
  const li = $(`phase-${phase}`);
  if (!li) return;
  li.className = cls;
  li.querySelector('.state').textContent = text;
}

function countText(c) {
  const parts = Object.entries(c).filter(([, n]) => n > 0)
    .sort(([a], [b]) => STATUS_ORDER[a] - STATUS_ORDER[b]).map(([s, n]) => `${n} ${s}`);
  return parts.length ? parts.join(', ') : 'no findings';
}

function openRun(run) {
  if (current && current.source) current.source.close();
  current = { id: run.id, source: null, counts: {} };
  $('run').hidden = false;
  $('run-target').textContent = run.target;
  $('report').textContent = '';
  phaseList();
  const stop = $('stop');
  stop.hidden = run.state !== 'running';
  stop.onclick = async () => { stop.disabled = true; await api(`/api/runs/${run.id}/stop`, { method: 'POST' }); };
  stop.disabled = false;
  if (run.state === 'running') {
    $('live').textContent = `Check of ${run.target} started.`;
    follow(run.id);
  } else {
    showReport(run.id);
  }
  $('run').scrollIntoView({ block: 'start' });
}

function follow(id) {
  const source = new EventSource(`/api/runs/${id}/events`);
  current.source = source;
  source.onmessage = (m) => {
    for (const line of m.data.split('\n')) {
      if (!line) continue;
      let e;
      try { e = JSON.parse(line); } catch { continue; }
      onEvent(id, e);
    }
  };
  source.onerror = () => {
    // The stream ended without `done` (the server went away): show whatever is known.
    if (source.readyState === EventSource.CLOSED) showReport(id);
  };
}

function onEvent(id, e) {
  if (!current || current.id !== id) return;
  const c = current.counts;
  if (e.type === 'phase_started') setPhase(e.phase, 'running', 'running…');
  else if (e.type === 'finding') {
    c[e.phase] = c[e.phase] || { fail: 0, warn: 0, info: 0, pass: 0, skip: 0 };
    c[e.phase][e.status] += 1;
    const li = $(`phase-${e.phase}`);
    if (li && li.className === 'running') li.querySelector('.state').textContent = `running… ${countText(c[e.phase])}`;
  } else if (e.type === 'phase_finished') {
    const text = countText(c[e.phase] || {});
    setPhase(e.phase, 'done', `done: ${text}`);
    $('live').textContent = `${e.phase} finished: ${text}.`;
  } else if (e.type === 'done') {
    current.source && current.source.close();
    $('stop').hidden = true;
    $('live').textContent = e.score === null || e.score === undefined
      ? 'The check finished without a score.' : `The check finished: score ${e.score} of 100.`;
    showReport(id);
    refreshRecent();
  }
}

function bar(score, label) {
  const outer = el('div', { class: 'bar' + (score < 50 ? ' low' : score < 80 ? ' mid' : ''), role: 'img', 'aria-label': label });
  const fill = el('span');
  fill.style.width = `${Math.max(0, Math.min(100, score))}%`;
  outer.append(fill);
  return outer;
}

async function showReport(id) {
  const r = await api(`/api/runs/${id}`);
  const box = $('report');
  box.textContent = '';
  if (!r.ok) { box.append(el('p', { class: 'error', text: r.body.error || 'The run is gone.' })); return; }
  if (!r.body.report) { box.append(el('p', { class: 'help', text: 'The run is still in progress.' })); return; }
  $('stop').hidden = true;
  const report = r.body.report;
  for (const server of report.servers) {
    for (const p of PHASES) {
      const li = $(`phase-${p}`);
      const cat = server.categories.find((x) => x.phase === p);
      if (li && li.className !== 'done') setPhase(p, 'done', cat && cat.assessed ? 'done' : 'not assessed');
    }
    box.append(renderServer(id, server, report));
  }
}

function renderServer(id, server, report) {
  const wrap = el('div', { class: 'server-report' });
  const score = server.score;
  const overall = el('div', { class: 'overall' },
    el('span', { class: 'big', id: 'score', text: score === null ? '—' : String(score) }),
    el('span', { class: 'of', text: score === null ? 'not scored' : 'of 100 overall' }));
  if (score !== null) overall.append(bar(score, `Overall score ${score} of 100`));
  const gate = report.gate;
  overall.append(el('p', { class: 'gate ' + (gate.passed ? 'passed' : 'failed'), text: gate.passed ? 'Gate passed' : 'Gate failed' }));
  for (const reason of gate.reasons || []) overall.append(el('p', { class: 'help', text: reason }));
  if (server.blocked) overall.append(el('p', { class: 'help', text: `Blocked: ${server.blocked}` }));
  const cats = el('ul', { class: 'categories', 'aria-label': 'Category scores' });
  for (const c of server.categories) {
    const assessed = c.assessed && c.score !== null;
    cats.append(el('li', {},
      el('span', { text: c.phase }),
      assessed ? bar(c.score, `${c.phase} ${c.score} of 100`) : el('span', { class: 'na', text: '' }),
      el('span', { class: assessed ? 'num' : 'num na', text: assessed ? `${c.score} / 100` : 'not assessed' })));
  }
  wrap.append(el('h3', { class: 'visually-hidden', text: `Report for ${server.name}` }));
  wrap.append(el('div', { class: 'summary' }, overall, cats));

  const dl = el('div', { class: 'downloads' }, el('h3', { text: 'Download' }));
  for (const [fmt, label] of DOWNLOADS) {
    dl.append(el('a', { class: 'button secondary', href: `/api/runs/${id}/download/${fmt}`, download: '', 'data-format': fmt, text: label }));
  }
  wrap.append(dl);

  wrap.append(el('h3', { text: 'Findings' }));
  for (const p of PHASES) {
    const findings = server.findings.filter((f) => f.phase === p)
      .sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status]);
    if (!findings.length) continue;
    const counts = {};
    for (const f of findings) counts[f.status] = (counts[f.status] || 0) + 1;
    const cat = server.categories.find((x) => x.phase === p);
    const notable = findings.some((f) => f.status === 'fail' || f.status === 'warn');
    const group = el('details', { class: 'phase-group', open: notable, id: `group-${p}` },
      el('summary', {}, el('span', { text: p }),
        el('span', { class: 'counts', text: `${cat && cat.assessed && cat.score !== null ? cat.score + '/100 · ' : ''}${countText(counts)}` })));
    for (const f of findings) group.append(renderFinding(id, server, f));
    wrap.append(group);
  }
  return wrap;
}

function renderFinding(id, server, f) {
  const status = f.status + (f.severity && f.status === 'fail' ? ` (${f.severity})` : '');
  const art = el('article', { class: `finding ${f.status}`, 'data-id': f.id },
    el('h4', {}, el('span', { class: `badge ${f.status}`, text: status }),
      el('span', { text: f.title }), el('code', { class: 'id', text: f.id })));
  if (f.detail) art.append(el('p', { text: f.detail }));
  if (f.advice && f.status !== 'pass') art.append(el('p', { class: 'advice', text: f.advice }));
  const meta = el('div', { class: 'meta' });
  if (f.subject) meta.append(el('span', { text: `subject: ${f.subject}` }));
  if (f.era) meta.append(el('span', { text: `era: ${f.era}` }));
  if (f.skip_reason) meta.append(el('span', { text: `skipped: ${f.skip_reason}` }));
  if (f.spec && /^https?:\/\//.test(f.spec)) meta.append(el('a', { href: f.spec, rel: 'noreferrer noopener', target: '_blank', text: 'spec' }));
  if (meta.childNodes.length) art.append(meta);
  if (f.evidence && f.evidence.length) {
    const panelId = `ev-${f.id.replace(/[^A-Za-z0-9_-]/g, '_')}-${Math.random().toString(36).slice(2, 8)}`;
    const button = el('button', { type: 'button', class: 'evidence-toggle', 'aria-expanded': 'false', 'aria-controls': panelId,
      text: f.evidence.length > 12
        ? `Evidence: req#${f.evidence.slice(0, 10).join(', ')} … and ${f.evidence.length - 10} more`
        : `Evidence: req#${f.evidence.join(', ')}` });
    const panel = el('div', { class: 'evidence', id: panelId, hidden: true });
    button.addEventListener('click', async () => {
      const open = button.getAttribute('aria-expanded') === 'true';
      button.setAttribute('aria-expanded', String(!open));
      panel.hidden = open;
      if (!open && !panel.dataset.loaded) {
        panel.dataset.loaded = '1';
        panel.append(el('p', { class: 'help', text: 'Loading the exchanges…' }));
        const server_index = 0;
        const r = await api(`/api/runs/${id}/exchanges?server=${server_index}&seq=${f.evidence.join(',')}`);
        panel.textContent = '';
        if (!r.ok) { panel.append(el('p', { class: 'error', text: r.body.error })); return; }
        if (!r.body.entries.length) panel.append(el('p', { class: 'help', text: 'These exchanges were not kept.' }));
        for (const entry of r.body.entries) panel.append(renderExchange(entry));
      }
    });
    art.append(button, panel);
  }
  return art;
}

function prettyJson(t) {
  try { return JSON.stringify(JSON.parse(t), null, 2); } catch { return null; }
}

// JSON bodies indented; an SSE body keeps its lines, with each `data:` JSON indented.
function pretty(text) {
  if (!text) return '';
  const t = text.length > 20000 ? text.slice(0, 20000) + '\n… (cut here; the HAR has all of it)' : text;
  const json = prettyJson(t);
  if (json !== null) return json;
  if (/^(data|event|id|retry):/m.test(t)) {
    return t.split('\n').map((line) => {
      const m = /^data: ?(.*)$/.exec(line);
      const j = m && prettyJson(m[1]);
      return j === null || j === undefined ? line : 'data: ' + j;
    }).join('\n');
  }
  return t;
}

function headerText(headers) {
  return (headers || []).map((h) => `${h.name}: ${h.value}`).join('\n');
}

function renderExchange(e) {
  const req = e.request;
  const res = e.response;
  const stdio = req.httpVersion === 'stdio';
  const status = stdio ? '' : ` → ${res.status || 'no response'}${res.statusText ? ' ' + res.statusText : ''}`;
  const title = `#${e._seq} ${req.method} ${req.url}${status} · ${Math.round(e.time * 10) / 10} ms`;
  const reqText = [headerText(req.headers), req.postData ? pretty(req.postData.text) : ''].filter(Boolean).join('\n\n');
  const resText = [headerText(res.headers), pretty(res.content && res.content.text)].filter(Boolean).join('\n\n')
    + (e._error ? `\n\nerror: ${e._error}` : '') + (e._truncated ? '\n\n(the body was cut at the size limit)' : '');
  return el('section', { class: 'exchange', 'aria-label': `Exchange ${e._seq}` },
    el('h5', { text: title }),
    el('div', { class: 'cols' },
      el('div', { class: 'col' }, el('h6', { text: 'Request' }), el('pre', { tabindex: '0', text: reqText || '(empty)' })),
      el('div', { class: 'col' }, el('h6', { text: 'Response' }), el('pre', { tabindex: '0', text: resText || '(empty)' }))),
    el('p', { class: 'help', text: `started ${e.startedDateTime}` }));
}

async function refreshRecent() {
  const r = await api('/api/runs');
  if (!r.ok) return;
  const list = $('recent');
  list.textContent = '';
  $('recent-empty').hidden = r.body.runs.length > 0;
  for (const run of r.body.runs) {
    const score = run.score === null || run.score === undefined ? '' : `${run.score}/100`;
    const b = el('button', { type: 'button' },
      el('span', { class: 't', text: run.target }),
      el('span', { class: 's', text: score }),
      el('span', { text: run.state }),
      el('span', { text: new Date(run.started_at).toLocaleTimeString() }));
    b.addEventListener('click', () => openRun(run));
    list.append(el('li', {}, b));
  }
}

document.addEventListener('DOMContentLoaded', async () => {
  $('run-form').addEventListener('submit', startRun);
  await loadInfo();
  await refreshRecent();
});
