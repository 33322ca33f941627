// What the arbiter is shown of a tool call's arguments: a readable preview (string values as
// they are, so code reads as code) with credentials replaced, at most 2,000 characters. Values
// under secret-looking keys go whole; then every string value is redacted on its own decoded
// text before it is rendered (so a `.env` line inside an edit's JSON, or on a write's first
// line, is still a line), and the rendered text once more. The shapes: PEM and PGP private
// keys, cloud and vendor keys, JWTs, bearer and basic headers, credentials in URLs and
// connection strings, `.env`-style assignments, command-line passwords, long base64 blobs.
// Pure, and bounded: at most SCAN_CHARS characters in all are looked at.
import { clip } from "../util/index.ts";

export const PREVIEW_CHARS = 2000;
/** Text the patterns look at; anything past it could never reach the preview anyway. */
const SCAN_CHARS = 20_000;
const MAX_DEPTH = 6;
const R = "[redacted]";

/** A key whose value is a secret whatever it looks like. */
const SECRET_KEY = new RegExp(
	String.raw`pass(?:word|wd|phrase)?$|^pwd$|secret|token|api[_-]?key|apikey` +
		String.raw`|access[_-]?key|private[_-]?key|credential|authorization|^auth$|cookie` +
		String.raw`|session[_-]?id|signature`,
	"i",
);

