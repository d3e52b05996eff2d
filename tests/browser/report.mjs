// Opens a qip-memory report in headless chromium (Debian's, driven over the DevTools protocol
// by puppeteer-core) and prints what a person would see, as one JSON object on stdout, for
// tests/browser.rs (and tests/programs_profiled.rs) to check against the report's data:
//
//   node report.mjs REPORT.html SCREENSHOT.png
//
// SCREENSHOT.png is the first screen at 1,400 × 900 pixels (the README's picture);
// SCREENSHOT-full.png beside it the whole page at 1,280 pixels, after the clicks below.
//
// Printed: console errors, page errors and every request; the document's title once drawn;
// the time from navigation to the end of drawing; the widest the document gets at a 1,280
// pixel window (`scroll_width`, before and after the clicks); per heat-map tile, how many
// pixels differ from the tile background and, for a page shrunk to one line, why; the
// hot-byte labels' boxes at 1, 4, 16, 64 and 256 bytes per cell; the sentences of the first
// screen; the flame graph under the instructions metric (its roots and values, the labels it
// shows, the tooltip of its first root, a zoom and a search); the hottest-bytes, function
// and page tables as text; what clicking the top function's row and the row of the function
// with the most write instructions of its own highlights; what clicking the hottest byte's row
// marks; the tooltip text after hovering the hottest byte, and the tooltip's state when the
// pointer has left; the tooltip's boxes near the window's right and bottom edges.
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
  await page.setViewport({ width: 1400, height: 900 });
  page.on("console", m => { if (m.type() === "error") out.console_errors.push(m.text()); });
  page.on("pageerror", e => out.page_errors.push(String(e)));
  // Any request other than the file itself would be a resource from elsewhere.
  const requests = [];
  page.on("request", r => requests.push(r.url()));
  const t0 = Date.now();
  await page.goto(pathToFileURL(report).href, { waitUntil: "load" });
  await page.waitForFunction(() => window.qipReport && window.qipReport.ready);
  out.load_and_draw_ms = Date.now() - t0;
  out.title = await page.title();
  out.requests = requests;
  await page.screenshot({ path: screenshot });

  await page.setViewport({ width: 1280, height: 900 });
  const scrollWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
  out.scroll_width = [await scrollWidth()];

  const tiles = () => page.$$eval("#tiles canvas.map", cs => cs.map(c => {
    const g = c.getContext("2d"), d = g.getImageData(0, 0, c.width, c.height).data;
    let drawn = 0;
    // The tile background is rgb(11, 12, 15); anything else was drawn.
    for (let i = 0; i < d.length; i += 4) if (d[i] !== 11 || d[i + 1] !== 12 || d[i + 2] !== 15) drawn++;
    const tile = c.closest(".tile"), why = tile.querySelector(".why");
    return { page: Number(c.dataset.page), width: c.width, height: c.height, drawn, shrunk: c.dataset.shrunk === "1",
      why: why ? why.textContent : null };
  }));
  out.tiles = await tiles();
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
  out.time_facts = await page.$eval("#marks", m => m.textContent);
  out.sentences = await page.$$eval("#sentences li", ls => ls.map(l => ({ metric: l.dataset.metric,
    self: l.dataset.self === undefined ? null : Number(l.dataset.self),
    inclusive: l.dataset.inclusive === undefined ? null : Number(l.dataset.inclusive),
    caller: l.dataset.caller === undefined ? null : Number(l.dataset.caller), text: l.textContent })));

  const rows = sel => page.$$eval(sel + " tbody tr", trs => trs.map(tr => [...tr.children].map(td => td.textContent)));
  const heads = sel => page.$$eval(sel + " thead tr", trs => trs.map(tr => [...tr.children].map(td => td.textContent)));
  out.hottest = await rows("#hottest");
  out.hottest_head = await heads("#hottest");
  out.functions = await rows("#function-table");
  out.functions_head = await heads("#function-table");
  out.pages = await rows("#page-table");
  out.lines = await page.$("#line-table") ? await rows("#line-table") : null;
  out.lines_head = await page.$("#line-table") ? await heads("#line-table") : null;
  out.lines_note = await page.$eval("#lines-note", n => n.textContent);

  // The hot-byte labels at every bin size.
  const labels = () => page.$$eval(".hot-label", ls => ls.map(l => { const r = l.getBoundingClientRect();
    return { rank: Number(l.dataset.rank), address: Number(l.dataset.address), x: r.x + scrollX, y: r.y + scrollY, w: r.width, h: r.height }; }));
  out.hot_labels = {};
  for (const bin of ["1", "4", "16", "64", "256"]) {
    await page.select("#bin", bin);
    out.hot_labels[bin] = await labels();
  }
  await page.select("#bin", "1");

  // The flame graph under the instructions metric.
  await page.select("#flame-metric", "instructions");
  out.flame = await page.evaluate(() => { const f = window.qipReport.flame;
    return { metric: f.metric, whole: f.whole, rest: f.rest, roots: f.roots,
      width: document.getElementById("flame").clientWidth,
      frames: f.frames.filter(x => x.label !== "").map(x => ({ node: x.node, value: x.value, label: x.label, x: x.x, w: x.w, depth: x.depth })) }; });
  const tipBox = () => page.$eval("#tip", t => { const r = t.getBoundingClientRect();
    return { shown: t.style.display === "block", text: t.textContent, left: r.left, top: r.top, right: r.right, bottom: r.bottom,
      window: [document.documentElement.clientWidth, window.innerHeight] }; });
  await page.$eval("#flame", f => f.scrollIntoView({ block: "start" }));
  const first = out.flame.roots[0];
  if (first) {
    const fr = await page.$(`#flame .fr[data-node="${first.node}"]`);
    const b = await fr.boundingBox();
    await page.mouse.move(b.x + 5, b.y + b.height / 2);
    out.flame_tooltip = await tipBox();
  }
  // Near the right edge of the window the tooltip turns left.
  const fl = await (await page.$("#flame")).boundingBox();
  await page.mouse.move(fl.x + fl.width - 3, fl.y + 27);
  out.edge_tooltips = [await tipBox()];
  // Zoom into the heaviest child of the first root, then out again.
  const child = out.flame.frames.find(x => x.depth === 2);
  if (child) {
    await page.click(`#flame .fr[data-node="${child.node}"]`);
    out.zoom = await page.evaluate(() => { const f = window.qipReport.flame, z = f.frames.find(x => x.node === f.zoom);
      return { zoom: f.zoom, x: z.x, w: z.w, width: document.getElementById("flame").clientWidth,
        selection: window.qipReport.selection, highlighted: window.qipReport.highlight.count }; });
    await page.click('#flame .fr[data-kind="all"]');
    out.zoom_out = await page.evaluate(() => ({ zoom: window.qipReport.flame.zoom, selection: window.qipReport.selection }));
  }
  // Search.
  // The last word of the name of the widest frame below the roots.
  const named = out.flame.frames.filter(x => x.depth >= 2).sort((a, b) => b.w - a.w)[0];
  const needle = named ? await page.evaluate(n => { const d = JSON.parse(document.getElementById("qip-memory-data").textContent);
    return d.functions[d.call_tree[n].function].name.split("::").pop().slice(0, 12); }, named.node) : "";
  await page.type("#flame-search", needle);
  out.search = { needle, matches: await page.$$eval("#flame .fr.match", fs => fs.map(f => Number(f.dataset.node))),
    status: await page.$eval("#flame-status", s => s.textContent) };
  await page.$eval("#flame-search", i => { i.value = ""; i.dispatchEvent(new Event("input")); });

  // Selecting functions: the table's first row, then the function that received the most
  // write instructions itself (the first sentence's).
  const selectRow = async row => {
    await page.$eval(`#function-table tbody tr[data-row="${row}"]`, tr => tr.scrollIntoView({ block: "center" }));
    await page.click(`#function-table tbody tr[data-row="${row}"]`);
    return page.evaluate(() => ({ selection: window.qipReport.selection, count: window.qipReport.highlight.count,
      ranges: window.qipReport.highlightedRanges(), pages: window.qipReport.highlight.pages,
      hot: window.qipReport.hot.map(h => ({ address: h.address, node: h.node })),
      selected_rows: [...document.querySelectorAll("#function-table tr.selected")].map(tr => Number(tr.dataset.row)),
      flame_selected: [...document.querySelectorAll("#flame .fr.sel")].map(f => Number(f.dataset.node)) }));
  };
  const topRow = await page.$eval("#function-table tbody tr", tr => Number(tr.dataset.row));
  out.select_top = await selectRow(topRow);
  out.select_top.row = topRow;
  out.scroll_width.push(await scrollWidth());
  const selfRow = out.sentences.length ? out.sentences[0].self : null;
  if (selfRow !== null) {
    out.select_self = await selectRow(selfRow);
    out.select_self.row = selfRow;
    out.select_self.hottest = await rows("#hottest");
    await page.click(`#function-table tbody tr[data-row="${selfRow}"]`);   // again: clears
    out.after_clearing = await page.evaluate(() => window.qipReport.selection);
  }

  // Picking the hottest byte from its row.
  await page.$eval("#hottest tbody tr", tr => tr.scrollIntoView({ block: "center" }));
  await page.click("#hottest tbody tr");
  out.pick = await page.evaluate(() => ({ picked: window.qipReport.picked,
    path: [...document.querySelectorAll("#flame .fr.path")].map(f => Number(f.dataset.node)),
    picked_rows: [...document.querySelectorAll("#hottest tr.picked")].map(tr => Number(tr.dataset.address)),
    picked_labels: [...document.querySelectorAll(".hot-label.picked")].map(l => Number(l.dataset.address)),
    text: document.getElementById("picked").textContent }));
  out.scroll_width.push(await scrollWidth());

  // Hover the hottest byte: its cell at one byte per cell (256 cells across the canvas).
  const data = await page.evaluate(() => JSON.parse(document.getElementById("qip-memory-data").textContent));
  const hot = data.hottest[0];
  const canvas = await page.$(`#tiles canvas.map[data-page="${Math.floor(hot.address / 65536)}"]`);
  // The pointer only reaches what is in the viewport.
  await canvas.evaluate(c => c.scrollIntoView({ block: "center" }));
  const box = await canvas.boundingBox();
  // Only the rows from the first touched one are drawn (data-first-row).
  const offset = hot.address % 65536, cell = box.width / 256, top = await canvas.evaluate(c => Number(c.dataset.firstRow));
  await page.mouse.move(box.x + (offset % 256 + 0.5) * cell, box.y + (Math.floor(offset / 256) - top + 0.5) * cell);
  out.tooltip = await page.$eval("#tip", t => ({ shown: t.style.display === "block", text: t.textContent }));
  // The tile's bottom right corner, scrolled to the window's bottom edge.
  await canvas.evaluate(c => c.scrollIntoView({ block: "end" }));
  const end = await canvas.boundingBox();
  await page.mouse.move(end.x + end.width - 2, end.y + Math.max(end.height / 2, end.height - 2));
  out.edge_tooltips.push(await tipBox());
  await page.mouse.move(1, 1);
  out.tooltip_after_leaving = await page.$eval("#tip", t => t.style.display);
  out.tiles_after = await tiles();
  await page.screenshot({ path: screenshot.replace(/\.png$/, "-full.png"), fullPage: true });
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
