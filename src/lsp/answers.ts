// What a warm server has already answered, kept while no text handed to it has changed (its
// generation): the check after an edit and the check at the end of the run ask the same
// questions, and the second finds the first's answers ready, or waits on the same request
// instead of queueing another behind it (the server answers one request at a time). Which files
// import a file is kept longer: while no file's imports changed (the server's importsGeneration).
import type { TsServerDiagnostic } from "./diagnostics.ts";
import { type LspServer, TimeoutError } from "./lsp-server.ts";

type Question = "errors" | "hints" | "importers";
/** Files whose importers are remembered: while no imports change, every file ever checked would stay. */
const IMPORTERS_KEPT = 1000;

export class ServerAnswers {
	private readonly server: LspServer;
	private generation = -1;
	private readonly asked = new Map<string, Promise<unknown>>();
	private importsGeneration = -1;
	private readonly importersOf = new Map<string, Promise<string[]>>();

	constructor(server: LspServer) {
		this.server = server;
	}

	/** Syntactic and semantic diagnostics of an open file. */
	errors(file: string, timeoutMs: number): Promise<TsServerDiagnostic[]> {
		return this.ask("errors", file, timeoutMs, () => this.server.errors(file, timeoutMs));
	}

	/** Suggestion diagnostics of an open file. */
	hints(file: string, timeoutMs: number): Promise<TsServerDiagnostic[]> {
		return this.ask("hints", file, timeoutMs, () => this.server.hints(file, timeoutMs));
	}

	/** Files that import this open file. */
	importers(file: string, timeoutMs: number): Promise<string[]> {
		if (this.server.importsGeneration !== this.importsGeneration) {
			this.importersOf.clear();
			this.importsGeneration = this.server.importsGeneration;
		}
		// The oldest answer is forgotten past the bound (asked again if needed).
		if (this.importersOf.size >= IMPORTERS_KEPT && !this.importersOf.has(keyOf("importers", file)))
			this.importersOf.delete(this.importersOf.keys().next().value as string);
		return this.ask("importers", file, timeoutMs, () => this.server.importers(file, timeoutMs), this.importersOf);
	}

	/** The answer given at the current generation, or a new request; waited on for at most `timeoutMs`. */
	private ask<T>(
		question: Question,
		file: string,
		timeoutMs: number,
		request: () => Promise<T>,
		kept: Map<string, Promise<unknown>> = this.asked,
	): Promise<T> {
		if (this.server.generation !== this.generation) {
			this.asked.clear();
			this.generation = this.server.generation;
		}
		const key = keyOf(question, file);
		let answer = kept.get(key) as Promise<T> | undefined;
		if (!answer) {
			const asked = request();
			answer = asked;
			kept.set(key, asked);
			// A failed answer (a timeout, a crash) is not kept: the next question asks again.
			asked.catch(() => {
				if (kept.get(key) === asked) kept.delete(key);
			});
		}
		return within(answer, timeoutMs, `${question} of ${file}`);
	}
}

const keyOf = (question: Question, file: string) => `${question}\u0000${file}`;

/** The promise, or a TimeoutError after `ms` (the request itself keeps its own deadline). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const late = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new TimeoutError(`no answer to ${what} within ${ms} ms`)), ms);
	});
	return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
