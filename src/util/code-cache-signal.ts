// Tells the bundle's loader (src/util/code-cache.ts, through index.ts) that a settle has run: a code cache made
// after it holds the functions every session's settle runs, which one made by a short command (a `status`) lacks.
// The loader then writes such a cache when Pi exits, once; with the TypeScript sources there is no loader.
export const CODE_CACHE_KEY = Symbol.for("pi-watchdog.code-cache");

let told = false;

/** After a settle: once per process. */
export function settledOnce(): void {
	if (told) return;
	told = true;
	const loader = (globalThis as Record<symbol, { settled?: () => void } | undefined>)[CODE_CACHE_KEY];
	loader?.settled?.();
}
