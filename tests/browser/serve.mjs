// The `scout serve` page in a real headless Chromium (Debian's), driven by playwright-core.
// tests/integration/serve.rs starts `scout serve` and the demo server, runs this script and
// checks what it prints: one JSON line with what the page showed.
//
// Environment: SCOUT_URL (the printed URL with the token), DEMO_URL (the MCP endpoint to
// check), OUT_DIR (where the SARIF download and the screenshot go), PW_DIR (the folder whose
// node_modules holds playwright-core), CHROMIUM (the browser binary). Optional: DEAD_URL (a
// URL nothing listens on: the unreachable run), STDIO_SCOUT_URL (a `scout serve
// --allow-stdio`, for a program that exits at once), DOC_SHOT (where scripts/page-png.sh
// wants the README's picture).
import { createRequire } from 'node:module';
import path from 'node:path';

const need = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const scoutUrl = need('SCOUT_URL');
const demoUrl = need('DEMO_URL');
const outDir = need('OUT_DIR');
const require = createRequire(path.join(need('PW_DIR'), 'package.json'));
const { chromium } = require('playwright-core');

const base = new URL(scoutUrl).origin;
const result = {};
const deadUrl = process.env.DEAD_URL;
const stdioScoutUrl = process.env.STDIO_SCOUT_URL;

// A run that did not finish: the page's banner, how often its last cause is written on the
// whole page (every fold open), and how "Recent runs" labels the run.
async function badDay(page, target) {
  try {
    await page.waitForSelector('#report .ending', { timeout: 60_000 });
  } catch (e) {
    // Say what the page showed instead, so that a failure can be read from the log alone.
    const shown = await page.evaluate(() => ['#form-error', '#live', '#report', '#recent']
      .map((s) => `${s}: ${(document.querySelector(s)?.innerText ?? '(none)').slice(0, 600)}`)
      .join('\n'));
    throw new Error(`no ending banner for ${target}: ${e.message}\n${shown}`);
  }
  const out = await page.evaluate(() => {
    const e = document.querySelector('#report .ending');
    return {
      state: e.className.replace('ending', '').trim(),
      heading: e.querySelector('h3').textContent.trim(),
      headline: e.querySelector('.headline').textContent.trim(),
      chain: [...e.querySelectorAll('.chain li')].map((li) => li.textContent),
      output: e.querySelector('pre.output')?.textContent ?? null,
    };
  });
  const last = out.chain[out.chain.length - 1] || out.headline;
  out.last_cause = last;
  out.last_cause_written = await page.evaluate((t) => {
    const all = [...document.querySelectorAll('details')];
    const was = all.map((d) => d.open);
    for (const d of all) d.open = true;
    const n = document.body.innerText.split(t).length - 1;
    all.forEach((d, i) => { d.open = was[i]; });
    return n;
  }, last);
  await page.waitForFunction((t) => [...document.querySelectorAll('#recent li')]
    .some((li) => li.textContent.includes(t) && !li.textContent.includes('running')), target);
  out.recent = await page.$$eval('#recent li', (l, t) => l.filter((x) => x.textContent.includes(t))
    .map((x) => x.querySelector('.state').textContent), target);
  return out;
}

