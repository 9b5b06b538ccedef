// scout serve: the page's only script. Plain DOM, no framework; every text that came from a
// server under test is set with textContent, never parsed as HTML.
'use strict';

const PHASES = ['discovery', 'auth', 'handshake', 'protocol', 'catalog', 'execution',
  'expectations', 'performance', 'resilience', 'security', 'compat', 'manifest'];
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
  $('manifest-field').hidden = !info.allow_stdio;
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
  const manifest = info && info.allow_stdio ? $('manifest').value.trim() : '';
  if (command.length && !url) {
    request.command = command;
  } else if (manifest && !url) {
    // A file ending in .json is a registry server.json; anything else a bundle (.mcpb or folder).
    if (/\.json$/i.test(manifest)) request.server_json = manifest;
    else request.mcpb = manifest;
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

// Counts of a phase's findings by status, as the report has them.
function phaseCounts(servers, phase) {
  const c = {};
  for (const server of servers) {
    for (const f of server.findings) if (f.phase === phase) c[f.status] = (c[f.status] || 0) + 1;
  }
  return c;
}

async function showReport(id) {
  const r = await api(`/api/runs/${id}`);
  const box = $('report');
  box.textContent = '';
  if (!r.ok) { box.append(el('p', { class: 'error', text: r.body.error || 'The run is gone.' })); return; }
  if (!r.body.report) { box.append(el('p', { class: 'help', text: 'The run is still in progress.' })); return; }
  $('stop').hidden = true;
  const report = r.body.report;
  // The phase list says what the stored report says, whether the run was followed live or
  // reopened from "Recent runs" (live counts are not kept, and a finding can be replaced).
  for (const p of PHASES) {
    const assessed = report.servers.some((s) => (s.categories.find((x) => x.phase === p) || {}).assessed);
    setPhase(p, 'done', `${assessed ? 'done' : 'not assessed'}: ${countText(phaseCounts(report.servers, p))}`);
  }
  report.servers.forEach((server, i) => {
    box.append(renderServer(id, i, server, report, (r.body.endings || [])[i]));
  });
}

const ENDED = { unreachable: 'Unreachable', blocked: 'Blocked', stopped: 'Stopped' };

// How a run that did not finish ended, said once: the headline, the causes outermost first,
// and what the program wrote. Findings that only repeat it point here instead.
function renderEnding(ending, index) {
  const box = el('section', { class: `ending ${ending.state}`, id: `ending-${index}`, 'aria-labelledby': `ending-h-${index}` },
    el('h3', { id: `ending-h-${index}` }, el('span', { class: `badge ${ending.state === 'stopped' ? 'warn' : 'fail'}`, text: ending.state }),
      el('span', { class: 'headline', text: ending.headline || ENDED[ending.state] || ending.state })));
  if (ending.chain.length) {
    box.append(el('p', { class: 'help', text: ending.chain.length > 1 ? 'What went wrong, each line caused by the next:' : 'What went wrong:' }));
    const ol = el('ol', { class: 'chain' });
    for (const step of ending.chain) ol.append(el('li', { text: step }));
    box.append(ol);
  }
  if (ending.output !== null && ending.output !== undefined) {
    box.append(el('p', { class: 'help', text: 'What the program wrote to stderr:' }),
      el('pre', { class: 'output', tabindex: '0', text: ending.output || '(nothing)' }));
  }
  if (ending.state !== 'stopped') {
    box.append(el('p', { class: 'help', text: 'The later phases were not run: their checks are listed below as skipped (blocked).' }));
  }
  return box;
}

function statusText(f) {
  return f.status + (f.severity && f.status === 'fail' ? ` (${f.severity})` : '');
}

// The wire a finding was judged on: its era, and the revision for a finding of the revision
// matrix ("legacy 2025-06-18").
function wire(f) {
  return (f.era || '') + (f.revision ? ` ${f.revision}` : '');
}

// The findings of one check (and subject) on a dual-era server are one card with a row per
// wire (each era, and each revision the revision matrix judged); elsewhere each finding is its
// own card. Cards keep the findings' order.
function cards(findings) {
  const byKey = new Map();
  const all = [];
  for (const f of findings) {
    const key = `${f.id}\u0000${f.subject || ''}`;
    if (!byKey.has(key)) byKey.set(key, []);
    // A second finding on the same wire is a card of its own: a card's rows are its wires.
    let card = byKey.get(key).find((c) => f.era && c.every((g) => g.era && wire(g) !== wire(f)));
    if (!card) { card = []; byKey.get(key).push(card); all.push(card); }
    card.push(f);
  }
  return all.map((fs) => ({
    findings: fs,
    status: fs.reduce((w, f) => (STATUS_ORDER[f.status] < STATUS_ORDER[w] ? f.status : w), 'pass'),
  })).sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status]);
}

