// The `subagents.watchdog` settings tree: its shape (zod), its defaults, and the TypeScript
// types derived from them. One schema serves every source (user, project, session): each key
// is optional in a layer; the defaults fill what no layer sets.
import { isBareModelId, parseModelRef, THINKING_LEVELS } from "../models/index.ts";
import { isPlainObject, MAX_STAR_GLOB_CHARS } from "../util/index.ts";
import { z } from "zod/mini";
import english from "zod/v4/locales/en.js";

// zod/mini: the same checks and messages as zod's chained API at a fraction of the cost of building a schema, which a
// session with the watchdog on does at every start. Configured here for every schema of ours (permissions/config.ts
// imports settings/, so this runs first): zod's JIT compiles a fast path per object schema, which costs more at
// start-up than settings parsed a few times a session ever save; zod/mini carries no messages: English, as zod's full
// API has. A statement, not a module of its own: the bundler drops a module whose exports are only passed through.
z.config({ jitless: true, ...english() });

/** The longest a child may run: a day, well under the 2^31-1 ms past which Node's timers fire at once. */
export const MAX_CHILD_TIMEOUT_MS = 86_400_000;
export const MAX_CHILD_TIMEOUT_TEXT = `${MAX_CHILD_TIMEOUT_MS} ms (24 hours)`;

/** The deepest `children.maxDepth` may go. */
export const MAX_TREE_DEPTH = 5;

/** Patterns one allow or deny list may hold. */
export const MAX_RULE_PATTERNS = 64;

type ObjectMaker = typeof z.strictObject;
const opt = z.optional;
/** A whole number within [min, max] (either bound may be absent), each bound with its own message if given. */
const wholeNumber = (
	min?: number,
	max?: number,
	errors: { type?: string; min?: string; max?: string } = {},
): z.ZodMiniNumber<number> => {
	const checks = [];
	if (min !== undefined) checks.push(z.minimum(min, errors.min === undefined ? undefined : { error: errors.min }));
	if (max !== undefined) checks.push(z.maximum(max, errors.max === undefined ? undefined : { error: errors.max }));
	const int = z.int(errors.type === undefined ? undefined : { error: errors.type });
	return checks.length ? int.check(...checks) : int;
};

// A bare id (pi-subagents' form, `claude-opus-4-8[:high]`) is resolved against Pi's models when the session reads it.
export const modelRefField = z.string().check(
	z.refine((v) => v === "inherit" || parseModelRef(v).ok || isBareModelId(v), {
		error:
			'must be "inherit", a model reference provider/id[:thinking] (e.g. anthropic/claude-opus-4-8:high), ' +
			"or a bare model id",
	}),
);
const THINKING_RULE = `must be one of ${THINKING_LEVELS.join(", ")} or inherit (false: off)`;
// `false` is pi-subagents' spelling of off.
export const thinkingField = z.union(
	[
		z.pipe(
			z.literal(false),
			z.transform(() => "off" as const),
		),
		z.enum([...THINKING_LEVELS, "inherit"]),
	],
	{ error: THINKING_RULE },
);
const positiveMs = (min: number, max?: number, maxError?: string) =>
	wholeNumber(min, max, {
		type: "must be a whole number of milliseconds",
		min: `must be at least ${min} ms`,
		max: maxError,
	});
const CADENCE_RULE = "must be 0, false or null (off), or a whole number of tool results of at least 5";
// `null` is pi-subagents' spelling of off.
export const cadenceEvery = z.union(
	[
		z.literal(0),
		z.literal(false),
		z.pipe(
			z.null(),
			z.transform(() => 0 as const),
		),
		wholeNumber(5, undefined, { type: CADENCE_RULE, min: CADENCE_RULE }),
	],
	{ error: CADENCE_RULE },
);
// Launch-rule patterns: bounded in length and number, so judging a launch stays cheap.
const globList = z
	.array(
		z.string({ error: 'must be a glob pattern (text), e.g. "openai/*"' }).check(
			z.minLength(1, { error: "a pattern may not be empty" }),
			z.maxLength(MAX_STAR_GLOB_CHARS, {
				error: `a pattern may be at most ${MAX_STAR_GLOB_CHARS} characters long`,
			}),
		),
		{ error: 'must be a list of glob patterns, e.g. ["openai/*", "anthropic/claude-*:high"]' },
	)
	.check(z.maxLength(MAX_RULE_PATTERNS, { error: `at most ${MAX_RULE_PATTERNS} patterns per list` }));

/**
 * The layer schema's sections, each built on first use: `strict` reports unknown keys, `strip` drops them. A start
 * validates a layer or two that set a few keys; building every section's schema cost more than the whole check.
 */
