// Secrets the arbiter's preview used to let through (issue 23, item 12): `.env` values that are
// not at the start of a rendered line (a write's first line, an edit's newText inside JSON),
// PGP private keys, Azure account keys, Hugging Face tokens, long base64 blobs, lower-case
// `.env` names and a MySQL password in a recent call's target. Ordinary code must come through.
import { describe, expect, it } from "vitest";
import { previewArguments, recentCalls } from "../../../src/permissions/index.ts";

const ENV_VALUE = "s3cr3t-Env-Value-9Qz";
const SALT = "plainwordsaltvalue";
const PGP_BODY = "lQOYBGXq4ZwBCADJ8m2Vb3rK9pYtNw6cE1fQ0uH7sLjXaD5gRz2MkT8vBnC4yWoPq1eU3iS6hJ9kAlZ";
const PGP = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${PGP_BODY}\nxZ0Q7mN3bV8cX1zL5kJ9hG2fD4sA6pO\n=Ab3d\n-----END PGP PRIVATE KEY BLOCK-----`;
const AZURE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const AZURE = `DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=${AZURE_KEY};EndpointSuffix=core.windows.net`;
const HF = "hf_kLmNoPqRsTuVwXyZaBcDeFgHiJkLmNoPqRs";
const BLOB = "TWFuIGlzIGRpc3Rpbmd1aXNoZWQsIG5vdCBvbmx5IGJ5IGhpcyByZWFzb24sIGJ1dCBieSB0aGlz9aZ+Qw8";
const DB_PASS = "swordfish";
const MYSQL_PASS = "Hunter2Secret";

/** Every 8-character piece of a secret: no fragment may survive. */
function fragments(secret: string): string[] {
	if (secret.length <= 8) return [secret];
	return Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8));
}

const CORPUS: Array<{ name: string; input: unknown; secrets: string[] }> = [
	{
		name: "a .env value on a write's first line",
		input: { path: ".env", content: `SIGNING_SALT=${ENV_VALUE}\nDEBUG=1\n` },
		secrets: [ENV_VALUE],
	},
	{
		name: "a .env value in an edit's newText",
		input: { path: ".env", edits: [{ oldText: "DEBUG=1", newText: `DEBUG=1\nCOOKIE_SALT=${SALT}` }] },
		secrets: [SALT],
	},
	{
		name: "a .env value as an edit's whole newText",
		input: { path: ".env", edits: [{ oldText: "", newText: `APP_SEED=${ENV_VALUE}` }] },
		secrets: [ENV_VALUE],
	},
	{
		name: "a secret assignment inside a command",
		input: { command: `echo "SERVICE_TOKEN=${ENV_VALUE}" >> .env && npm test` },
		secrets: [ENV_VALUE],
	},
	{
		name: "a PGP private key",
		input: { path: "keys/release.asc", content: `${PGP}\n` },
		secrets: [PGP_BODY, "xZ0Q7mN3bV8cX1zL5kJ9hG2fD4sA6pO"],
	},
	{
		name: "an Azure connection string",
		input: { path: "appsettings.json", content: `{\n  "Storage": "${AZURE}"\n}\n` },
		secrets: [AZURE_KEY],
	},
	{ name: "a Hugging Face token", input: { command: `huggingface-cli login --token ${HF}` }, secrets: [HF] },
	{
		name: "a Hugging Face token in code",
		input: { path: "train.py", content: `login(${JSON.stringify(HF)})\n` },
		secrets: [HF],
	},
	{ name: "a long base64 blob", input: { path: "fixtures/blob.txt", content: `payload: ${BLOB}\n` }, secrets: [BLOB] },
	{
		name: "a lower-case .env password",
		input: { path: "config/.env", content: `db_host=localhost\ndb_pass=${DB_PASS}\n` },
		secrets: [DB_PASS],
	},
	{
		name: "a MySQL password on the command line",
		input: { command: `mysql -uroot -p${MYSQL_PASS} app < dump.sql` },
		secrets: [MYSQL_PASS],
	},
	{
		name: "a MySQL --password",
		input: { command: `mysqldump --user=app --password=${MYSQL_PASS} app > dump.sql` },
		secrets: [MYSQL_PASS],
	},
];

describe("the preview's redaction of the shapes it used to miss", () => {
	for (const c of CORPUS) {
		it(`keeps no credential of ${c.name}`, () => {
			const preview = previewArguments(c.input);
			for (const secret of c.secrets) {
				const left = fragments(secret).filter((f) => preview.includes(f));
				expect(left, `${c.name}: ${preview}`).toEqual([]);
			}
			expect(preview).toContain("[redacted");
		});
	}

	it("keeps a MySQL password out of the recent calls the arbiter is shown", () => {
		const branch = [
			{
				type: "message",
				message: {
					role: "assistant",
					content: [
						{ type: "toolCall", id: "1", name: "bash", arguments: { command: `mysql -p${MYSQL_PASS} -e 'select 1'` } },
					],
				},
			},
			{
				type: "message",
				message: {
					role: "assistant",
					content: [
						{ type: "toolCall", id: "2", name: "bash", arguments: { command: `MYSQL_PWD=${MYSQL_PASS} mysql app` } },
					],
				},
			},
		];
		const recent = recentCalls({ modelRegistry: {} as never, sessionManager: { getBranch: () => branch } }, "3");
		expect(recent).toHaveLength(2);
		for (const line of recent) for (const f of fragments(MYSQL_PASS)) expect(line).not.toContain(f);
		expect(recent[0]).toMatch(/^bash mysql -p\[redacted\]/);
	});

	const CODE: Array<{ name: string; input: Record<string, unknown>; intact: string[] }> = [
		{
			name: "an edit of TypeScript",
			input: {
				path: "src/a.ts",
				edits: [
					{
						oldText: "const limit = 10;",
						newText: "const limit = readLimit(process.env.LIMIT);\nexport const tokenCount = 3;",
					},
				],
			},
			intact: ["const limit = readLimit(process.env.LIMIT);", "export const tokenCount = 3;"],
		},
		{
			name: "shell with ordinary assignments",
			input: {
				command: "cd app && NODE_OPTIONS=--max-old-space-size=4096 npm test && mysql -u app -p app_db < schema.sql",
			},
			intact: ["NODE_OPTIONS=--max-old-space-size=4096 npm test", "mysql -u app -p app_db < schema.sql"],
		},
		{
			name: "paths, hashes and identifiers",
			input: {
				path: "docs/links.md",
				content: [
					"See src/components/forms/inputs/PasswordField/PasswordFieldWithStrengthMeter.tsx for the widget.",
					"Commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it; id 123e4567-e89b-12d3-a456-426614174000.",
					"const passwordStrengthIndicatorComponentForRegistrationForms2 = make();",
					"db_host = localhost",
					"password = request.POST['password']",
				].join("\n"),
			},
			intact: [
				"src/components/forms/inputs/PasswordField/PasswordFieldWithStrengthMeter.tsx",
				"3f786850e387550fdab836ed7e6dc881de23001b",
				"passwordStrengthIndicatorComponentForRegistrationForms2",
				"password = request.POST['password']",
			],
		},
	];
	for (const c of CODE) {
		it(`keeps ${c.name} intact`, () => {
			const preview = previewArguments(c.input);
			for (const text of c.intact) expect(preview).toContain(text);
			expect(preview).not.toContain("[redacted");
		});
	}
});
