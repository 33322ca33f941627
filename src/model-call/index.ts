// Plumbing for calling a model: checking the chosen model usable and asking it under the
// caller's deadline (reviewer, verifier, arbiter, nudge writer), prompts loaded from
// prompts/*.md, data fences around untrusted text, the schema helpers of the model tools, and
// the one checker of a model's tool arguments (`checkArgs`, TypeBox `Value` over its schema).
// Other folders import from here; files inside the folder import each other directly.
export { dataFence } from "./fence.ts";
export { loadPrompt } from "./prompts.ts";
export { enumOf } from "./schema.ts";
export { argsShape, checkArgs, type Checked, trimStrings } from "./check-args.ts";
export { askModel, usableModel, type UsableModel } from "./call.ts";
