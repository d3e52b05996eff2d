#!/usr/bin/env node
// `qip-memory`: the command-line tool (README, docs/npm.md), run under Node.
import { main } from "../lib/cli.js";

await main("qip-memory");