function layerSections(obj: ObjectMaker) {
	const cadence = () => obj({ everyNTools: opt(cadenceEvery) });
	const flag = () => opt(z.boolean());
	const model = () => opt(modelRefField);
	const atLeast = (min: number) => opt(wholeNumber(min));
	const childRole = () =>
		obj({ enabled: flag(), model: model(), thinking: opt(thinkingField), cadence: opt(cadence()) });
	return {
		enabled: () => flag(),
		main: () => opt(obj({ enabled: flag(), model: model(), thinking: opt(thinkingField) })),
		agentEndTimeoutMs: () => opt(positiveMs(1000)),
		severityThreshold: () => opt(z.enum(["concern", "blocker"], { error: "must be concern or blocker" })),
		// 1 (pi-subagents allows it): a finding stops being pushed after the first boundary review that raises it.
		stalemateRepeats: () => opt(wholeNumber(1, 20, { min: "must be at least 1", max: "must be at most 20" })),
		maxWarnings: () =>
			opt(z.union([z.null(), wholeNumber(0)], { error: "must be null (no cap) or a whole number of at least 0" })),
		fallbackModels: () => opt(z.array(modelRefField).check(z.maxLength(8, { error: "at most 8 fallback models" }))),
		scope: () => opt(obj({ enabled: flag() })),
		guidance: () => opt(obj({ watchdogMd: flag() })),
		cadence: () => opt(cadence()),
		lsp: () =>
			opt(
				obj({
					enabled: flag(),
					timeoutMs: opt(positiveMs(500)),
					maxFiles: opt(wholeNumber(1, 500)),
					idleMs: opt(positiveMs(1000)),
					serverMemoryMb: opt(
						z.union([z.literal(0), wholeNumber(256, 65_536)], {
							error: "must be 0 (Node's default) or a whole number of MB from 256 to 65536",
						}),
					),
					/** pi-subagents' key, accepted and announced as not supported (see UNSUPPORTED_KEYS). */
					maxDiagnostics: atLeast(0),
				}),
			),
		loops: () =>
			opt(
				obj({
					enabled: flag(),
					stopRun: flag(),
					window: opt(wholeNumber(5, 1000)),
					repeats: atLeast(2),
					targetHits: atLeast(2),
					readOnlyTargetHits: atLeast(2),
					dominantShare: opt(z.number().check(z.gt(0), z.maximum(1))),
					rereadFactor: opt(z.number().check(z.minimum(1))),
					cycleRepeats: atLeast(2),
					staleCalls: atLeast(2),
					checkRepeats: atLeast(2),
					restateRepeats: atLeast(2),
					errorRepeats: atLeast(2),
					failRepeats: atLeast(2),
					sameAnswers: atLeast(2),
					compactions: atLeast(2),
					maxWaitMs: opt(positiveMs(1000)),
				}),
			),
		clarification: () => flag(),
		idle: () =>
			opt(
				obj({
					main: flag(),
					children: flag(),
					policy: opt(z.enum(["off", "keep", "handsoff"], { error: "must be off, keep or handsoff" })),
					cooldownMs: opt(positiveMs(0)),
					maxNudges: atLeast(0),
					stallMs: opt(positiveMs(0)),
					model: model(),
				}),
			),
		rotate: () => opt(obj({ enabled: flag(), models: opt(z.array(modelRefField)), cooldownMs: opt(positiveMs(0)) })),
		children: () =>
			opt(
				obj({
					enabled: flag(),
					model: model(),
					thinking: opt(thinkingField),
					cadence: opt(cadence()),
					overrides: opt(z.record(z.string(), childRole())),
					concurrency: opt(wholeNumber(1, 32)),
					timeoutMs: opt(positiveMs(1000, MAX_CHILD_TIMEOUT_MS, `must be at most ${MAX_CHILD_TIMEOUT_TEXT}`)),
					maxBackground: opt(
						wholeNumber(1, 32, {
							type: "must be a whole number",
							min: "must be at least 1",
							max: "must be at most 32",
						}),
					),
					maxDepth: opt(
						wholeNumber(1, MAX_TREE_DEPTH, {
							type: "must be a whole number",
							min: "must be at least 1 (the main session's own children)",
							max: `must be at most ${MAX_TREE_DEPTH}`,
						}),
					),
					/** pi-subagents' key, accepted and announced as not supported (see UNSUPPORTED_KEYS). */
					watchdogTailTimeoutMs: atLeast(1),
				}),
			),
		rules: () =>
			opt(
				obj({
					action: opt(z.enum(["warn", "block"], { error: "must be warn or block" })),
					roleModels: opt(
						z.record(
							z.string(),
							obj(
								{
									allow: opt(globList),
									deny: opt(globList),
									note: opt(
										z
											.string({ error: "must be text" })
											.check(z.maxLength(1000, { error: "must be at most 1000 characters" })),
									),
								},
								{
									error: 'must be an object with allow, deny and note, e.g. { "deny": ["openai/*"], "note": "why" }',
								},
							),
							{ error: 'must be an object keyed by agent role, e.g. { "worker": { "deny": ["openai/*"] } }' },
						),
					),
				}),
			),
		permissions: () =>
			opt(
				obj({
					timeoutMs: opt(positiveMs(1000)),
					model: model(),
					threshold: opt(
						z
							.number({ error: "must be a number" })
							.check(
								z.minimum(0.5, { error: "must be at least 0.5" }),
								z.maximum(0.99, { error: "must be at most 0.99" }),
							),
					),
				}),
			),
		headless: () => opt(obj({ strict: flag() })),
		fleet: () =>
			opt(
				obj({
					stallMs: opt(positiveMs(1000)),
					dormantMs: opt(positiveMs(60_000)),
					model: model(),
					notify: opt(
						z.union([z.literal(false), z.string().check(z.minLength(1), z.maxLength(2000))], {
							error: "must be false or a command line",
						}),
					),
					cooldownMs: opt(positiveMs(0)),
					maxNudges: opt(wholeNumber(0, 100)),
				}),
			),
		history: () =>
			opt(
				obj({
					// Below 64 KiB the log would rotate every few reviews and keep next to nothing.
					maxBytes: opt(
						wholeNumber(65_536, 1_073_741_824, {
							type: "must be a whole number of bytes",
							min: "must be at least 65536 bytes (64 KiB)",
							max: "must be at most 1073741824 bytes (1 GiB)",
						}),
					),
				}),
			),
	};
}

