#!/usr/bin/env node
// The command-line entry. The package is TypeScript that Pi loads through jiti; Node does not
// strip types inside node_modules, so the CLI loads its sources through jiti as well.
import { createJiti } from "jiti";

const jiti = createJiti(import.meta.url);
const { main } = await jiti.import("../src/scan/cli.ts");
process.exitCode = await main(process.argv.slice(2));
