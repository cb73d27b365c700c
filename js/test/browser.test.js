// The package in a real browser: headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core, no downloaded browser) loads a page from a node:http server that serves
// only the files `npm pack` ships (package.json "files") plus the page and a module worker.
// The page imports index.js, which fetches the .wasm; the page and the worker each run a
// script whose two async tools are composed with `parallel`, and report the Outcome and
// whether the two handlers overlapped. .ci/js.sh installs chromium and playwright-core.

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import test from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const CHROMIUM = "/usr/bin/chromium";
const playwright = await import("playwright-core").catch(() => null);
const required = process.env.PTC_JS_REQUIRE_ALL !== undefined; // set by .ci/js.sh

// The script the page and the worker run: two tools that answer after a timer, in parallel.
const runner = `
import { run } from "/index.js";
export async function scenario(where) {
  let active = 0, peak = 0;
  const slow = (name, value) => ({
    name,
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    async execute({ n }) {
      active += 1; peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 50));
      active -= 1;
      return { where, value: value * n };
    },
  });
  const outcome = await run(
    "(mapcar (lambda (r) (plist-get r :value)) (parallel (Double :n 3) (Triple :n 5)))",
    [slow("Double", 2), slow("Triple", 3)],
    { id: where, limits: { parallelism: 2 } },
  );
  return { outcome, peak };
}`;
const page = `<!doctype html><meta charset="utf-8"><title>ptc</title><script type="module">
import { scenario } from "/runner.js";
const worker = new Worker("/worker.js", { type: "module" });
const inWorker = new Promise((resolve, reject) => { worker.onmessage = (e) => resolve(e.data); worker.onerror = (e) => reject(new Error(e.message)); });
Promise.all([scenario("page"), inWorker]).then(
  (results) => { window.results = results; },
  (error) => { window.results = { error: String(error && error.stack || error) }; },
);
</script>`;
const worker = `import { scenario } from "/runner.js"; scenario("worker").then((r) => postMessage(r), (e) => postMessage({ error: String(e.stack || e) }));`;

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json", ".md": "text/markdown" };

/** Serves the packed files from js/ and the three test documents; everything else is 404. */
async function serve() {
  const shipped = new Set(JSON.parse(await readFile(join(root, "package.json"), "utf8")).files.map((f) => `/${f}`));
  const made = { "/": page, "/runner.js": runner, "/worker.js": worker };
  const server = createServer(async (req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    const body = made[path] ?? (shipped.has(path) ? await readFile(join(root, path)) : null);
    if (body === null) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "text/html" }).end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

test("the ES module and its .wasm in a page and a module worker (headless Chromium)", {
  skip: !required && (playwright === null ? "playwright-core is not installed (.ci/js.sh installs it)" : false),
  timeout: 120_000,
}, async () => {
  assert.ok(playwright, "playwright-core is required (PTC_JS_REQUIRE_ALL)");
  const server = await serve();
  const profile = await mkdtemp(join(tmpdir(), "ptc-chromium-"));
  const args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"];
  // A persistent context is how playwright takes a fresh --user-data-dir of our own.
  const browser = await playwright.chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args });
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    await tab.goto(`http://127.0.0.1:${server.address().port}/`);
    await tab.waitForFunction(() => window.results !== undefined, null, { timeout: 60_000 });
    const results = await tab.evaluate(() => window.results);
    assert.deepEqual(errors, []);
    assert.ok(Array.isArray(results), JSON.stringify(results));
    for (const [where, { outcome, peak }] of [["page", results[0]], ["worker", results[1]]]) {
      assert.equal(outcome.outcome, "completed", `${where}: ${outcome.text}`);
      assert.equal(outcome.text, "(6 15)", where);
      assert.deepEqual(outcome.value, [6, 15], where);
      assert.deepEqual(outcome.calls.map((c) => [c.id, c.tool, c.status, c.batch]),
        [[`${where}/1`, "Double", "success", 1], [`${where}/2`, "Triple", "success", 1]], where);
      assert.equal(peak, 2, `${where}: the two handlers overlapped`);
    }
  } finally {
    await browser.close();
    server.close();
    await rm(profile, { recursive: true, force: true });
  }
});