/** Shapes of secrets, replaced wherever they stand. Order matters: whole blocks first. */
const PATTERNS: Array<[RegExp, string]> = [
	// PEM and PGP private keys (RSA, EC, OPENSSH, ENCRYPTED, PGP … BLOCK), to their END line or the end of the text.
	[
		/-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
		"[redacted private key]",
	],
	// Connection strings (Azure storage and service bus, ADO.NET): AccountKey=…; Password=…;
	[/\b(AccountKey|SharedAccessKey|SharedAccessSignature|SharedSecretValue|Password|Pwd)=[^;\s"'`]+/gi, `$1=${R}`],
	// Credentials in a URL: scheme://user:password@host, scheme://token@host.
	[/\b([a-z][a-z0-9+.-]{1,20}:\/\/)[^\s/@'"`<>]+@/gi, `$1${R}@`],
	// Authorization headers and bearer/basic/token schemes.
	[/\b(authorization|proxy-authorization|x-api-key|api-key)(["']?\s*[:=]\s*["']?)[^\n"']+/gi, `$1$2${R}`],
	[/\b(Bearer|Basic|Token|Digest)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${R}`],
	// JSON Web Tokens.
	[/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, R],
	// Vendor keys: Anthropic, OpenAI (sk-, sk-proj-), GitHub, GitLab, Slack, Google, Stripe, npm, AWS key ids.
	[/\bsk-[A-Za-z0-9_-]{16,}/g, R],
	[/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,})/g, R],
	[/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, R],
	[/\bAIza[0-9A-Za-z_-]{30,}/g, R],
	[/\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g, R],
	[/\bnpm_[A-Za-z0-9]{30,}/g, R],
	// Hugging Face tokens.
	[/\bhf_[A-Za-z0-9]{30,}/g, R],
	[/\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g, R],
	// `.env` lines: NAME=value (optionally `export`), at the start of a line, any upper-case name.
	[/^([ \t]*(?:export[ \t]+)?[A-Z][A-Z0-9_]*[ \t]*=[ \t]*)\S.*$/gm, `$1${R}`],
	// Lower-case `.env` lines under a secret-looking name, `=` without spaces (code puts spaces around it).
	[
		new RegExp(
			String.raw`^([ \t]*(?:export[ \t]+)?[A-Za-z][A-Za-z0-9_.-]*(?:pass|passwd|password` +
				String.raw`|pwd|secret|token|api[_-]?key|private[_-]?key|access[_-]?key` +
				String.raw`|credentials?)[A-Za-z0-9_]*=)\S.*$`,
			"gim",
		),
		`$1${R}`,
	],
	// An upper-case secret-looking NAME=value anywhere (a command's environment, an `echo … >> .env`).
	[
		new RegExp(
			String.raw`\b([A-Z][A-Z0-9_]*(?:PASS|PASSWD|PASSWORD|PWD|SECRET|TOKEN|KEY` +
				String.raw`|CREDENTIALS?|SALT)[A-Z0-9_]*=)(?!\[redacted)[^\s"'\x60;&|]+`,
			"g",
		),
		`$1${R}`,
	],
	// Passwords on a command line: mysql -pSECRET (the MySQL family), --password=SECRET (anything).
	[
		new RegExp(
			String.raw`(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck` +
				String.raw`|mysqlsh|mariadb[a-z-]*)\b[^\n|;&]*?\s)-p(?=[^\s-])\S+`,
			"g",
		),
		`$1-p${R}`,
	],
	[/(--pass(?:word)?=)(?!\[redacted)\S+/g, `$1${R}`],
	// key = "literal" or key: 'literal' under a secret-looking name, in any language.
	[
		new RegExp(
			String.raw`\b([A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key` +
				String.raw`|apikey|access[_-]?key|private[_-]?key|client[_-]?secret` +
				String.raw`|credentials?)[A-Za-z0-9_.-]*["']?[ \t]*[:=]{1,2}[ \t]*)(["'\x60])[^"'\x60\n]+\2`,
			"gi",
		),
		`$1$2${R}$2`,
	],
	// The same with a bare value that is not an identifier or type (it holds a digit or a symbol).
	[
		new RegExp(
			String.raw`\b([A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key` +
				String.raw`|apikey|access[_-]?key` +
				String.raw`|client[_-]?secret)[A-Za-z0-9_.-]*[ \t]*[:=][ \t]*)` +
				String.raw`(?=[^\s"'\x60,;)]*[0-9!@#$%^&*+/=~])[^\s"'\x60,;)]{6,}`,
			"gi",
		),
		`$1${R}`,
	],
	// A 40-character base64 run with upper and lower case and digits (an AWS secret access key's shape).
	[
		new RegExp(
			String.raw`(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[0-9])` +
				String.raw`[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`,
			"g",
		),
		R,
	],
];

/** A run of base64 this long (with its padding) is a key, a token or a blob, never code a reviewer needs. */
const BLOB = /(?<![A-Za-z0-9/+=_-])[A-Za-z0-9/+]{48,}={0,2}(?![A-Za-z0-9/+=_-])/g;

/**
 * Base64: many upper and many lower-case letters (a long camelCase name has an upper-case letter
 * every word, base64 two in five characters), a digit, and few slashes (a path has one every
 * few characters).
 */
function looksLikeBlob(run: string): boolean {
	const count = (re: RegExp) => run.match(re)?.length ?? 0;
	const sixth = run.length / 6;
	return count(/[A-Z]/g) >= sixth && count(/[a-z]/g) >= sixth && count(/[0-9]/g) >= 1 && count(/\//g) * 16 < run.length;
}

/** Credentials in a text replaced (used for the preview and for recent calls' targets). */
export function redactText(text: string): string {
	let out = text.length > SCAN_CHARS ? text.slice(0, SCAN_CHARS) : text;
	for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
	return out.replace(BLOB, (run) => (looksLikeBlob(run) ? R : run));
}

/** The preview of a call's arguments: `key: value` lines, secrets replaced, at most PREVIEW_CHARS. */
export function previewArguments(input: unknown): string {
	const scrubbed = scrubKeys(input, 0, { left: SCAN_CHARS });
	let text: string;
	if (scrubbed && typeof scrubbed === "object" && !Array.isArray(scrubbed)) {
		const lines: string[] = [];
		let size = 0;
		for (const [key, value] of Object.entries(scrubbed as Record<string, unknown>)) {
			const line = `${key}: ${typeof value === "string" ? value : safeJson(value)}`;
			lines.push(line);
			size += line.length;
			if (size > SCAN_CHARS) break;
		}
		text = lines.join("\n");
	} else text = typeof scrubbed === "string" ? scrubbed : safeJson(scrubbed);
	return clip(redactText(text), PREVIEW_CHARS);
}

/**
 * A copy with every value under a secret-looking key replaced and every string redacted on its
 * own decoded text; deep structures cut at MAX_DEPTH, and strings past the scan budget dropped.
 */
function scrubKeys(value: unknown, depth: number, budget: { left: number }): unknown {
	if (typeof value === "string") {
		if (budget.left <= 0) return "[…]";
		const text = value.length > budget.left ? value.slice(0, budget.left) : value;
		budget.left -= text.length;
		return redactText(text);
	}
	if (value === null || typeof value !== "object") return value;
	if (depth >= MAX_DEPTH) return "[…]";
	if (Array.isArray(value)) return value.slice(0, 200).map((v) => scrubKeys(v, depth + 1, budget));
	const out: Record<string, unknown> = {};
	let n = 0;
	for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
		if (n++ >= 200) break;
		out[key] =
			SECRET_KEY.test(key) && v !== null && v !== "" && typeof v !== "boolean" ? R : scrubKeys(v, depth + 1, budget);
	}
	return out;
}

function safeJson(value: unknown): string {
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return String(value);
	}
}
