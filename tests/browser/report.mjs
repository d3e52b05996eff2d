// Opens a qip-memory report in headless chromium (Debian's, driven over the DevTools protocol
// by puppeteer-core) and prints what a person would see, as one JSON object on stdout, for
// tests/browser.rs to check against the report's data:
//
//   node report.mjs REPORT.html SCREENSHOT.png
//
// Printed: console errors and page errors; the document's title once drawn; the time from
// navigation to the end of drawing;
// per tile canvas, how many pixels differ from the tile background; the hottest-bytes and
// function tables as text; the tooltip text after hovering the hottest byte, and the
// tooltip's state when the pointer has left.
import puppeteer from "puppeteer-core";
import { pathToFileURL } from "node:url";

const [report, screenshot] = process.argv.slice(2);
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const browser = await puppeteer.launch({
  executablePath,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const out = { console_errors: [], page_errors: [] };
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1100 });
  page.on("console", m => { if (m.type() === "error") out.console_errors.push(m.text()); });
  page.on("pageerror", e => out.page_errors.push(String(e)));
  // Any request other than the file itself would be a resource from elsewhere.
  const requests = [];
  page.on("request", r => requests.push(r.url()));
  const t0 = Date.now();
  await page.goto(pathToFileURL(report).href, { waitUntil: "load" });
  await page.waitForSelector("#tiles canvas");
  out.load_and_draw_ms = Date.now() - t0;
  out.title = await page.title();
  out.requests = requests;

  out.tiles = await page.$$eval("#tiles canvas", cs => cs.map(c => {
    const g = c.getContext("2d"), d = g.getImageData(0, 0, c.width, c.height).data;
    let drawn = 0;
    // The tile background is rgb(11, 12, 15); anything else was drawn.
    for (let i = 0; i < d.length; i += 4) if (d[i] !== 11 || d[i + 1] !== 12 || d[i + 2] !== 15) drawn++;
    return { page: Number(c.dataset.page), width: c.width, height: c.height, drawn };
  }));
  out.time = await page.$$eval("#time canvas", cs => cs.map(c => {
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let reads = 0, writes = 0, line = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 2] > d[i] + 60) reads++;          // blue: reads
      else if (d[i] > d[i + 2] + 60) writes++;    // orange: writes
      else if (d[i + 1] > d[i] + 40) line++;      // green: the stack curve
    }
    return { id: c.id, width: c.width, height: c.height, reads, writes, line };
  }));
  const rows = sel => page.$$eval(sel + " tr", trs => trs.map(tr => [...tr.children].map(td => td.textContent)));
  out.hottest = await rows("#hottest");
  out.functions = await rows("#function-table");
  out.pages = await rows("#page-table");

  // Hover the hottest byte: its cell at one byte per cell (256 cells across the canvas).
  const data = await page.evaluate(() => JSON.parse(document.getElementById("qip-memory-data").textContent));
  const hot = data.hottest[0];
  const tile = data.tiles.findIndex(t => t.page === Math.floor(hot.address / 65536));
  const canvas = (await page.$$("#tiles canvas"))[tile];
  // The pointer only reaches what is in the viewport.
  await canvas.evaluate(c => c.scrollIntoView({ block: "center" }));
  const box = await canvas.boundingBox();
  const offset = hot.address % 65536, cell = box.width / 256;
  await page.mouse.move(box.x + (offset % 256 + 0.5) * cell, box.y + (Math.floor(offset / 256) + 0.5) * cell);
  out.tooltip = await page.$eval("#tip", t => ({ shown: t.style.display === "block", text: t.textContent }));
  await page.mouse.move(1, 1);
  out.tooltip_after_leaving = await page.$eval("#tip", t => t.style.display);
  await page.screenshot({ path: screenshot });
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