type Sections = ReturnType<typeof layerSections>;
type LayerShape = { [K in keyof Sections]: ReturnType<Sections[K]> };
type Kind = "strict" | "strip";
const MAKERS: Record<Kind, ObjectMaker> = { strict: z.strictObject, strip: z.object as unknown as ObjectMaker };
const thunks: Partial<Record<Kind, Sections>> = {};
const built: Record<Kind, Partial<LayerShape>> = { strict: {}, strip: {} };
/** The sections in the schema's own order, which is the order zod checks them in and reports their problems. */
const SECTION_KEYS = Object.keys(layerSections(z.strictObject)) as Array<keyof Sections>;

function section<K extends keyof Sections>(kind: Kind, key: K): LayerShape[K] {
	const sections = thunks[kind] ?? layerSections(MAKERS[kind]);
	thunks[kind] = sections;
	const made = built[kind][key] ?? (sections[key]() as LayerShape[K]);
	built[kind][key] = made;
	return made as LayerShape[K];
}

/** The whole layer schema, every section built (the settings reference and its tests walk it). */
export function fullLayerSchema(kind: Kind = "strict") {
	const shape = Object.fromEntries(SECTION_KEYS.map((key) => [key, section(kind, key)])) as LayerShape;
	return MAKERS[kind](shape);
}

const partial = new Map<string, ReturnType<typeof fullLayerSchema>>();
/**
 * The layer schema over the sections `value` sets. Every key is optional and zod checks only the keys present, so
 * this judges any value as the whole schema would (the same problems, in the same order, and the same unknown keys).
 */
export function layerSchemaFor(value: unknown, kind: Kind): ReturnType<typeof fullLayerSchema> {
	const present = isPlainObject(value) ? SECTION_KEYS.filter((key) => Object.hasOwn(value, key)) : [];
	const id = `${kind}:${present.join(",")}`;
	let schema = partial.get(id);
	if (!schema) {
		if (partial.size >= 64) partial.clear();
		const shape = Object.fromEntries(present.map((key) => [key, section(kind, key)]));
		schema = MAKERS[kind](shape) as unknown as ReturnType<typeof fullLayerSchema>;
		partial.set(id, schema);
	}
	return schema;
}

/** One source's view of the settings: every key optional. */
export type SettingsLayer = z.infer<ReturnType<typeof fullLayerSchema>>;
/** Paths whose values are open-ended maps: their children are keyed by role, not by schema. */
export const MAP_PATHS = new Set(["children.overrides", "rules.roleModels"]);

/** pi-subagents' keys accepted (so the file still loads) that do nothing here; each is announced once per session. */
export const UNSUPPORTED_KEYS: Record<string, string> = {
	"children.watchdogTailTimeoutMs":
		"a child's watchdog here finishes inside the child's own run, so there is no tail to wait for",
	"lsp.maxDiagnostics":
		"the LSP pre-pass reports every new error and warning of the files it checks (lsp.maxFiles bounds it)",
};