// Passes and skips fold under a closed summary that says how many there are.
const FOLDED = { pass: 'passed', skip: 'skipped' };

function renderServer(id, index, server, report, ending) {
  const wrap = el('div', { class: 'server-report' });
  const said = new Set(((ending && ending.state !== 'finished' && ending.repeats) || []).map((t) => t.trim().toLowerCase()));
  const repeats = (text) => !!text && said.has(text.trim().toLowerCase());
  wrap.append(el('h3', { class: 'visually-hidden', text: `Report for ${server.name}` }));
  if (ending && ending.state !== 'finished') wrap.append(renderEnding(ending, index));
  const score = server.score;
  const overall = el('div', { class: 'overall' },
    el('span', { class: 'big', id: 'score', text: score === null ? '—' : String(score) }),
    el('span', { class: 'of', text: score === null ? 'not scored' : 'of 100 overall' }));
  if (score !== null) overall.append(bar(score, `Overall score ${score} of 100`));
  const gate = report.gate;
  overall.append(el('p', { class: 'gate ' + (gate.passed ? 'passed' : 'failed'), text: gate.passed ? 'Gate passed' : 'Gate failed' }));
  let blockedReason = false;
  for (const reason of gate.reasons || []) {
    if ([...said].some((t) => reason.toLowerCase().includes(t))) { blockedReason = true; continue; }
    overall.append(el('p', { class: 'help', text: reason }));
  }
  if (blockedReason) overall.append(el('p', { class: 'help', text: `${server.name}: the run was ${ending.state} (the reason is above)` }));
  const cats = el('ul', { class: 'categories', 'aria-label': 'Category scores' });
  for (const c of server.categories) {
    const assessed = c.assessed && c.score !== null;
    cats.append(el('li', {},
      el('span', { text: c.phase }),
      assessed ? bar(c.score, `${c.phase} ${c.score} of 100`) : el('span', { class: 'na', text: '' }),
      el('span', { class: assessed ? 'num' : 'num na', text: assessed ? `${c.score} / 100` : 'not assessed' })));
  }
  wrap.append(el('div', { class: 'summary' }, overall, cats));

  const dl = el('div', { class: 'downloads' }, el('h3', { text: 'Download' }));
  for (const [fmt, label] of DOWNLOADS) {
    dl.append(el('a', { class: 'button secondary', href: `/api/runs/${id}/download/${fmt}`, download: '', 'data-format': fmt, text: label }));
  }
  wrap.append(dl);

  wrap.append(el('h3', { text: 'Findings' }));
  const ctx = { id, index, repeats, endingId: `ending-${index}` };
  for (const p of PHASES) {
    const findings = server.findings.filter((f) => f.phase === p);
    if (!findings.length) continue;
    const counts = {};
    for (const f of findings) counts[f.status] = (counts[f.status] || 0) + 1;
    const cat = server.categories.find((x) => x.phase === p);
    const notable = findings.some((f) => f.status === 'fail' || f.status === 'warn');
    const group = el('details', { class: 'phase-group', open: notable, id: `group-${p}` },
      el('summary', {}, el('span', { text: p }),
        el('span', { class: 'counts', text: `${cat && cat.assessed && cat.score !== null ? cat.score + '/100 · ' : ''}${countText(counts)}` })));
    const folds = {};
    for (const card of cards(findings)) {
      const node = renderCard(ctx, card);
      const fold = FOLDED[card.status];
      if (!fold) { group.append(node); continue; }
      if (!folds[card.status]) folds[card.status] = { cards: [], rows: 0 };
      folds[card.status].cards.push(node);
      folds[card.status].rows += card.findings.length;
    }
    for (const status of ['skip', 'pass']) {
      const f = folds[status];
      if (!f) continue;
      const checks = f.cards.length === f.rows ? '' : ` · ${f.cards.length} checks`;
      group.append(el('details', { class: `fold ${status}-fold`, 'data-status': status },
        el('summary', {}, el('span', { class: 'fold-count', text: `${f.rows} ${FOLDED[status]}` }), checks), ...f.cards));
    }
    wrap.append(group);
  }
  return wrap;
}

