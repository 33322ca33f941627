#!/usr/bin/env node
// `npm run docs`: writes the docs generated from the code (the settings reference and the
// `subagent` tool's reference). test/unit/docs/generated-docs.test.ts fails when they are stale.
import { createJiti } from "jiti";

const jiti = createJiti(import.meta.url);
const { writeGeneratedDocs } = await jiti.import("../src/docs/index.ts");
const written = writeGeneratedDocs();
console.log(written.length ? `wrote ${written.join(", ")}` : "the generated docs are up to date");
