// The host import every fixture program calls to have its heap dumped (docs/heap.md, "Capture").
//
// Arguments: a label (pointer and byte length of a static UTF-16 string literal, so that the
// call allocates nothing) and the three region values the dump header needs, which
// AssemblyScript code can read as builtins. The host (run.mjs) writes the next
// `<program>.<n>.dump`, version 2, with every mutable i32 global of the module; it checks the
// stack pointer passed here against the module's own `__stack_pointer` global.
@external("MemoryDump", "dumpMemoryRegion")
declare function dumpMemoryRegion(
  labelPtr: usize,
  labelByteLength: usize,
  dataEnd: usize,
  heapBase: usize,
  stackPointer: usize,
): void;

// Dumps the heap. Inlined, so that `__stack_pointer` is the caller's: every frame that is live
// at the call lies in [stackPointer, heapBase).
// @ts-ignore: decorator
@inline export function dumpHeap(label: string): void {
  dumpMemoryRegion(
    changetype<usize>(label),
    <usize>label.length << 1,
    __data_end,
    __heap_base,
    __stack_pointer,
  );
}