// The phase list as counts per phase ({discovery: {pass: 1, …}, …}); a phase with no
// finding (expectations, when the config has none) is left out, as it is of the report.
const phaseCounts = (page) => page.$$eval('#phases li', (l) => Object.fromEntries(l.map((li) => {
  const c = {};
  for (const m of li.querySelector('.state').textContent.matchAll(/(\d+) (pass|fail|warn|info|skip)/g)) c[m[2]] = Number(m[1]);
  return [li.id.replace('phase-', ''), c];
}).filter(([, c]) => Object.keys(c).length > 0)));
// Every wait is bounded; the Rust test also bounds the whole script.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  // Without the background-networking flags Chromium stalls on a closed network.
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  timeout: 60_000,
});
try {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  // Anything the page's CSP refused (an inline script, a stray image) shows up here.
  result.csp_violations = [];
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) result.csp_violations.push(m.text()); });

  // Without the token: 401, and the page is not shown.
  const bare = await page.goto(`${base}/`);
  result.without_token = bare.status();

  // With the token: the cookie is set and the token leaves the address bar.
  const loaded = await page.goto(scoutUrl);
  result.with_token = loaded.status();
  result.address_after_load = page.url();
  const cookies = await context.cookies(base);
  result.cookie = cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite }));
  await page.waitForFunction(() => document.getElementById('flags').textContent.includes('started with'));
  result.flags = await page.textContent('#flags');
  result.command_field_hidden = await page.isHidden('#command-field');
  result.manifest_field_hidden = await page.isHidden('#manifest-field');
  // Keyboard: the first Tab reaches the skip link, the next ones the form's labelled fields.
  await page.keyboard.press('Tab');
  result.first_tab = await page.evaluate(() => document.activeElement.textContent.trim());
  await page.keyboard.press('Tab');
  result.second_tab = await page.evaluate(() => document.activeElement.labels?.[0]?.textContent ?? document.activeElement.id);

  // A command typed where the URL goes is refused, in the page.
  await page.fill('#url', 'python3 server.py');
  await page.click('#start');
  await page.waitForFunction(() => document.getElementById('form-error').textContent.length > 0);
  result.command_refusal = await page.textContent('#form-error');
  // And a command sent by a script from the page itself is refused as well.
  result.command_api_status = await page.evaluate(async () => {
    const r = await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ command: ['sh', '-c', 'id'] }) });
    return r.status;
  });

  // The favicon: the page's own SVG, within its CSP.
  result.favicon = await page.evaluate(async () => {
    const link = document.querySelector('link[rel="icon"]');
    const r = await fetch(link.getAttribute('href'));
    return { href: link.getAttribute('href'), status: r.status, type: r.headers.get('content-type'), starts: (await r.text()).slice(0, 4) };
  });

  // A URL nothing listens on: unreachable, said once.
  if (deadUrl) {
    await page.fill('#url', deadUrl);
    await page.click('#start');
    result.unreachable = await badDay(page, deadUrl);
  }

  // A check of the demo server: live phases, then the score.
  await page.fill('#url', demoUrl);
  await page.click('#start');
  await page.waitForSelector('#phases li.running, #phases li.done', { timeout: 60_000 });
  await page.waitForSelector('#score', { timeout: 120_000 });
  result.score = (await page.textContent('#score')).trim();
  result.phases_done = await page.$$eval('#phases li.done', (l) => l.length);
  result.categories = await page.$$eval('.categories li', (l) => l.length);
  result.live = await page.textContent('#live');
  result.phases_live = await phaseCounts(page);
  result.run_id = await page.evaluate(async () => (await (await fetch('/api/runs')).json()).runs[0].id);
  // What the stored report counts per phase, read from the API (not from the page).
  result.report_counts = await page.evaluate(async (id) => {
    const r = await (await fetch(`/api/runs/${id}`)).json();
    const c = {};
    for (const s of r.report.servers) {
      for (const f of s.findings) {
        c[f.phase] = c[f.phase] || {};
        c[f.phase][f.status] = (c[f.phase][f.status] || 0) + 1;
      }
    }
    return c;
  }, result.run_id);

  // Passes and skips are folded by default; one check on both eras is one card.
  result.folds = await page.$$eval('details.fold', (l) => l.map((d) => ({ status: d.dataset.status, open: d.open })));
  result.cards = await page.$$eval('.finding', (l) => {
    const keys = l.map((c) => `${c.dataset.id} ${c.dataset.subject}`);
    const dual = l.filter((c) => c.classList.contains('dual'));
    return {
      duplicates: keys.filter((k, i) => keys.indexOf(k) !== i),
      dual: dual.length,
      // The eras of each card (the revision matrix's rows, which name a revision, aside).
      dual_eras: [...new Set(dual.map((c) => [...c.querySelectorAll('.era-row')].filter((r) => !r.dataset.revision).map((r) => r.dataset.era).join('+')))],
      parse_error: l.filter((c) => c.dataset.id === 'protocol.parse_error')
        .map((c) => [...c.querySelectorAll('.era-row')].map((r) => r.dataset.era)),
    };
  });

  // Layout: with every group open, each finding (and its badge) lies inside its own group,
  // on the page, and clear of the page header; each group shows as many findings as its
  // counts say. (The skip link's class once also styled skipped findings, which were then
  // moved off their groups and over the header.)
  result.layout = await page.evaluate(() => {
    const all = [...document.querySelectorAll('details.phase-group, details.fold')];
    const wasOpen = all.map((d) => d.open);
    for (const d of all) d.open = true;
    const groups = [...document.querySelectorAll('details.phase-group')];
    const header = document.querySelector('header.top').getBoundingClientRect();
    const inside = (r, box) => r.left >= box.left - 1 && r.right <= box.right + 1
      && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const visible = (e) => e.getClientRects().length > 0;
    const out = { checked: 0, skipped_checked: 0, folds_checked: 0, misplaced: [], miscounted: [] };
    for (const d of groups) {
      const box = d.getBoundingClientRect();
      const cards = [...d.querySelectorAll('.finding')];
      const counted = (d.querySelector(':scope > summary .counts')?.textContent.match(/\d+ (pass|fail|warn|info|skip)/g) || [])
        .reduce((n, t) => n + parseInt(t, 10), 0);
      // Every finding is one row: a card of its own, or one era's row of a two-era card.
      const shown = [...d.querySelectorAll('[data-finding]')].filter(visible).length;
      if (counted !== shown) out.miscounted.push(`${d.id}: counts say ${counted}, ${shown} shown`);
      for (const f of d.querySelectorAll(':scope > details.fold')) {
        out.folds_checked += 1;
        const said = parseInt(f.querySelector('summary').textContent, 10);
        const rows = [...f.querySelectorAll('[data-finding]')].filter(visible);
        const wrong = rows.filter((r) => r.closest('.finding').classList[1] !== f.dataset.status);
        if (said !== rows.length || wrong.length) out.miscounted.push(`${d.id} ${f.dataset.status}: says ${said}, ${rows.length} shown, ${wrong.length} of another status`);
      }
      for (const c of cards) {
        out.checked += 1;
        if (c.classList.contains('skip')) out.skipped_checked += 1;
        for (const part of [c, c.querySelector('.badge')].filter(Boolean)) {
          const r = part.getBoundingClientRect();
          const doc = { left: 0, top: -1e9, right: document.documentElement.scrollWidth, bottom: 1e9 };
          if (!inside(r, box) || !inside(r, doc) || overlaps(r, header)) {
            out.misplaced.push(`${c.dataset.id} (${part.className})`);
          }
        }
      }
    }
    all.forEach((d, i) => { d.open = wasOpen[i]; });
    return out;
  });

  // A finding's evidence: the exchanges it cites, request and response.
  // The demo's Origin failure (whose evidence marks the header its detail names), else a
  // failing finding's if there is one (its group is open), else any finding's.
  let toggle = page.locator('.finding.fail[data-id="security.origin"] button.evidence-toggle').first();
  if (await toggle.count() === 0) toggle = page.locator('.finding.fail button.evidence-toggle').first();
  if (await toggle.count() === 0) toggle = page.locator('.finding.warn button.evidence-toggle').first();
  if (await toggle.count() === 0) {
    const group = page.locator('details.phase-group', { has: page.locator('button.evidence-toggle') }).first();
    await group.locator('summary').click();
    toggle = group.locator('button.evidence-toggle').first();
  }
  result.evidence_finding = await toggle.evaluate((b) => b.closest('.finding').dataset.id);
  result.evidence_button = (await toggle.textContent()).trim();
  await toggle.click();
  const panel = page.locator(`#${await toggle.getAttribute('aria-controls')}`);
  await panel.locator('.exchange').first().waitFor();
  result.evidence_expanded = await toggle.getAttribute('aria-expanded');
  result.exchange_title = (await panel.locator('.exchange h5').first().textContent()).trim();
  result.exchange_text = await panel.locator('.exchange').first().textContent();
  // The header lines the finding is about are marked.
  result.about = await panel.locator('.exchange mark.about').allTextContents();
  result.evidence_detail = await toggle.evaluate((b) => (b.closest('[data-finding]').querySelector('p') || {}).textContent || '');

  // The SARIF download, saved for the validator.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('a[data-format="sarif"]'),
  ]);
  result.sarif_name = download.suggestedFilename();
  result.sarif_path = path.join(outDir, 'serve-download.sarif');
  await download.saveAs(result.sarif_path);

  // The run is listed.
  await page.waitForSelector('#recent li');
  result.recent = await page.$$eval('#recent li', (l) => l.map((x) => x.textContent));
  result.recent_demo_state = await page.$$eval('#recent li', (l, t) => l.filter((x) => x.textContent.includes(t))
    .map((x) => x.querySelector('.state').textContent), demoUrl);
  // The README's picture (scripts/page-png.sh): the top of the finished report, the first
  // failing finding's evidence open, at a size a README loads quickly.
  if (process.env.DOC_SHOT) {
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.evaluate((id) => {
      for (const d of document.querySelectorAll('details.phase-group')) {
        if (!d.querySelector(`#${id}`)) d.open = false;
      }
      document.getElementById('run').scrollIntoView({ block: 'start' });
    }, await toggle.getAttribute('aria-controls'));
    const box = await page.locator('#run').boundingBox();
    const scroll = await page.evaluate(() => window.scrollY);
    await page.screenshot({ path: process.env.DOC_SHOT, fullPage: true,
      clip: { x: box.x, y: box.y + scroll, width: box.width, height: Math.min(box.height, 1600) } });
  }

  // The screenshot for a reviewer: the finished run, with only the group whose evidence is
  // open unfolded (every group open makes a page many screens long).
  await page.evaluate((id) => {
    for (const d of document.querySelectorAll('details.phase-group')) {
      if (!d.querySelector(`#${id}`)) d.open = false;
    }
  }, await toggle.getAttribute('aria-controls'));
  result.screenshot = path.join(outDir, 'serve-report.png');
  await page.locator('#run').screenshot({ path: result.screenshot });
  // Reopening the run from "Recent runs" shows the stored report's counts per phase.
  await page.evaluate(() => { document.getElementById('report').textContent = ''; });
  await page.locator('#recent li', { hasText: demoUrl }).first().locator('button').click();
  await page.waitForSelector('#score');
  result.phases_reopened = await phaseCounts(page);

  // Dark mode: the same page reads light on dark.
  const luminance = (page) => page.evaluate(() => {
    const rgb = (c) => (c.match(/\d+(\.\d+)?/g) || []).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    const body = getComputedStyle(document.body);
    const card = document.querySelector('.panel');
    return { background: lum(rgb(body.backgroundColor)), ink: lum(rgb(body.color)),
      panel: lum(rgb(getComputedStyle(card).backgroundColor)), raw: body.backgroundColor };
  });
  result.light = await luminance(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  result.dark = await luminance(page);
  await page.emulateMedia({ colorScheme: 'light' });


  // A program that exits at once, on a scout serve that may start programs.
  if (stdioScoutUrl) {
    const stdio = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    stdio.setDefaultTimeout(30_000);
    await stdio.goto(stdioScoutUrl);
    await stdio.waitForFunction(() => !document.getElementById('command-field').hidden);
    await stdio.fill('#command', 'sh\n-c\necho boom: it broke >&2; exit 3');
    await stdio.click('#start');
    result.stdio_exits = await badDay(stdio, 'exit 3');
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(result) + '\n');
