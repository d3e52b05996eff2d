// Loads .heapsnapshot files with Chrome DevTools' heap snapshot model and prints what
// DevTools computes from them, as JSON on stdout, for tests/heap_devtools.rs:
//   node check.mjs A.heapsnapshot            → {nodes: [...], aggregates: [...]}
//   node check.mjs A.heapsnapshot B.heapsnapshot → the same for B, and diff: DevTools'
//                                                 Comparison view of B against A
import { createReadStream } from 'node:fs'
import { parse, diff } from 'heap-snapshot-toolkit'

async function load (path) {
  return parse(createReadStream(path, 'utf-8'))
}

function describe (snap) {
  const nodes = []
  for (let i = 0; i < snap.nodeCount; i++) {
    const n = snap.createNode(i * snap.nodeFieldCount)
    const edges = []
    for (let it = n.edges(); it.hasNext(); it.next()) {
      edges.push({ type: it.edge.type(), name: String(it.edge.name()), to: it.edge.node().id() })
    }
    nodes.push({
      id: n.id(),
      type: n.type(),
      name: n.name(),
      className: n.className(),
      selfSize: n.selfSize(),
      retainedSize: n.retainedSize(),
      distance: n.distance(),
      edges
    })
  }
  const aggregates = Object.values(snap.aggregatesWithFilter({}))
    .map(a => ({ name: a.name, count: a.count, self: a.self, maxRet: a.maxRet }))
  return { nodes, aggregates }
}

const [a, b] = process.argv.slice(2)
const first = await load(a)
if (b === undefined) {
  console.log(JSON.stringify(describe(first)))
} else {
  const second = await load(b)
  const d = await diff(first, second)
  const rows = Object.values(d).map(r => ({
    name: r.name,
    addedCount: r.addedCount,
    removedCount: r.removedCount,
    addedSize: r.addedSize,
    removedSize: r.removedSize
  }))
  console.log(JSON.stringify({ ...describe(second), diff: rows }))
}
