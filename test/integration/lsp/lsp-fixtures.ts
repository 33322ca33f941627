// What the LSP integration tests share: a manager's settings roomy enough for a loaded machine, and a strict
// tsconfig for the small projects they write.
export const LSP_TEST_SETTINGS = { timeoutMs: 20_000, maxFiles: 20, idleMs: 60_000 };
export const STRICT_TSCONFIG = JSON.stringify({
	compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler" },
	include: ["src"],
});
