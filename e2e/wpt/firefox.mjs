// Drives headless Firefox over WebDriver BiDi with puppeteer-core for
// veil-wpt's runner (firefox.go), which starts it as
//
//   node firefox.mjs FIREFOX
//
// and speaks JSON lines: this script writes {"ready":VERSION} once
// Firefox runs in a fresh temporary profile, then reads {"id":N,"url":…}
// lines and answers each with {"id":N,"ok":true} once the page's
// DOMContentLoaded has fired, or {"id":N,"error":…}. A navigation that
// has not got that far when the next one comes is cut short by it, and
// answers with an error the runner no longer waits for. When its input
// ends it closes Firefox and exits.
//
// package.json pins puppeteer-core 24.43.1: the newest release that runs
// on Node 20 (25.x needs Node 22.12 or newer), which speaks WebDriver
// BiDi to Firefox ESR 153. puppeteer makes the profile in a temporary
// directory and removes it when Firefox closes.
import readline from 'node:readline';
import puppeteer from 'puppeteer-core';

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const executablePath = process.argv[2];
if (!executablePath) {
  send({ error: 'usage: node firefox.mjs FIREFOX' });
  process.exit(2);
}

let browser;
try {
  browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath,
    headless: true,
    // Keep Firefox off the network: it talks to the test server only.
    extraPrefsFirefox: {
      'app.update.enabled': false,
      'browser.safebrowsing.malware.enabled': false,
      'browser.safebrowsing.phishing.enabled': false,
      'network.captive-portal-service.enabled': false,
      'network.connectivity-service.enabled': false,
    },
  });
} catch (e) {
  send({ error: `launching ${executablePath}: ${e.message}` });
  process.exit(1);
}
const [first] = await browser.pages();
const page = first ?? (await browser.newPage());
page.on('dialog', (d) => d.dismiss().catch(() => {}));
send({ ready: await browser.version() });

for await (const line of readline.createInterface({ input: process.stdin })) {
  let id, url;
  try {
    ({ id, url } = JSON.parse(line));
  } catch (e) {
    send({ error: `reading ${JSON.stringify(line)}: ${e.message}` });
    continue;
  }
  // Not awaited: a page that never loads must not hold up the next.
  page.goto(url, { waitUntil: 'domcontentloaded', timeout: 0 }).then(
    () => send({ id, ok: true }),
    (e) => send({ id, error: `opening ${url}: ${e.message}` }),
  );
}
await browser.close();
