// The one check for "a JSON object" (settings, session entries, recorded transcripts).

/** A plain object: not null, not an array. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}
