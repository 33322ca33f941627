// Why a language server stopped, from the end of its log (it is kept short: see STDERR_TAIL).
export const STDERR_TAIL = 4096;

/**
 * typescript-language-server stops when its tsserver exits and says so on stderr ("tsserver process has
 * exited (exit code: …, signal: …)"). An abort is how tsserver ends when it reaches its heap limit.
 */
export function tsserverExit(stderr: string): string {
	const m = /tsserver process has exited \(exit code: (\w+), signal: (\w+)\)/.exec(stderr);
	if (!m) return "";
	const [, code, signal] = m;
	const how = signal !== "null" ? `signal ${signal}` : `code ${code}`;
	const memory =
		signal === "SIGABRT" || code === "134" || /heap out of memory|Reached heap limit/.test(stderr)
			? "; tsserver ends this way when it runs out of memory: raise lsp.serverMemoryMb for a large project"
			: "";
	return ` because its tsserver exited (${how})${memory}`;
}