function renderCard(ctx, card) {
  const first = card.findings[0];
  const dual = card.findings.length > 1;
  const art = el('article', { class: `finding ${card.status}${dual ? ' dual' : ''}`, 'data-id': first.id, 'data-subject': first.subject || '' },
    el('h4', {}, el('span', { class: `badge ${card.status}`, text: dual ? card.status : statusText(first) }),
      el('span', { text: first.title }), el('code', { class: 'id', text: first.id })));
  if (!dual) {
    art.dataset.finding = first.status;
    findingBody(ctx, art, first, true);
    return art;
  }
  if (first.subject) art.append(el('div', { class: 'meta' }, el('span', { text: `subject: ${first.subject}` })));
  let advice = null;
  for (const f of card.findings) {
    const row = el('div', { class: `era-row ${f.status}`, 'data-finding': f.status, 'data-era': f.era || '', 'data-revision': f.revision || '' },
      el('div', { class: 'era-head' }, el('span', { class: 'era', text: f.era ? wire(f) : 'era not known' }),
        el('span', { class: `badge ${f.status}`, text: statusText(f) })));
    findingBody(ctx, row, f, false);
    if (f.advice && f.status !== 'pass' && !advice) advice = f.advice;
    art.append(row);
  }
  // The advice is the check's, the same on both eras: said once, under the rows.
  if (advice) art.append(el('p', { class: 'advice', text: advice }));
  return art;
}

function findingBody(ctx, node, f, single) {
  if (f.detail && ctx.repeats(f.detail)) {
    // The run's reason for stopping is at the top of the report, once.
    if (f.status !== 'skip') {
      node.append(el('p', { class: 'said-above' }, 'The error is shown once, ',
        el('a', { href: `#${ctx.endingId}`, text: 'at the top of this report' }), '.'));
    }
  } else if (f.detail) node.append(el('p', { text: f.detail }));
  if (single && f.advice && f.status !== 'pass') node.append(el('p', { class: 'advice', text: f.advice }));
  const meta = el('div', { class: 'meta' });
  if (single && f.subject) meta.append(el('span', { text: `subject: ${f.subject}` }));
  if (single && f.era) meta.append(el('span', { text: `era: ${wire(f)}` }));
  if (f.skip_reason) meta.append(el('span', { text: `skipped: ${f.skip_reason}` }));
  if (f.spec && /^https?:\/\//.test(f.spec)) meta.append(el('a', { href: f.spec, rel: 'noreferrer noopener', target: '_blank', text: 'spec' }));
  if (meta.childNodes.length) node.append(meta);
  if (f.evidence && f.evidence.length) node.append(...evidence(ctx, f));
}

function evidence(ctx, f) {
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
      const r = await api(`/api/runs/${ctx.id}/exchanges?server=${ctx.index}&seq=${f.evidence.join(',')}`);
      panel.textContent = '';
      if (!r.ok) { panel.append(el('p', { class: 'error', text: r.body.error })); return; }
      if (!r.body.entries.length) panel.append(el('p', { class: 'help', text: 'These exchanges were not kept.' }));
      const about = aboutHeaders(f);
      const names = new Set();
      const shown = r.body.entries.map((entry) => renderExchange(entry, about, names));
      if (names.size) {
        panel.append(el('p', { class: 'help' }, 'Highlighted: the header lines this finding is about (',
          el('mark', { class: 'about', text: [...names].join(', ') }), ').'));
      }
      panel.append(...shown);
    }
  });
  return [button, panel];
}

