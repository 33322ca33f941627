// Plumbing for calling a model: prompts loaded from prompts/*.md, data fences around untrusted
// text, and the schema helpers of the model tools.
// Other folders import from here; files inside the folder import each other directly.
export { dataFence } from "./fence.ts";
export { loadPrompt } from "./prompts.ts";
export { enumOf } from "./schema.ts";
