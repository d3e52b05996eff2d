// Two heap dumps around an allocate-and-free phase, for the comparison view (docs/heap.md, "The two
// views").
//
// Phase 1: 8 `Cell`s are allocated and kept in a global StaticArray → dump 1.
// Phase 2: the odd-numbered half is dropped and the collector runs to completion, then 3
//          `Blob`s are allocated and kept in a second global StaticArray → dump 2.
//
// tests/heap_assemblyscript.rs derives the diff rows from this file: change them together.

import { dumpHeap } from "./memory_dump";

// Payload 8 bytes → shallow (8 + 35) & ~15 = 32.
class Cell {
  id: i32;
  weight: i32;
  constructor(id: i32) {
    this.id = id;
    this.weight = id * 10;
  }
}

// Fields a@0, b@8, tag@16, next@20: payload 24 bytes → shallow (24 + 35) & ~15 = 48.
class Blob {
  a: f64;
  b: f64;
  tag: i32;
  next: Blob | null = null;
  constructor(tag: i32) {
    this.a = 0;
    this.b = 0;
    this.tag = tag;
  }
}

let cells: StaticArray<Cell | null> | null = null;
let blobs: StaticArray<Blob> | null = null;

function allocateCells(): void {
  const all = new StaticArray<Cell | null>(8);
  for (let i = 0; i < 8; i++) all[i] = new Cell(i);
  cells = all;
}

function dropOddCells(): void {
  const all = cells!;
  for (let i = 1; i < 8; i += 2) all[i] = null;
}

function allocateBlobs(): void {
  const all = new StaticArray<Blob>(3);
  for (let i = 0; i < 3; i++) all[i] = new Blob(i);
  blobs = all;
}

export function main(): void {
  allocateCells();
  dumpHeap("before");
  dropOddCells();
  __collect();
  allocateBlobs();
  dumpHeap("after");
}