function escapeRegExp(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

// Which header lines of an exchange a finding is about, from what the finding itself carries:
// its subject when that is a header name, a `Name: value` it quotes, or a header name it
// writes out. A one-word name counts only when written as a header is (`Origin`, `Host`),
// not as an ordinary word ("accept", "date").
function aboutHeaders(f) {
  const text = f.detail || '';
  const subject = (f.subject || '').toLowerCase();
  const cache = new Map();
  return (name, value) => {
    const n = name.toLowerCase();
    if (n === subject) return true;
    if (value && text.toLowerCase().includes(`${n}: ${value}`.toLowerCase())) return true;
    if (!cache.has(n)) {
      const bound = (re, flags) => new RegExp(`(^|[^A-Za-z0-9-])${re}(?![A-Za-z0-9-])`, flags);
      const written = n.includes('-')
        ? bound(escapeRegExp(n), 'i').test(text)
        : bound(escapeRegExp(n[0].toUpperCase() + n.slice(1)), '').test(text) || bound(`\`${escapeRegExp(n)}\``, 'i').test(text);
      cache.set(n, written);
    }
    return cache.get(n);
  };
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

// Header lines as text, each line the finding is about inside <mark class="about">.
function headerNodes(headers, about, names) {
  const nodes = [];
  (headers || []).forEach((h, i) => {
    if (i) nodes.push('\n');
    const line = `${h.name}: ${h.value}`;
    if (about && about(h.name, h.value)) {
      nodes.push(el('mark', { class: 'about', text: line }));
      names.add(h.name);
    } else nodes.push(line);
  });
  return nodes;
}

function block(parts) {
  const nodes = [];
  for (const part of parts) {
    if (!part || !part.length) continue;
    if (nodes.length) nodes.push('\n\n');
    nodes.push(...(Array.isArray(part) ? part : [part]));
  }
  return nodes.length ? nodes : ['(empty)'];
}

function renderExchange(e, about, names) {
  const req = e.request;
  const res = e.response;
  const stdio = req.httpVersion === 'stdio';
  const status = stdio ? '' : ` → ${res.status || 'no response'}${res.statusText ? ' ' + res.statusText : ''}`;
  const title = `#${e._seq} ${req.method} ${req.url}${status} · ${Math.round(e.time * 10) / 10} ms`;
  const reqNodes = block([headerNodes(req.headers, about, names), req.postData ? pretty(req.postData.text) : '']);
  const resNodes = block([headerNodes(res.headers, about, names), pretty(res.content && res.content.text),
    e._error ? `error: ${e._error}` : '', e._truncated ? '(the body was cut at the size limit)' : '']);
  return el('section', { class: 'exchange', 'aria-label': `Exchange ${e._seq}` },
    el('h5', { text: title }),
    el('div', { class: 'cols' },
      el('div', { class: 'col' }, el('h6', { text: 'Request' }), el('pre', { tabindex: '0' }, ...reqNodes)),
      el('div', { class: 'col' }, el('h6', { text: 'Response' }), el('pre', { tabindex: '0' }, ...resNodes))),
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
      el('span', { class: `state ${run.state}`, text: run.state }),
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
