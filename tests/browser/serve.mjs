// The `scout serve` page in a real headless Chromium (Debian's), driven by playwright-core.
// tests/integration/serve.rs starts `scout serve` and the demo server, runs this script and
// checks what it prints: one JSON line with what the page showed.
//
// Environment: SCOUT_URL (the printed URL with the token), DEMO_URL (the MCP endpoint to
// check), OUT_DIR (where the SARIF download and the screenshot go), PW_DIR (the folder whose
// node_modules holds playwright-core), CHROMIUM (the browser binary).
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

  // A check of the demo server: live phases, then the score.
  await page.fill('#url', demoUrl);
  await page.click('#start');
  await page.waitForSelector('#phases li.running, #phases li.done', { timeout: 60_000 });
  await page.waitForSelector('#score', { timeout: 120_000 });
  result.score = (await page.textContent('#score')).trim();
  result.phases_done = await page.$$eval('#phases li.done', (l) => l.length);
  result.categories = await page.$$eval('.categories li', (l) => l.length);
  result.live = await page.textContent('#live');

  // Layout: with every group open, each finding (and its badge) lies inside its own group,
  // on the page, and clear of the page header; each group shows as many findings as its
  // counts say. (The skip link's class once also styled skipped findings, which were then
  // moved off their groups and over the header.)
  result.layout = await page.evaluate(() => {
    const groups = [...document.querySelectorAll('details.phase-group')];
    const wasOpen = groups.map((d) => d.open);
    for (const d of groups) d.open = true;
    const header = document.querySelector('header.top').getBoundingClientRect();
    const inside = (r, box) => r.left >= box.left - 1 && r.right <= box.right + 1
      && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const out = { checked: 0, skipped_checked: 0, misplaced: [], miscounted: [] };
    for (const d of groups) {
      const box = d.getBoundingClientRect();
      const cards = [...d.querySelectorAll('.finding')];
      const counted = (d.querySelector('.counts')?.textContent.match(/\d+ (pass|fail|warn|info|skip)/g) || [])
        .reduce((n, t) => n + parseInt(t, 10), 0);
      const shown = cards.filter((c) => c.getClientRects().length > 0).length;
      if (counted !== shown) out.miscounted.push(`${d.id}: counts say ${counted}, ${shown} shown`);
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
    groups.forEach((d, i) => { d.open = wasOpen[i]; });
    return out;
  });

  // A finding's evidence: the exchanges it cites, request and response.
  // A failing finding's if there is one (its group is open), else any finding's.
  let toggle = page.locator('.finding.fail button.evidence-toggle').first();
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

  // The screenshot for a reviewer: the finished run, with only the group whose evidence is
  // open unfolded (every group open makes a page many screens long).
  await page.evaluate((id) => {
    for (const d of document.querySelectorAll('details.phase-group')) {
      if (!d.querySelector(`#${id}`)) d.open = false;
    }
  }, await toggle.getAttribute('aria-controls'));
  result.screenshot = path.join(outDir, 'serve-report.png');
  await page.locator('#run').screenshot({ path: result.screenshot });
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(result) + '\n');
