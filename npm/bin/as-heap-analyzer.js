#!/usr/bin/env node
// `as-heap-analyzer`: WARPO's heap analyzer commands (`analyze`, `diff`) with its flags and
// messages verbatim; the same program as `qip-memory heap`, started under WARPO's name.
import { main } from "../lib/cli.js";

await main("as-heap-analyzer");
