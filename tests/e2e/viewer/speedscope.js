// node speedscope.js PROFILE OUTDIR: load PROFILE into speedscope (the npm package's own built page,
// served from 127.0.0.1 with the profile at #profileURL=, as `speedscope FILE` does it) in Debian's
// headless Chromium driven by playwright-core, and print what speedscope shows, one fact a line:
//   import WHAT              speedscope's console line naming the importer it chose
//   lane I NAME \t WEIGHT    its profile selector: each profile (a thread's lane), its total weight
//   row I TOTAL \t SELF \t NAME \t FILE   lane I's sandwich table, as shown ("1.00ms (50%)")
//   error TEXT               what it said instead of showing a profile
// OUTDIR gets speedscope-I.png (a screenshot of lane I's flame chart, time order) and
// export.speedscope.json (the file its Export button saves: the profiles as it imported them).
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [prof, outdir] = process.argv.slice(2);
const root = path.dirname(require.resolve('speedscope/dist/release/index.html'));
const chrome = process.env.CHROMIUM || '/usr/bin/chromium';

function say(...a) { process.stdout.write(a.join(' ') + '\n'); }

const srv = http.createServer((req, res) => {
	const u = decodeURIComponent(req.url.split(/[?#]/)[0]);
	const file = u === '/profile/' + path.basename(prof) ? prof : path.join(root, path.normalize(u));
	if (!file.startsWith(root) && file !== prof) { res.writeHead(403); res.end(); return; }
	fs.readFile(file, (err, data) => {
		if (err) { res.writeHead(404); res.end(); return; }
		res.writeHead(200, { 'Content-Type': file.endsWith('.html') ? 'text/html' : file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'application/octet-stream' });
		res.end(data);
	});
});

// the rows of the table whose header has a cell reading HEAD, as arrays of cell texts (and titles)
function tableRows(page, head) {
	return page.evaluate((head) => {
		const out = [];
		for (const th of document.querySelectorAll('th')) {
			if (th.textContent.trim() !== head) continue;
			// the header's table, and the tables after it in the same box (the sandwich's rows are in
			// a scrolling list beside its header)
			const box = th.closest('table').parentElement;
			for (const tr of box.querySelectorAll('tr')) {
				const td = [...tr.querySelectorAll('td')];
				if (td.length) out.push(td.map((c) => [c.textContent.trim(), c.getAttribute('title') || '']));
			}
		}
		return out;
	}, head);
}

// a click on the innermost element whose text ends with TEXT (the toolbar's buttons: an emoji, then words)
function clickText(page, text) {
	return page.evaluate((text) => {
		const all = [...document.querySelectorAll('div, span')].filter((e) => e.textContent.trim().endsWith(text));
		const el = all.find((e) => ![...e.children].some((c) => all.includes(c)));
		if (!el) throw new Error('no ' + text + ' to click');
		el.click();
	}, text);
}

async function main() {
	await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
	const port = srv.address().port;
	const browser = await chromium.launch({
		executablePath: chrome,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
			'--disable-component-update', '--disable-sync'],
	});
	try {
		const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
		page.on('console', (m) => {
			const t = m.text();
			if (t.startsWith('Importing as ')) say('import', t.slice(13));
		});
		page.on('pageerror', (e) => say('error', String(e).split('\n')[0]));
		const url = `http://127.0.0.1:${port}/index.html#profileURL=${encodeURIComponent('/profile/' + path.basename(prof))}`;
		await page.goto(url + '&view=sandwich');
		// loaded: the sandwich's header, or an error in place of the profile
		await page.waitForFunction(() => /Symbol Name|Something went wrong|error/i.test(document.body.innerText), null, { timeout: 60000 });
		const body = await page.evaluate(() => document.body.innerText);
		if (!/Symbol Name/.test(body)) { say('error', body.replace(/\s+/g, ' ').slice(0, 300)); return 1; }
		const lanes = await tableRows(page, 'Total Weight');
		const n = Math.max(lanes.length, 1);
		for (const l of lanes) say('lane', l[0][0], l[1][0] + '\t' + l[2][0]);
		for (let i = 1; i <= n; i++) {
			if (i > 1) {
				// the next profile: speedscope's own key for it
				await page.keyboard.press('n');
				await page.waitForFunction((i) => document.body.innerText.includes(`(${i}/`), i, { timeout: 10000 });
			}
			for (const r of await tableRows(page, 'Symbol Name'))
				say('row', i, r[0][0] + '\t' + r[1][0] + '\t' + r[2][0] + '\t' + r[2][1]);
		}
		// the flame chart of each lane (time order), back from the last one with 'p'
		await clickText(page, 'Time Order');
		for (let i = n; i >= 1; i--) {
			await page.waitForTimeout(300);
			await page.screenshot({ path: path.join(outdir, `speedscope-${i}.png`) });
			if (i > 1) await page.keyboard.press('p');
		}
		const [dl] = await Promise.all([page.waitForEvent('download'), clickText(page, 'Export')]);
		await dl.saveAs(path.join(outdir, 'export.speedscope.json'));
		say('export', path.join(outdir, 'export.speedscope.json'));
		return 0;
	} finally {
		await browser.close();
		srv.close();
	}
}

main().then((rc) => process.exit(rc), (e) => { say('error', String(e).split('\n')[0]); process.exit(1); });
