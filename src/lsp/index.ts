// The LSP pre-pass: a warm typescript-language-server per repository, and its status.
// Other folders import from here; files inside the folder import each other directly.
export { LspManager } from "./lsp-manager.ts";
export { lspBrief, lspSection } from "./lsp-status.ts";
export { bundled } from "./locate.ts";
export { languageOf } from "./languages.ts";
export { SERVER_MEMORY_MB } from "./lsp-types.ts";
