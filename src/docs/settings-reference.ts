// The settings reference in docs/settings.md, written from the settings schema, the defaults,
// the descriptions and the project rule, so it cannot drift from what the code accepts (pure).
import {
	cadenceEvery,
	DEFAULT_IN_WORDS,
	DEFAULT_SETTINGS,
	modelRefField,
	projectRule,
	SETTING_DESCRIPTIONS,
	fullLayerSchema,
	thinkingField,
} from "../settings/index.ts";
import { table } from "./markdown.ts";

/** The part of a zod 4 schema's definition the reference reads. */
interface ZodLike {
	options?: unknown[];
	_zod: {
		def: {
			type: string;
			/** A number's format: `safeint` (z.int()) and the other integer formats make it a whole number. */
			format?: string;
			shape?: Record<string, ZodLike>;
			innerType?: ZodLike;
			valueType?: ZodLike;
			element?: ZodLike;
			options?: ZodLike[];
			values?: unknown[];
			in?: ZodLike;
			checks?: Array<{ _zod: { def: { check: string; value?: number; inclusive?: boolean; maximum?: number } } }>;
		};
	};
}

export interface SettingRow {
	key: string;
	type: string;
	default: string;
	meaning: string;
	who: string;
}

// Keys the user's commands set per session too, and the agent through `watchdog.configure`.
const CONFIGURABLE =
	/^(enabled|(main|children|children\.overrides\.<role>)\.(model|thinking)|children(\.overrides\.<role>)?\.enabled)$/;

/** Every leaf key of the schema, in schema order (maps keyed by role as `<role>`). */
export function settingRows(): SettingRow[] {
	const rows: SettingRow[] = [];
	const walk = (schema: ZodLike, key: string) => {
		const field = unwrap(schema);
		const def = field._zod.def;
		if (def.type === "object" && def.shape) {
			for (const [name, child] of Object.entries(def.shape)) walk(child, key ? `${key}.${name}` : name);
			return;
		}
		if (def.type === "record" && def.valueType) return walk(def.valueType, `${key}.<role>`);
		rows.push(row(key, schema));
	};
	walk(fullLayerSchema() as unknown as ZodLike, "");
	return rows;
}

function row(key: string, schema: ZodLike): SettingRow {
	const meaning = SETTING_DESCRIPTIONS[key];
	if (!meaning) throw new Error(`setting ${key} has no description: add one to src/settings/descriptions.ts`);
	const value = key.includes("<role>") ? undefined : getPath(DEFAULT_SETTINGS, key);
	const fallback = value === undefined ? "" : `\`${JSON.stringify(value)}\``;
	const who = CONFIGURABLE.test(key)
		? "you, per session too; agent"
		: key === "idle.policy"
			? "you, per session too"
			: "you";
	return {
		key: `\`${key}\``,
		type: typeOf(unwrap(schema)),
		default: DEFAULT_IN_WORDS[key] ?? fallback,
		meaning,
		who: `${who}; project: ${projectRule(key)}`,
	};
}

function getPath(root: unknown, key: string): unknown {
	let at = root;
	for (const part of key.split("."))
		at = at && typeof at === "object" ? (at as Record<string, unknown>)[part] : undefined;
	return at;
}

function unwrap(schema: ZodLike): ZodLike {
	const inner = schema._zod.def.type === "optional" ? schema._zod.def.innerType : undefined;
	return inner ? unwrap(inner) : schema;
}

const code = (v: unknown) => `\`${JSON.stringify(v).replaceAll('"', "")}\``;

function typeOf(schema: ZodLike): string {
	if (schema === (modelRefField as unknown)) return "model or `inherit`";
	if (schema === (thinkingField as unknown)) return "thinking level or `inherit`";
	if (schema === (cadenceEvery as unknown)) return "whole number, at least 5; `0`, `false` or `null`: off";
	const def = schema._zod.def;
	switch (def.type) {
		case "boolean":
			return "boolean";
		case "string":
			return "text";
		case "null":
			return "`null`";
		case "number":
			return numberType(schema);
		case "enum":
			return (schema.options ?? []).map(code).join(", ");
		case "literal":
			return (def.values ?? []).map(code).join(", ");
		case "pipe":
			return def.in ? typeOf(def.in) : "value";
		case "union":
			return (def.options ?? []).map(typeOf).join(" or ");
		case "array": {
			const most = def.checks?.find((c) => c._zod.def.check === "max_length")?._zod.def.maximum;
			const of = def.element ? typeOf(unwrap(def.element)) : "values";
			return `list of ${of}${most === undefined ? "" : ` (at most ${most})`}`;
		}
		default:
			return def.type;
	}
}

function numberType(schema: ZodLike): string {
	const kind = /int/.test(schema._zod.def.format ?? "") ? "whole number" : "number";
	const bounds = (schema._zod.def.checks ?? []).map((c) => {
		const { check, value, inclusive } = c._zod.def;
		if (check === "greater_than") return inclusive ? `at least ${value}` : `above ${value}`;
		if (check === "less_than") return inclusive ? `at most ${value}` : `below ${value}`;
		return "";
	});
	return [kind, ...bounds.filter(Boolean)].join(", ");
}

/** The reference table, as docs/settings.md holds it. */
export function settingsReference(): string {
	const rows = settingRows().map((r) => [r.key, r.type, r.default, r.meaning, r.who]);
	return table(["key", "type", "default", "meaning", "who may set it"], rows);
}
