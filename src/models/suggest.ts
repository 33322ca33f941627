// Typos in model references: the closest refs Pi knows, by edit distance. Pure, apart from
// `unknownModel`, which reads the registry's lists.
import type { Registry } from "./reviewer-model.ts";

/** Levenshtein distance: insertions, deletions and substitutions, each costing one. */
export function editDistance(a: string, b: string): number {
	if (a === b) return 0;
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
		}
		previous = current;
	}
	return previous[b.length];
}

export interface KnownRef {
	ref: string;
	/** Has credentials (from `getAvailable`): preferred when two are equally close. */
	available: boolean;
}

/**
 * Up to `limit` known refs closest to `wanted` (case-insensitive), nearest first: those within a
 * third of its length in edits, or else the single closest one.
 */
export function closestRefs(wanted: string, known: readonly KnownRef[], limit = 3): string[] {
	const target = wanted.toLowerCase();
	const ranked = known
		.map((k) => ({ ...k, distance: editDistance(target, k.ref.toLowerCase()) }))
		.sort((x, y) => x.distance - y.distance || Number(y.available) - Number(x.available) || x.ref.localeCompare(y.ref));
	const near = Math.max(ranked[0]?.distance ?? 0, Math.ceil(target.length / 3));
	return ranked
		.filter((k) => k.distance <= near)
		.slice(0, limit)
		.map((k) => k.ref);
}

/** Refused because Pi knows no such model; `--force` (the tool's `force: true`) saves it anyway. */
export class UnknownModelError extends Error {
	readonly ref: string;
	readonly suggestions: readonly string[];
	constructor(ref: string, suggestions: readonly string[], message: string) {
		super(message);
		this.name = "UnknownModelError";
		this.ref = ref;
		this.suggestions = suggestions;
	}
}

/** Why `provider/id` is unknown and what is close to it, as one sentence each. Pure. */
export function describeUnknown(
	provider: string,
	id: string,
	known: readonly KnownRef[],
	thinking?: string,
): { problem: string; suggestions: string[] } {
	const providerKnown = known.some((k) => k.ref.startsWith(`${provider}/`));
	const problem = providerKnown
		? `Pi knows no model "${id}" from provider "${provider}"`
		: `Pi knows no provider "${provider}"`;
	const suffix = thinking && thinking !== "off" ? `:${thinking}` : "";
	return { problem, suggestions: closestRefs(`${provider}/${id}`, known).map((r) => `${r}${suffix}`) };
}

/** An error to refuse `provider/id` with when the registry does not know it; undefined when it does. */
export function unknownModel(
	registry: Registry,
	provider: string,
	id: string,
	thinking?: string,
): UnknownModelError | undefined {
	if (safe(() => registry.find(provider, id), undefined)) return undefined;
	const available = new Set(safe(() => registry.getAvailable(), []).map((m) => `${m.provider}/${m.id}`));
	const all = new Set([...safe(() => registry.getAll(), []).map((m) => `${m.provider}/${m.id}`), ...available]);
	const known = [...all].map((ref) => ({ ref, available: available.has(ref) }));
	const { problem, suggestions } = describeUnknown(provider, id, known, thinking);
	const ref = `${provider}/${id}`;
	const hint = suggestions.length
		? ` Did you mean ${orList(suggestions)}?`
		: " Pi knows no models at all; add one in models.json or log in with /login.";
	return new UnknownModelError(ref, suggestions, `not saved: ${problem}, so ${ref} cannot run.${hint}`);
}

function orList(items: readonly string[]): string {
	return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

function safe<T>(fn: () => T, fallback: T): T {
	try {
		return fn();
	} catch {
		return fallback;
	}
}
