// A program as an AssemblyScript user writes it against WARPO's own dump import (docs/npm.md,
// "Capture"): a binary search tree kept only in a module-level variable, which asc compiles
// to a mutable i32 global. Built by stock asc (no layout transform, no added DWARF); its dumps
// are taken by tests/npm.rs twice, by `qip-memory heap capture` and by Node through the npm
// package's `memoryDumpImports`, and must be the same.
//
// `main` inserts the 64 keys (32 + k * 37) % 64 for k = 0..63 (37 is odd, so all 64 differ;
// the root holds 32), dumps to `tree-1.dump`, then drops the root's left subtree (the 32 keys
// below 32), collects and dumps to `tree-2.dump`: 32 nodes stay. The
// other exports ask for dumps at paths a host must refuse.

@external("MemoryDump", "dumpMemoryRegion")
declare function dumpMemoryRegion(filePathOffset: i32, filePathSize: i32): void;

function dump(path: string): void {
  const encoded = String.UTF8.encode(path);
  dumpMemoryRegion(changetype<i32>(encoded), String.UTF8.byteLength(path));
}

class TreeNode {
  left: TreeNode | null = null;
  right: TreeNode | null = null;
  constructor(public key: i32) {}
}

let root: TreeNode | null = null;

function insert(node: TreeNode | null, key: i32): TreeNode {
  if (node === null) return new TreeNode(key);
  if (key < node.key) node.left = insert(node.left, key);
  else node.right = insert(node.right, key);
  return node;
}

// The tree is built and pruned in functions of their own, so that no stack frame live at a
// dump holds a node: only the global does.
function build(): void {
  for (let k = 0; k < 64; k++) root = insert(root, (32 + k * 37) % 64);
}

function prune(): void {
  root!.left = null;
}

export function main(): void {
  build();
  dump("tree-1.dump");
  prune();
  __collect();
  dump("tree-2.dump");
}

export function escape(): void {
  dump("../escape.dump");
}

export function absolute(): void {
  dump("/tmp/absolute.dump");
}
