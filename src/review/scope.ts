// The scope: what the user has asked for in this session, as the reviewer should read it.
// Only real user prompts count (never system prompts or our own messages). Later prompts add
// to earlier ones; a prompt that explicitly changes course replaces them. Pure.

export const SCOPE_MAX_PROMPTS = 8;
export const SCOPE_MAX_CHARS = 2000;
export const SCOPE_ENTRY = "watchdog-scope";
/** The newest requests the reviewer's input always shows whole (its scope room holds two of the longest). */
export const SCOPE_KEPT_WHOLE = 2;

export interface Scope {
	prompts: string[];
}

export const EMPTY_SCOPE: Scope = { prompts: [] };

/** Openings that say the earlier requests no longer stand. */
const SUPERSEDES = new RegExp(
	String.raw`^\s*(actually[,:]?\s+(let'?s|instead|forget|scrap|don'?t)|instead[,:]?\s` +
		String.raw`|scratch that|forget (that|it|all|everything|the previous|what i said)` +
		String.raw`|never ?mind|change of plans?|new task|different task|stop (that` +
		String.raw`|working on)|disregard|scrap that|start over)`,
	"i",
);

export function supersedes(prompt: string): boolean {
	return SUPERSEDES.test(prompt);
}

export function addPrompt(scope: Scope, prompt: string): Scope {
	const text = prompt.trim();
	if (!text) return scope;
	const bounded = text.length <= SCOPE_MAX_CHARS ? text : `${text.slice(0, SCOPE_MAX_CHARS - 1)}…`;
	const prompts = supersedes(text) ? [bounded] : [...scope.prompts, bounded].slice(-SCOPE_MAX_PROMPTS);
	return { prompts };
}

/** The latest scope recorded in a session's entries. */
export function scopeFromEntries(entries: ReadonlyArray<{ type: string; customType?: string; data?: unknown }>): Scope {
	let scope = EMPTY_SCOPE;
	for (const e of entries) {
		if (e.type !== "custom" || e.customType !== SCOPE_ENTRY) continue;
		const prompts = (e.data as { prompts?: unknown } | undefined)?.prompts;
		if (Array.isArray(prompts) && prompts.every((p) => typeof p === "string"))
			scope = { prompts: prompts.slice(-SCOPE_MAX_PROMPTS) };
	}
	return scope;
}
